import { useState } from 'preact/hooks'
import { useDeliveryPoll } from './use-delivery-poll'
import { api } from '../lib/api'
import { describeError } from '../lib/errors'
import { Banner, Button, Card, EmptyState, Skeleton, Time } from '../ui'
import { DeliveryStatus } from './DeliveryStatus'
import { LoadError } from '../ui/LoadError'
import { Select } from '../ui/Select'
import type { Page, WebhookDelivery, WebhookDeliveryDetail, WebhookEndpoint } from './types'
import { useLoad } from '../lib/use-load'

const PAGE = 20
const STATUSES = [
  { value: '', label: 'Any status' },
  { value: 'succeeded', label: 'Delivered' },
  { value: 'failed', label: 'Failed' },
  { value: 'pending', label: 'Queued' },
  { value: 'sending', label: 'Sending' },
  { value: 'held', label: 'Held (endpoint disabled)' },
]

/** An endpoint's deliveries, newest first: status, attempts, the last answer; details, payload and resend. */
export function WebhookDeliveries({
  endpoint,
  version,
  canResend,
  onClose,
}: {
  endpoint: WebhookEndpoint
  version: number
  canResend: boolean
  onClose: () => void
}) {
  const [status, setStatus] = useState('')
  const [limit, setLimit] = useState(PAGE)
  const [note, setNote] = useState<{ tone: 'success' | 'error'; text: string } | null>(null)
  const [ownVersion, setOwnVersion] = useState(0)
  const log = useLoad(
    () => api.get<Page<WebhookDelivery>>('/v1/webhooks/deliveries', { endpoint_id: endpoint.id, status, limit, offset: 0 }),
    [endpoint.id, status, limit, version, ownVersion],
  )
  const resend = async (d: WebhookDelivery) => {
    try {
      await api.post(`/v1/webhooks/deliveries/${encodeURIComponent(d.id)}/resend`)
      setNote({ tone: 'success', text: `${d.event_type} queued again with the same webhook-id.` })
      setOwnVersion((v) => v + 1)
    } catch (err) {
      setNote({ tone: 'error', text: describeError(err) })
    }
  }
  const items = log.data?.items ?? []
  useDeliveryPoll(items, log.reload, log.data)
  return (
    <Card
      title={`Deliveries to ${endpoint.url}`}
      actions={
        <>
          <Button small onClick={() => void log.reload()} loading={log.loading && !!log.data}>
            Refresh
          </Button>
          <Button small variant="ghost" onClick={onClose}>
            Close
          </Button>
        </>
      }
    >
      <div class="filters filters-one">
        <div class="field">
          <label for="delivery-status">Status</label>
          <Select id="delivery-status" name="status" options={STATUSES} selected={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)} />
        </div>
      </div>
      {note && <Banner tone={note.tone}>{note.text}</Banner>}
      {log.error ? <LoadError error={log.error} retry={() => void log.reload()} /> : null}
      {!log.data && !log.error ? <Skeleton lines={3} label="Loading the deliveries" /> : null}
      {log.data && !items.length ? <EmptyState title="No deliveries">Events this endpoint subscribes to, and test events, are listed here.</EmptyState> : null}
      {items.length > 0 && (
        <ol class="delivery-list" aria-label={`Deliveries to ${endpoint.url}`}>
          {items.map((d) => (
            <DeliveryRow key={d.id} d={d} canResend={canResend} onResend={() => void resend(d)} />
          ))}
        </ol>
      )}
      {log.data && log.data.total > items.length && limit < 100 && (
        <div class="form-actions">
          <Button small onClick={() => setLimit(Math.min(100, limit + PAGE))}>
            Show more ({log.data.total - items.length} older)
          </Button>
        </div>
      )}
    </Card>
  )
}

function DeliveryRow({ d, canResend, onResend }: { d: WebhookDelivery; canResend: boolean; onResend: () => void }) {
  const [detail, setDetail] = useState<WebhookDeliveryDetail | null>(null)
  const [error, setError] = useState<string | null>(null)
  const load = async (e: Event) => {
    if (!(e.currentTarget as HTMLDetailsElement).open || detail) return
    try {
      setDetail(await api.get<WebhookDeliveryDetail>(`/v1/webhooks/deliveries/${encodeURIComponent(d.id)}`))
    } catch (err) {
      setError(describeError(err))
    }
  }
  return (
    <li class="delivery">
      <div class="delivery-head">
        <DeliveryStatus status={d.status} />
        <code class="delivery-title">{d.event_type}</code>
        <span class="muted small">
          {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
          {d.last_status_code !== null && ` · last HTTP ${d.last_status_code}`}
        </span>
        <Time iso={d.created_at} />
        {d.next_attempt_at && d.status !== 'succeeded' && (
          <span class="muted small">
            next <Time iso={d.next_attempt_at} relative />
          </span>
        )}
        {canResend && (d.status === 'failed' || d.status === 'succeeded') && (
          <Button small onClick={onResend} aria-label={`Resend ${d.event_type} delivery ${d.message_id}`}>
            Resend
          </Button>
        )}
      </div>
      {d.last_error && <div class="error-text small">{d.last_error}</div>}
      <details class="attempts" onToggle={load}>
        <summary>Attempts and payload</summary>
        {error && <div class="error-text">{error}</div>}
        {!detail && !error && <Skeleton lines={2} label="Loading the delivery" />}
        {detail && (
          <>
            <ul>
              {detail.attempt_log.map((a) => (
                <li key={a.attempt}>
                  <Time iso={a.at} /> — {a.status_code === null ? 'no answer' : `HTTP ${a.status_code}`}, {a.duration_ms} ms
                  {a.error && <div class="error-text">{a.error}</div>}
                  {a.response_excerpt && <pre class="excerpt">{a.response_excerpt}</pre>}
                </li>
              ))}
            </ul>
            <p class="small muted">
              webhook-id <code>{detail.message_id}</code>
            </p>
            <pre class="excerpt">{JSON.stringify(detail.payload, null, 2)}</pre>
          </>
        )}
      </details>
    </li>
  )
}
