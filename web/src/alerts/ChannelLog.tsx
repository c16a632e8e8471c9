import { useState } from 'preact/hooks'
import { useDeliveryPoll } from './use-delivery-poll'
import { api } from '../lib/api'
import { Button, Card, EmptyState, Skeleton, Time } from '../ui'
import { DeliveryStatus } from './DeliveryStatus'
import { LoadError } from '../ui/LoadError'
import type { Channel, ChannelDelivery, Page } from './types'
import { useLoad } from '../lib/use-load'

const PAGE = 20

/** A channel's delivery log, newest first, each delivery with its attempts (GET /v1/channels/{id}/deliveries). */
export function ChannelLog({ channel, version, onClose }: { channel: Channel; version: number; onClose: () => void }) {
  const [limit, setLimit] = useState(PAGE)
  const log = useLoad(
    () => api.get<Page<ChannelDelivery>>(`/v1/channels/${encodeURIComponent(channel.id)}/deliveries`, { limit, offset: 0 }),
    [channel.id, limit, version],
  )
  const items = log.data?.items ?? []
  useDeliveryPoll(items, log.reload, log.data)
  return (
    <Card
      title={`Delivery log: ${channel.name}`}
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
      {log.error ? <LoadError error={log.error} retry={() => void log.reload()} /> : null}
      {!log.data && !log.error ? <Skeleton lines={3} label="Loading the delivery log" /> : null}
      {log.data && !items.length ? (
        <EmptyState title="Nothing sent yet">Alerts routed to this channel, and tests you send, are listed here with every attempt.</EmptyState>
      ) : null}
      {items.length > 0 && (
        <ol class="delivery-list" aria-label={`Deliveries to ${channel.name}`}>
          {items.map((d) => (
            <li key={d.id} class="delivery">
              <div class="delivery-head">
                <DeliveryStatus status={d.status} />
                <span class="delivery-title">{d.title}</span>
                <span class="muted">
                  {d.event} · {d.severity}
                </span>
                <Time iso={d.created_at} />
              </div>
              {d.attempts.length > 0 && (
                <details class="attempts">
                  <summary>
                    {d.attempts.length} attempt{d.attempts.length === 1 ? '' : 's'}
                    {d.next_attempt_at && (
                      <>
                        {' '}
                        · next <Time iso={d.next_attempt_at} relative />
                      </>
                    )}
                  </summary>
                  <ul>
                    {d.attempts.map((a) => (
                      <li key={a.attempt}>
                        <Time iso={a.at} /> — {a.outcome}
                        {a.http_status !== null && ` (HTTP ${a.http_status})`}, {a.duration_ms} ms
                        {a.error && <div class="error-text">{a.error}</div>}
                        {a.excerpt && <pre class="excerpt">{a.excerpt}</pre>}
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </li>
          ))}
        </ol>
      )}
      {log.data && log.data.total > items.length && (
        <div class="form-actions">
          <Button small onClick={() => setLimit(Math.min(100, limit + PAGE))} disabled={limit >= 100}>
            Show more ({log.data.total - items.length} older)
          </Button>
        </div>
      )}
    </Card>
  )
}
