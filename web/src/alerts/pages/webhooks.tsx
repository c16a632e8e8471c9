import '../alerts.css'
import { useState } from 'preact/hooks'
import { EnabledBadge } from '../DeliveryStatus'
import { LoadError } from '../../ui/LoadError'
import { Panel } from '../../ui/Panel'
import type { EventTypeInfo, WebhookDelivery, WebhookEndpoint } from '../types'
import { useLoad } from '../../lib/use-load'
import { WebhookDeliveries } from '../WebhookDeliveries'
import { WebhookForm } from '../WebhookForm'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { setSearch, useSearch } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { visibleSettingsTabs } from '../../settings/SettingsHeader'
import { Banner, Button, Card, ConfirmDialog, DataTable, EmptyState, PageHeader, SecretBox, Skeleton, Tabs, Time, type Column } from '../../ui'

/**
 * /settings/webhooks — signed HTTP callbacks for events: endpoints (URL, event types, on or
 * off), the whsec_ secret shown once on create and rotate, test events, the deliveries with
 * their attempts and resend. The open panel is in the URL (?new=1, ?edit=<id>, ?deliveries=<id>).
 */
export default function Webhooks(_props: { params: Record<string, string> }) {
  const q = useSearch()
  const types = useLoad(() => api.get<{ items: EventTypeInfo[]; payload_version: number }>('/v1/webhooks/event-types'))
  const list = useLoad(() => api.get<WebhookEndpoint[]>('/v1/webhooks/endpoints'))
  const [secret, setSecret] = useState<{ url: string; value: string; rotated: boolean } | null>(null)
  const [notice, setNotice] = useState<{ tone: 'success' | 'error'; text: string } | null>(null)
  const [confirm, setConfirm] = useState<{ kind: 'delete' | 'rotate'; endpoint: WebhookEndpoint } | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const [version, setVersion] = useState(0)
  const admin = canAdmin.value

  const endpoints = list.data ?? []
  const editing = endpoints.find((e) => e.id === q.get('edit')) ?? null
  const watching = endpoints.find((e) => e.id === q.get('deliveries')) ?? null
  const open = (patch: Record<string, string | null>) => setSearch({ new: null, edit: null, deliveries: null, ...patch }, { replace: false })
  const put = (e: WebhookEndpoint) =>
    list.set((old) => [...(old ?? []).filter((x) => x.id !== e.id), e].sort((a, b) => a.created_at.localeCompare(b.created_at)))
  const act = async (e: WebhookEndpoint, what: string, run: () => Promise<void>) => {
    setBusy(`${what}:${e.id}`)
    setNotice(null)
    try {
      await run()
    } catch (err) {
      setNotice({ tone: 'error', text: describeError(err) })
    } finally {
      setBusy(null)
    }
  }
  const test = (e: WebhookEndpoint) =>
    act(e, 'test', async () => {
      await api.post<WebhookDelivery>(`/v1/webhooks/endpoints/${encodeURIComponent(e.id)}/test`)
      setNotice({ tone: 'success', text: `A webhook.test event is on its way to ${e.url}: follow it in the deliveries.` })
      setVersion((v) => v + 1)
      if (q.get('deliveries') !== e.id) open({ deliveries: e.id })
    })
  const toggle = (e: WebhookEndpoint) =>
    act(e, 'toggle', async () => {
      put(await api.patch<WebhookEndpoint>(`/v1/webhooks/endpoints/${encodeURIComponent(e.id)}`, { enabled: !e.enabled }))
    })

  const columns: Column<WebhookEndpoint>[] = [
    {
      key: 'url',
      label: 'Endpoint',
      render: (e) => (
        <div>
          <span class="target">{e.url}</span>
          {e.description && <div class="muted small">{e.description}</div>}
        </div>
      ),
    },
    { key: 'events', label: 'Events', render: (e) => <span class="small">{e.event_types.join(', ')}</span> },
    {
      key: 'status',
      label: 'Status',
      render: (e) => (
        <div>
          <EnabledBadge
            enabled={e.enabled}
            reason={e.disabled_reason === 'gone' ? 'answered 410' : e.disabled_reason === 'failing' ? 'failing for days' : null}
          />
          {e.failing_since && (
            <div class="muted small">
              failing since <Time iso={e.failing_since} relative />
            </div>
          )}
        </div>
      ),
    },
    { key: 'secret', label: 'Secret', render: (e) => <span class="mono small">{e.secret_hint.startsWith('•') ? e.secret_hint : `••••${e.secret_hint}`}</span> },
    {
      key: 'actions',
      label: <span class="visually-hidden">Actions</span>,
      render: (e) => (
        <div class="row-actions">
          {admin && (
            <Button small loading={busy === `test:${e.id}`} onClick={() => void test(e)} aria-label={`Send test event to ${e.url}`}>
              Send test
            </Button>
          )}
          <Button small onClick={() => open({ deliveries: e.id })} aria-label={`Deliveries to ${e.url}`}>
            Deliveries
          </Button>
          {admin && (
            <>
              <Button small onClick={() => open({ edit: e.id })} aria-label={`Edit ${e.url}`}>
                Edit
              </Button>
              <Button small loading={busy === `toggle:${e.id}`} onClick={() => void toggle(e)} aria-label={`${e.enabled ? 'Disable' : 'Enable'} ${e.url}`}>
                {e.enabled ? 'Disable' : 'Enable'}
              </Button>
              <Button small onClick={() => setConfirm({ kind: 'rotate', endpoint: e })} aria-label={`Rotate secret of ${e.url}`}>
                Rotate secret
              </Button>
              <Button small variant="ghost" onClick={() => setConfirm({ kind: 'delete', endpoint: e })} aria-label={`Delete ${e.url}`}>
                Delete
              </Button>
            </>
          )}
        </div>
      ),
    },
  ]

  return (
    <>
      <PageHeader
        title="Webhooks"
        subtitle="Signed HTTP callbacks when alerts fire and resolve, devices come and go, and more: for your own automation."
        actions={
          admin && (
            <Button variant="primary" onClick={() => open({ new: '1' })}>
              Add endpoint
            </Button>
          )
        }
      />
      <Tabs items={visibleSettingsTabs()} label="Settings sections" />
      <div class="alert-stack">
        {!admin && <Banner tone="info">You can see the endpoints and their deliveries; an owner or admin of this account can change them.</Banner>}
        {notice && <Banner tone={notice.tone}>{notice.text}</Banner>}
        {secret && (
          <Panel label="Signing secret">
            <Card
              title={secret.rotated ? 'New signing secret' : 'Endpoint created: its signing secret'}
              actions={
                <Button small variant="ghost" onClick={() => setSecret(null)}>
                  I have copied it
                </Button>
              }
            >
              <p>
                Verify every request to <span class="target">{secret.url}</span> with this secret (Standard Webhooks: the webhook-signature header).
                {secret.rotated && ' The previous secret keeps signing beside it for a day, so receivers can switch over.'}
              </p>
              <SecretBox value={secret.value} label="Signing secret" />
            </Card>
          </Panel>
        )}
        {admin && q.get('new') && types.data && (
          <Panel label="New endpoint">
            <Card title="New endpoint">
              <div class="form-narrow">
                <WebhookForm
                  editing={null}
                  eventTypes={types.data.items}
                  onCancel={() => open({})}
                  onSaved={(e) => {
                    if (e.secret) setSecret({ url: e.url, value: e.secret, rotated: false })
                    put({ ...e, secret: null })
                    open({})
                  }}
                />
              </div>
            </Card>
          </Panel>
        )}
        {admin && editing && types.data && (
          <Panel label={`Edit ${editing.url}`}>
            <Card title="Edit endpoint">
              <div class="form-narrow">
                <WebhookForm
                  editing={editing}
                  eventTypes={types.data.items}
                  onCancel={() => open({})}
                  onSaved={(e) => {
                    put(e)
                    open({})
                    setNotice({ tone: 'success', text: 'Endpoint saved.' })
                  }}
                />
              </div>
            </Card>
          </Panel>
        )}
        {list.error || types.error ? <LoadError error={list.error ?? types.error} retry={() => void Promise.all([list.reload(), types.reload()])} /> : null}
        {!list.data && !list.error ? (
          <Skeleton lines={3} height={44} label="Loading the endpoints" />
        ) : (
          <DataTable
            caption="Webhook endpoints"
            columns={columns}
            rows={endpoints}
            rowKey={(e) => e.id}
            empty={
              <EmptyState title="No webhooks yet" icon="bell" action={admin && <Button onClick={() => open({ new: '1' })}>Add an endpoint</Button>}>
                Point Vigil at a URL of yours and it POSTs each event you choose, signed so you can check it came from here; failed deliveries are retried for
                days and can be resent.
              </EmptyState>
            }
          />
        )}
        {watching && (
          <Panel label={`Deliveries to ${watching.url}`}>
            <WebhookDeliveries endpoint={watching} version={version} canResend={admin} onClose={() => open({})} />
          </Panel>
        )}
      </div>
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.kind === 'rotate' ? 'Rotate the signing secret?' : 'Delete this endpoint?'}
        confirmLabel={confirm?.kind === 'rotate' ? 'Rotate secret' : 'Delete endpoint'}
        danger={confirm?.kind === 'delete'}
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          const { kind, endpoint: e } = confirm!
          if (kind === 'rotate') {
            const r = await api.post<WebhookEndpoint>(`/v1/webhooks/endpoints/${encodeURIComponent(e.id)}/rotate-secret`, {})
            if (r.secret) setSecret({ url: r.url, value: r.secret, rotated: true })
            put({ ...r, secret: null })
          } else {
            await api.del(`/v1/webhooks/endpoints/${encodeURIComponent(e.id)}`)
            list.set((old) => (old ?? []).filter((x) => x.id !== e.id))
            if (q.get('edit') === e.id || q.get('deliveries') === e.id) open({})
            setNotice({ tone: 'success', text: 'Endpoint deleted with its deliveries.' })
          }
        }}
      >
        {confirm?.kind === 'rotate'
          ? 'A new secret is made and shown once. The current one keeps signing beside it for a day, so your receiver can switch over.'
          : 'Its deliveries go with it. Events stop being sent there at once.'}
      </ConfirmDialog>
    </>
  )
}
