import '../alerts.css'
import { useState } from 'preact/hooks'
import { AlertsTabs } from '../AlertsTabs'
import { EnabledBadge } from '../DeliveryStatus'
import { LoadError } from '../../ui/LoadError'
import { ruleSummary } from '../metrics'
import { RoutingCard } from '../RoutingCard'
import { scopeWords } from '../rule-form'
import type { Channel, DefaultRule, DeviceRef, Rule } from '../types'
import { useLoad } from '../../lib/use-load'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { Link } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { Banner, Button, ButtonLink, ConfirmDialog, DataTable, EmptyState, PageHeader, Skeleton, StatusBadge, type Column } from '../../ui'

/** /alerts/rules — every rule (the defaults marked), enable or disable, edit, delete; restore deleted defaults; severity routing. */
export default function Rules(_props: { params: Record<string, string> }) {
  const rules = useLoad(() => api.get<{ items: Rule[] }>('/v1/alerts/rules'))
  const defaults = useLoad(() => api.get<{ items: DefaultRule[] }>('/v1/alerts/defaults'))
  const devices = useLoad(() => api.get<DeviceRef[]>('/v1/clients/me/devices'))
  const channels = useLoad(() => api.get<{ items: Channel[] }>('/v1/channels'))
  const [deleting, setDeleting] = useState<Rule | null>(null)
  const [notice, setNotice] = useState<{ tone: 'success' | 'error'; text: string } | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const admin = canAdmin.value

  const deviceName = (id: string) => {
    const d = devices.data?.find((x) => x.device_id === id)
    return d ? (d.name ?? d.hostname ?? d.device_id) : 'One device'
  }
  const channelNames = (ids: string[]) =>
    ids
      .map((id) => channels.data?.items.find((c) => c.id === id)?.name)
      .filter(Boolean)
      .join(', ')
  const replace = (r: Rule) => rules.set((old) => ({ items: (old?.items ?? []).map((x) => (x.id === r.id ? r : x)) }))
  const toggle = async (r: Rule) => {
    setBusy(r.id)
    try {
      replace(await api.post<Rule>(`/v1/alerts/rules/${encodeURIComponent(r.id)}/${r.enabled ? 'disable' : 'enable'}`))
      setNotice({ tone: 'success', text: `${r.name} ${r.enabled ? 'disabled: its open alerts resolve' : 'enabled'}.` })
    } catch (err) {
      setNotice({ tone: 'error', text: describeError(err) })
    } finally {
      setBusy(null)
    }
  }
  const restore = async () => {
    try {
      defaults.set(await api.post<{ items: DefaultRule[] }>('/v1/alerts/defaults/restore'))
      await rules.reload()
      setNotice({ tone: 'success', text: 'The deleted default rules are back.' })
    } catch (err) {
      setNotice({ tone: 'error', text: describeError(err) })
    }
  }
  const missing = (defaults.data?.items ?? []).filter((d) => d.rule_id === null)

  const columns: Column<Rule>[] = [
    {
      key: 'name',
      label: 'Rule',
      sortValue: (r) => r.name.toLowerCase(),
      render: (r) => (
        <div>
          <Link href={`/alerts/rules/${encodeURIComponent(r.id)}`}>{r.name}</Link> {r.builtin && <span class="pill">Default</span>}
          <div class="muted small">{ruleSummary(r)}</div>
        </div>
      ),
    },
    { key: 'severity', label: 'Severity', sortValue: (r) => r.severity, render: (r) => <StatusBadge status={r.severity} /> },
    {
      key: 'scope',
      label: 'Devices',
      render: (r) => (
        <span>
          {r.scope_device_missing ? (
            <>
              <span class="pill pill-warning">Device deleted</span> <span class="muted small">checks nothing: pick another device or delete the rule</span>
            </>
          ) : (
            scopeWords(r.scope, deviceName)
          )}
          {r.overrides.length > 0 && (
            <span class="muted small">
              {' '}
              · {r.overrides.length} override{r.overrides.length === 1 ? '' : 's'}
            </span>
          )}
        </span>
      ),
    },
    { key: 'channels', label: 'Notifies', render: (r) => channelNames(r.channel_ids) || <span class="muted">Routing only</span> },
    { key: 'enabled', label: 'Status', render: (r) => <EnabledBadge enabled={r.enabled} /> },
    {
      key: 'actions',
      label: <span class="visually-hidden">Actions</span>,
      render: (r) =>
        admin && (
          <div class="row-actions">
            <Button small loading={busy === r.id} onClick={() => void toggle(r)} aria-label={`${r.enabled ? 'Disable' : 'Enable'} ${r.name}`}>
              {r.enabled ? 'Disable' : 'Enable'}
            </Button>
            <ButtonLink small href={`/alerts/rules/${encodeURIComponent(r.id)}`}>
              Edit<span class="visually-hidden"> {r.name}</span>
            </ButtonLink>
            <Button small variant="ghost" onClick={() => setDeleting(r)} aria-label={`Delete ${r.name}`}>
              Delete
            </Button>
          </div>
        ),
    },
  ]

  return (
    <>
      <PageHeader
        title="Alert rules"
        subtitle="Checked on every sample as it arrives. The default rules protect every account from the start; change them as you like."
        actions={
          admin && (
            <ButtonLink href="/alerts/rules/new" variant="primary">
              New rule
            </ButtonLink>
          )
        }
      />
      <AlertsTabs />
      <div class="alert-stack">
        {!admin && <Banner tone="info">You can see the rules; an owner or admin of this account can change them.</Banner>}
        {notice && <Banner tone={notice.tone}>{notice.text}</Banner>}
        {admin && missing.length > 0 && (
          <Banner tone="info">
            {missing.length} default rule{missing.length === 1 ? ' was' : 's were'} deleted ({missing.map((d) => d.name).join(', ')}).{' '}
            <Button small onClick={() => void restore()}>
              Restore {missing.length === 1 ? 'it' : 'them'}
            </Button>
          </Banner>
        )}
        {rules.error ? <LoadError error={rules.error} retry={() => void rules.reload()} /> : null}
        {!rules.data && !rules.error ? (
          <Skeleton lines={5} height={44} label="Loading the rules" />
        ) : (
          <DataTable
            caption="Alert rules"
            columns={columns}
            rows={(rules.data?.items ?? []).map((r) => r)}
            rowKey={(r) => r.id}
            empty={
              <EmptyState title="No rules" icon="bell" action={admin && <ButtonLink href="/alerts/rules/new">New rule</ButtonLink>}>
                Without rules nothing alerts. The default rules (offline, disk, memory, CPU temperature) can be restored.
              </EmptyState>
            }
          />
        )}
        {channels.data && <RoutingCard channels={channels.data.items} canEdit={admin} />}
      </div>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? 'rule'}?`}
        confirmLabel="Delete rule"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          const r = deleting!
          await api.del(`/v1/alerts/rules/${encodeURIComponent(r.id)}`)
          rules.set((old) => ({ items: (old?.items ?? []).filter((x) => x.id !== r.id) }))
          void defaults.reload()
          setNotice({ tone: 'success', text: `${r.name} deleted.` })
        }}
      >
        Its alerts and their history go with it. To stop it for a while, disable it instead.
      </ConfirmDialog>
    </>
  )
}
