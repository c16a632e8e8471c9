import { AppError, notFound } from '../../http/errors'
import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { EVENT_TYPES, PAYLOAD_VERSION, payloadOf, TEST_EVENT } from './webhooks.events'
import type { DeliveryDetail, DeliveryQuery, DeliveryResponse } from './webhooks.model'
import type { AttemptRow, DeliveryRow, DeliveryState } from './webhooks.outbox'
import { requireEndpoint, type WebhooksDeps } from './webhooks.service'

/** finished deliveries (and their attempts) are kept this long */
export const DELIVERY_RETENTION_MS = 30 * 86400_000

const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms))

export function toDeliveryView(row: DeliveryRow): DeliveryResponse {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    message_id: row.message_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' || row.status === 'sending' ? toIso(row.next_attempt_at) : null,
    last_attempt_at: isoOrNull(row.last_attempt_at),
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: toIso(row.created_at),
    delivered_at: isoOrNull(row.delivered_at),
  }
}

const toAttemptView = (a: AttemptRow) => ({
  attempt: a.attempt,
  at: toIso(a.at),
  status_code: a.status_code,
  duration_ms: a.duration_ms,
  error: a.error,
  response_excerpt: a.response_excerpt,
})

export const eventTypes = () => ({
  items: Object.entries(EVENT_TYPES).map(([type, description]) => ({ type, description })),
  payload_version: PAYLOAD_VERSION,
})

async function requireEnabled(deps: WebhooksDeps, clientId: string, endpointId: string) {
  const endpoint = await requireEndpoint(deps, clientId, endpointId)
  if (endpoint.enabled === 0) throw new AppError('conflict', 'The endpoint is disabled; enable it first (PATCH enabled: true)')
  return endpoint
}

/** A webhook.test event to this endpoint only, sent at once like any other delivery. */
export async function sendTest(deps: WebhooksDeps, clientId: string, endpointId: string): Promise<DeliveryResponse> {
  await requireEnabled(deps, clientId, endpointId)
  deps.sendNow('webhooks', clientId)
  const now = deps.clock.now()
  const row = {
    id: newId('whd'),
    client_id: clientId,
    endpoint_id: endpointId,
    message_id: newId('msg'),
    event_type: TEST_EVENT,
    payload: payloadOf(TEST_EVENT, toIso(now), { endpoint_id: endpointId, message: 'A test event from Vigil: your endpoint is wired.' }),
    created_at: now,
  }
  await deps.outbox.enqueue([row])
  deps.wake(clientId, [endpointId])
  const stored = await deps.outbox.byId(clientId, row.id)
  // deleted with its endpoint meanwhile
  if (!stored) throw notFound('Webhook endpoint')
  return toDeliveryView(stored)
}

export async function listDeliveries(deps: WebhooksDeps, clientId: string, q: DeliveryQuery) {
  if (q.endpoint_id) await requireEndpoint(deps, clientId, q.endpoint_id)
  const { items, total } = await deps.outbox.page(clientId, { endpointId: q.endpoint_id, status: q.status as DeliveryState | undefined }, q.limit, q.offset)
  return { items: items.map(toDeliveryView), limit: q.limit, offset: q.offset, total }
}

export async function getDelivery(deps: WebhooksDeps, clientId: string, deliveryId: string): Promise<DeliveryDetail> {
  const row = await deps.outbox.byId(clientId, deliveryId)
  if (!row) throw notFound('Webhook delivery')
  return { ...toDeliveryView(row), payload: JSON.parse(row.payload), attempt_log: (await deps.outbox.attempts(clientId, row.id)).map(toAttemptView) }
}

/** Sends a delivery again at once, with the same webhook-id, and a fresh retry schedule if it fails. */
export async function resendDelivery(deps: WebhooksDeps, clientId: string, deliveryId: string): Promise<DeliveryResponse> {
  const row = await deps.outbox.byId(clientId, deliveryId)
  if (!row) throw notFound('Webhook delivery')
  await requireEnabled(deps, clientId, row.endpoint_id)
  deps.sendNow('webhooks', clientId)
  const updated = await deps.outbox.resend(clientId, deliveryId, deps.clock.now())
  if (!updated) throw new AppError('conflict', 'The delivery is being sent right now; look again in a moment')
  deps.wake(clientId, [row.endpoint_id])
  return toDeliveryView(updated)
}

export const pruneDeliveries = (deps: Pick<WebhooksDeps, 'outbox' | 'clock'>) => deps.outbox.prune(deps.clock.now() - DELIVERY_RETENTION_MS)
