import '../alerts.css'
import { useState } from 'preact/hooks'
import { ChannelForm } from '../ChannelForm'
import { ChannelLog } from '../ChannelLog'
import { channelTarget, describeTest } from '../channel-form'
import { EnabledBadge } from '../DeliveryStatus'
import { LoadError } from '../../ui/LoadError'
import { Panel } from '../../ui/Panel'
import { Select } from '../../ui/Select'
import type { Channel, ChannelTestResult, KindInfo } from '../types'
import { useLoad } from '../../lib/use-load'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { setSearch, useSearch } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { visibleSettingsTabs } from '../../settings/SettingsHeader'
import { Banner, Button, Card, ConfirmDialog, DataTable, EmptyState, Field, Form, PageHeader, SecretBox, Skeleton, Tabs, type Column } from '../../ui'

const SEVERITY_WORDS = { info: 'Everything', warning: 'Warning and up', critical: 'Critical only' }

/**
 * /settings/channels — where alerts are sent: the channels, a form per kind built from the
 * API's field catalogue, send test, the delivery log, Shoutrrr import and export. The open
 * panel is in the URL (?new=<kind>, ?edit=<id>, ?log=<id>, ?import=1).
 */
export default function Channels(_props: { params: Record<string, string> }) {
  const q = useSearch()
  const kinds = useLoad(() => api.get<{ items: KindInfo[] }>('/v1/channels/kinds'))
  const list = useLoad(() => api.get<{ items: Channel[] }>('/v1/channels'))
  const [tests, setTests] = useState<Record<string, { busy: boolean; result?: ChannelTestResult; error?: string }>>({})
  const [exported, setExported] = useState<{ name: string; url: string } | null>(null)
  const [deleting, setDeleting] = useState<Channel | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [logVersion, setLogVersion] = useState(0)
  const admin = canAdmin.value

  const channels = list.data?.items ?? []
  const kindOf = (id: string) => kinds.data?.items.find((k) => k.id === id)
  const editing = channels.find((c) => c.id === q.get('edit')) ?? null
  const logOf = channels.find((c) => c.id === q.get('log')) ?? null
  const newKind = q.get('new') ? (kindOf(q.get('new')!) ?? kinds.data?.items[0]) : undefined
  const open = (patch: Record<string, string | null>) => {
    setNotice(null)
    setSearch({ new: null, edit: null, log: null, import: null, ...patch }, { replace: false })
  }

  const test = async (c: Channel) => {
    setTests((t) => ({ ...t, [c.id]: { busy: true } }))
    try {
      const result = await api.post<ChannelTestResult>(`/v1/channels/${encodeURIComponent(c.id)}/test`)
      setTests((t) => ({ ...t, [c.id]: { busy: false, result } }))
    } catch (err) {
      setTests((t) => ({ ...t, [c.id]: { busy: false, error: describeError(err) } }))
    }
    setLogVersion((v) => v + 1)
  }
  const exportUrl = async (c: Channel) => {
    try {
      const { url } = await api.post<{ url: string }>(`/v1/channels/${encodeURIComponent(c.id)}/export`)
      setExported({ name: c.name, url })
    } catch (err) {
      setNotice(describeError(err))
    }
  }
  const saved = (c: Channel, verb: string) => {
    list.set((old) => ({ items: [...(old?.items ?? []).filter((x) => x.id !== c.id), c].sort((a, b) => a.name.localeCompare(b.name)) }))
    open({})
    setNotice(`${c.name} ${verb}.`)
  }

  const columns: Column<Channel>[] = [
    {
      key: 'name',
      label: 'Channel',
      sortValue: (c) => c.name.toLowerCase(),
      render: (c) => (
        <div>
          <strong>{c.name}</strong>
          <div class="muted small">{kindOf(c.kind)?.name ?? c.kind}</div>
        </div>
      ),
    },
    { key: 'target', label: 'Sends to', render: (c) => <span class="target">{channelTarget(c) || '—'}</span> },
    { key: 'min_severity', label: 'Sends', render: (c) => SEVERITY_WORDS[c.min_severity] },
    { key: 'enabled', label: 'Status', render: (c) => <EnabledBadge enabled={c.enabled} /> },
    {
      key: 'actions',
      label: <span class="visually-hidden">Actions</span>,
      render: (c) => {
        const t = tests[c.id]
        return (
          <div class="row-actions">
            {admin && (
              <Button small loading={t?.busy} onClick={() => void test(c)} aria-label={`Send test to ${c.name}`}>
                Send test
              </Button>
            )}
            <Button small onClick={() => open({ log: c.id })} aria-label={`Delivery log of ${c.name}`}>
              Log
            </Button>
            {admin && (
              <>
                <Button small onClick={() => open({ edit: c.id })} aria-label={`Edit ${c.name}`}>
                  Edit
                </Button>
                <Button small onClick={() => void exportUrl(c)} aria-label={`Export ${c.name} as a Shoutrrr URL`}>
                  Export
                </Button>
                <Button small variant="ghost" onClick={() => setDeleting(c)} aria-label={`Delete ${c.name}`}>
                  Delete
                </Button>
              </>
            )}
          </div>
        )
      },
    },
  ]

  const testResults = channels.filter((c) => tests[c.id]?.result || tests[c.id]?.error)

  return (
    <>
      <PageHeader
        title="Notification channels"
        subtitle="Where alerts are sent: chat, phone, email or a URL of yours. Rules and severity routing pick them."
        actions={
          admin && (
            <>
              <Button variant="primary" onClick={() => open({ new: kinds.data?.items[0]?.id ?? 'webhook' })}>
                Add channel
              </Button>
              <Button onClick={() => open({ import: '1' })}>Import Shoutrrr URL</Button>
            </>
          )
        }
      />
      <Tabs items={visibleSettingsTabs()} label="Settings sections" />
      <div class="alert-stack">
        {!admin && <Banner tone="info">You can see the channels and their logs; an owner or admin of this account can change them.</Banner>}
        {notice && <Banner tone="success">{notice}</Banner>}
        {testResults.map((c) => {
          const t = tests[c.id]!
          return (
            <Banner key={c.id} tone={t.result?.ok ? 'success' : 'error'}>
              <strong>Test to {c.name}:</strong> {t.result ? describeTest(t.result) : t.error}
            </Banner>
          )
        })}
        {exported && (
          <Card
            title={`Shoutrrr URL of ${exported.name}`}
            actions={
              <Button small variant="ghost" onClick={() => setExported(null)}>
                Hide
              </Button>
            }
          >
            <SecretBox
              value={exported.url}
              label="Shoutrrr URL"
              note="It carries this channel's secrets: treat it like a password. Exporting again shows it again; each export is logged."
            />
          </Card>
        )}
        {q.get('import') && admin && (
          <Panel label="Import a Shoutrrr URL">
            <ImportCard onDone={(c) => saved(c, 'imported')} onCancel={() => open({})} />
          </Panel>
        )}
        {newKind && admin && kinds.data && (
          <Panel label="New channel">
            <Card title="New channel">
              <div class="form-narrow">
                <Field
                  name="kind"
                  label="Kind"
                  control={(p) => (
                    <Select
                      {...p}
                      options={kinds.data!.items.map((k) => ({ value: k.id, label: k.name }))}
                      selected={newKind.id}
                      onChange={(e) => setSearch({ new: (e.target as HTMLSelectElement).value })}
                    />
                  )}
                />
                <ChannelForm kind={newKind} editing={null} onSaved={(c) => saved(c, 'created')} onCancel={() => open({})} />
              </div>
            </Card>
          </Panel>
        )}
        {editing && admin && kindOf(editing.kind) && (
          <Panel label={`Edit ${editing.name}`}>
            <Card title={`Edit ${editing.name}`}>
              <div class="form-narrow">
                <ChannelForm kind={kindOf(editing.kind)!} editing={editing} onSaved={(c) => saved(c, 'saved')} onCancel={() => open({})} />
              </div>
            </Card>
          </Panel>
        )}
        {list.error ? <LoadError error={list.error} retry={() => void list.reload()} /> : null}
        {!list.data && !list.error ? (
          <Skeleton lines={4} height={40} label="Loading the channels" />
        ) : (
          <DataTable
            caption="Notification channels"
            columns={columns}
            rows={channels}
            rowKey={(c) => c.id}
            empty={
              <EmptyState title="No channels yet" icon="bell" action={admin && <Button onClick={() => open({ new: 'ntfy' })}>Add a channel</Button>}>
                Alerts show here in the portal either way. Add a channel to be told on your phone, in a chat or by email: ntfy, Gotify, Discord, Slack,
                Telegram, Teams, Pushover, email or a webhook. Beszel users can paste their Shoutrrr URLs.
              </EmptyState>
            }
          />
        )}
        {logOf && (
          <Panel label={`Delivery log of ${logOf.name}`}>
            <ChannelLog channel={logOf} version={logVersion} onClose={() => open({})} />
          </Panel>
        )}
      </div>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? 'channel'}?`}
        confirmLabel="Delete channel"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          const c = deleting!
          await api.del(`/v1/channels/${encodeURIComponent(c.id)}`)
          list.set((old) => ({ items: (old?.items ?? []).filter((x) => x.id !== c.id) }))
          if (q.get('edit') === c.id || q.get('log') === c.id) open({})
          setNotice(`${c.name} deleted.`)
        }}
      >
        Its delivery log goes with it. Rules that send here stop doing so; alerts still show in the portal.
      </ConfirmDialog>
    </>
  )
}

function ImportCard({ onDone, onCancel }: { onDone: (c: Channel) => void; onCancel: () => void }) {
  const submit = async (d: FormData) => {
    const name = String(d.get('name') ?? '').trim()
    const c = await api.post<Channel>('/v1/channels/import', { url: String(d.get('url') ?? '').trim(), ...(name ? { name } : {}) })
    onDone(c)
  }
  return (
    <Card title="Import a Shoutrrr URL">
      <div class="form-narrow">
        <Form
          onSubmit={submit}
          submitLabel="Import"
          label="Import a Shoutrrr URL"
          secondary={
            <button type="button" class="btn btn-secondary" onClick={onCancel}>
              Cancel
            </button>
          }
        >
          <Field
            name="url"
            label="Shoutrrr URL"
            required
            autocomplete="off"
            class="field-mono"
            hint="As Beszel and other tools store them: ntfy://, gotify://, discord://, slack://, telegram://, teams://, pushover://, smtp://, generic+https://"
          />
          <Field name="name" label="Name" optional hint="Default: the kind and the target's host." />
        </Form>
      </div>
    </Card>
  )
}
