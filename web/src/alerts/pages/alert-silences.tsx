import '../alerts.css'
import { useState } from 'preact/hooks'
import { AlertsTabs } from '../AlertsTabs'
import { LoadError } from '../../ui/LoadError'
import { Panel } from '../../ui/Panel'
import { scopeWords } from '../rule-form'
import { silenceWhen } from '../silence-form'
import { SilenceForm } from '../SilenceForm'
import type { DeviceRef, Rule, Silence } from '../types'
import { useLoad } from '../../lib/use-load'
import { api } from '../../lib/api'
import { dateTime, duration } from '../../lib/format'
import { describeError } from '../../lib/errors'
import { setSearch, useSearch } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { Banner, Button, Card, ConfirmDialog, DataTable, EmptyState, PageHeader, Skeleton, StatusBadge, type Column } from '../../ui'

/** /alerts/silences — silences and maintenance windows: notices held, alerts still recorded. ?new=1 opens the form. */
export default function Silences(_props: { params: Record<string, string> }) {
  const q = useSearch()
  const silences = useLoad(() => api.get<{ items: Silence[] }>('/v1/alerts/silences'))
  const devices = useLoad(() => api.get<DeviceRef[]>('/v1/clients/me/devices'))
  const rules = useLoad(() => api.get<{ items: Rule[] }>('/v1/alerts/rules'))
  const [deleting, setDeleting] = useState<Silence | null>(null)
  const [notice, setNotice] = useState<{ tone: 'success' | 'error'; text: string } | null>(null)
  const admin = canAdmin.value
  const creating = q.get('new') !== null && admin

  const deviceName = (id: string) => {
    const d = devices.data?.find((x) => x.device_id === id)
    return d ? (d.name ?? d.hostname ?? d.device_id) : 'One device'
  }
  const ruleName = (id: string | null) => (id ? (rules.data?.items.find((r) => r.id === id)?.name ?? 'One rule') : 'Every rule')
  const end = async (s: Silence) => {
    try {
      const ended = await api.patch<Silence>(`/v1/alerts/silences/${encodeURIComponent(s.id)}`, { ends_at: new Date().toISOString() })
      silences.set((old) => ({ items: (old?.items ?? []).map((x) => (x.id === s.id ? ended : x)) }))
      setNotice({ tone: 'success', text: 'Silence ended: notices of alerts still firing go out now.' })
    } catch (err) {
      setNotice({ tone: 'error', text: describeError(err) })
    }
  }

  const columns: Column<Silence>[] = [
    {
      key: 'comment',
      label: 'Silence',
      render: (s) => (
        <div>
          <strong>{s.comment || 'Silence'}</strong>
          <div class="muted small">{silenceWhen(s, dateTime, duration)}</div>
        </div>
      ),
    },
    { key: 'scope', label: 'Holds', render: (s) => `${scopeWords(s.scope, deviceName)} · ${ruleName(s.rule_id)}` },
    { key: 'kind', label: 'Kind', render: (s) => (s.cron ? 'Maintenance window' : 'One-off') },
    {
      key: 'active',
      label: 'Now',
      render: (s) => (s.active ? <StatusBadge status="pending" label="Silencing" /> : <StatusBadge status="never" label="Not now" />),
    },
    {
      key: 'actions',
      label: <span class="visually-hidden">Actions</span>,
      render: (s) =>
        admin && (
          <div class="row-actions">
            {s.active && !s.cron && (
              <Button small onClick={() => void end(s)} aria-label={`End now: ${s.comment || 'this silence'}`}>
                End now
              </Button>
            )}
            <Button small variant="ghost" onClick={() => setDeleting(s)} aria-label={`Delete ${s.comment || 'this silence'}`}>
              Delete
            </Button>
          </div>
        ),
    },
  ]

  return (
    <>
      <PageHeader
        title="Silences"
        subtitle="A silence holds the notices of the alerts it covers; the alerts still show here, on the stream and to webhooks."
        actions={
          admin && (
            <Button variant="primary" onClick={() => setSearch({ new: '1' }, { replace: false })}>
              New silence
            </Button>
          )
        }
      />
      <AlertsTabs />
      <div class="alert-stack">
        {!admin && <Banner tone="info">You can see the silences; an owner or admin of this account can change them.</Banner>}
        {notice && <Banner tone={notice.tone}>{notice.text}</Banner>}
        {creating && devices.data && rules.data && (
          <Panel label="New silence">
            <Card title="New silence">
              <div class="form-narrow">
                <SilenceForm
                  devices={devices.data}
                  rules={rules.data.items}
                  onCancel={() => setSearch({ new: null }, { replace: false })}
                  onSaved={(s) => {
                    silences.set((old) => ({ items: [s, ...(old?.items ?? [])] }))
                    setNotice({ tone: 'success', text: s.active ? 'Silence created: it holds notices now.' : 'Silence created.' })
                    setSearch({ new: null }, { replace: false })
                  }}
                />
              </div>
            </Card>
          </Panel>
        )}
        {silences.error ? <LoadError error={silences.error} retry={() => void silences.reload()} /> : null}
        {!silences.data && !silences.error ? (
          <Skeleton lines={3} height={44} label="Loading the silences" />
        ) : (
          <DataTable
            caption="Silences and maintenance windows"
            columns={columns}
            rows={silences.data?.items ?? []}
            rowKey={(s) => s.id}
            empty={
              <EmptyState title="No silences" icon="bell">
                Planning maintenance? Silence a device for its duration, or set a recurring window (a nightly backup) so its alerts do not page anyone.
              </EmptyState>
            }
          />
        )}
      </div>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this silence?"
        confirmLabel="Delete silence"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          const s = deleting!
          await api.del(`/v1/alerts/silences/${encodeURIComponent(s.id)}`)
          silences.set((old) => ({ items: (old?.items ?? []).filter((x) => x.id !== s.id) }))
          setNotice({ tone: 'success', text: 'Silence deleted: notices of alerts still firing go out now.' })
        }}
      >
        Alerts it held start notifying again at once.
      </ConfirmDialog>
    </>
  )
}
