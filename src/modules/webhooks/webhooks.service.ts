import { AppError, notFound } from '../../http/errors'
import { toIso, type Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import { urlProblem, type OutboundPolicy, type SelfAddresses } from '../../lib/outbound/outbound.policy'
import { refusedHostText } from '../../lib/outbound/outbound.words'
import { maskSecret, openSecret, sealSecret } from '../../lib/secret-box'
import type { EndpointCreate, EndpointPatch, EndpointResponse, RotateSecret } from './webhooks.model'
import type { OutboxStore } from './webhooks.outbox'
import { newSecret } from './webhooks.signer'
import type { EndpointChanges, EndpointRow, EndpointsStore } from './webhooks.store'

/** What the owners of a client hear when one of its endpoints is disabled by the service. */
export interface EndpointDisabledNotice {
  endpoint: { id: string; url: string; description: string }
  reason: 'gone' | 'failing'
  /** one sentence for a person */
  message: string
  failing_since: string | null
}

export interface WebhooksDeps {
  endpoints: EndpointsStore
  outbox: OutboxStore
  clock: Clock
  logger: Logger
  secretKey: () => Uint8Array
  selfAddresses: SelfAddresses
  /** where this client's endpoints may be (docs/outbound.md) */
  policyFor: (clientId: string) => OutboundPolicy
  /** the operator's own client is told which setting allows a refused address */
  isOperator: (clientId: string) => boolean
  /** rows were written to the outbox: the worker sends them now */
  wake: (clientId: string, endpointIds: string[]) => void
  /** tells the client's owners (an endpoint.disabled event, an email when wired) */
  notifyDisabled: (clientId: string, notice: EndpointDisabledNotice) => void
  maxEndpoints: number
  /** takes one of the account's "send now" tokens (test, resend), or throws 429 (deliveries/deliveries.limit) */
  sendNow: (scope: 'webhooks', clientId: string) => void
}

const DISABLE_TEXT = {
  gone: 'it answered 410 Gone, which says the receiver no longer exists',
  failing: 'every delivery to it failed for days',
} as const

export function toEndpointView(deps: Pick<WebhooksDeps, 'secretKey'>, row: EndpointRow, secret: string | null = null): EndpointResponse {
  const current = secret ?? openSecret(deps.secretKey(), row.secret_enc, row.client_id)
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: JSON.parse(row.event_types) as string[],
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at === null ? null : toIso(row.disabled_at),
    secret,
    secret_hint: current ? maskSecret(current) : '••••',
    previous_secret_expires_at: row.previous_expires_at === null ? null : toIso(row.previous_expires_at),
    failing_since: row.failing_since === null ? null : toIso(row.failing_since),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  }
}

export async function requireEndpoint(deps: Pick<WebhooksDeps, 'endpoints'>, clientId: string, endpointId: string): Promise<EndpointRow> {
  const row = await deps.endpoints.byId(clientId, endpointId)
  if (!row) throw notFound('Webhook endpoint')
  return row
}

function checkUrl(deps: WebhooksDeps, clientId: string, url: string): string {
  const trimmed = url.trim()
  const audience = deps.isOperator(clientId) ? 'operator' : 'tenant'
  const problem = urlProblem(trimmed, deps.policyFor(clientId), deps.selfAddresses, 'url', (r) => refusedHostText(r, audience))
  if (problem) throw new AppError('unsafe_url', problem, 'url')
  return trimmed
}

const typesJson = (types: string[]) => JSON.stringify([...new Set(types)])

export const listEndpoints = async (deps: WebhooksDeps, clientId: string) => (await deps.endpoints.list(clientId)).map((r) => toEndpointView(deps, r))

export const getEndpoint = async (deps: WebhooksDeps, clientId: string, endpointId: string) =>
  toEndpointView(deps, await requireEndpoint(deps, clientId, endpointId))

/** A new endpoint; its whsec_ secret is in this answer only. */
export async function createEndpoint(deps: WebhooksDeps, clientId: string, body: EndpointCreate): Promise<EndpointResponse> {
  if ((await deps.endpoints.count(clientId)) >= deps.maxEndpoints) {
    throw new AppError('conflict', `An account may have at most ${deps.maxEndpoints} webhook endpoints; delete one first`)
  }
  const url = checkUrl(deps, clientId, body.url)
  const now = deps.clock.now()
  const secret = newSecret()
  const enabled = body.enabled ?? true
  const row: EndpointRow = {
    id: newId('whe'),
    client_id: clientId,
    url,
    description: body.description?.trim() ?? '',
    event_types: typesJson(body.event_types),
    enabled: enabled ? 1 : 0,
    disabled_reason: enabled ? null : 'manual',
    disabled_at: enabled ? null : now,
    secret_enc: sealSecret(deps.secretKey(), secret, clientId),
    previous_secret_enc: null,
    previous_expires_at: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
  }
  await deps.endpoints.insert(row)
  return toEndpointView(deps, row, secret)
}

/** Changes what was sent; `enabled: true` also clears a disabled endpoint's failure record and resumes its held deliveries. */
export async function updateEndpoint(deps: WebhooksDeps, clientId: string, endpointId: string, patch: EndpointPatch): Promise<EndpointResponse> {
  await requireEndpoint(deps, clientId, endpointId)
  const now = deps.clock.now()
  const changes: EndpointChanges = { updated_at: now }
  if (patch.url !== undefined) changes.url = checkUrl(deps, clientId, patch.url)
  if (patch.description !== undefined) changes.description = patch.description.trim()
  if (patch.event_types !== undefined) changes.event_types = typesJson(patch.event_types)
  if (!(await deps.endpoints.update(clientId, endpointId, changes))) throw notFound('Webhook endpoint')
  // each a conditional write: an endpoint already in that state is left as it is
  if (patch.enabled === true && (await deps.endpoints.enable(clientId, endpointId, now))) deps.wake(clientId, [endpointId])
  if (patch.enabled === false) await deps.endpoints.disable(clientId, endpointId, 'manual', now)
  return getEndpoint(deps, clientId, endpointId)
}

export async function deleteEndpoint(deps: WebhooksDeps, clientId: string, endpointId: string): Promise<void> {
  if (!(await deps.endpoints.remove(clientId, endpointId))) throw notFound('Webhook endpoint')
}

/**
 * A new secret, shown in this answer only. The previous one keeps signing beside it (both
 * signatures in webhook-signature) for `previous_valid_seconds`, so receivers can switch over.
 */
export async function rotateSecret(deps: WebhooksDeps, clientId: string, endpointId: string, body: RotateSecret): Promise<EndpointResponse> {
  const row = await requireEndpoint(deps, clientId, endpointId)
  const now = deps.clock.now()
  const keep = body.previous_valid_seconds ?? 86400
  const secret = newSecret()
  await deps.endpoints.update(clientId, endpointId, {
    secret_enc: sealSecret(deps.secretKey(), secret, clientId),
    previous_secret_enc: keep > 0 ? row.secret_enc : null,
    previous_expires_at: keep > 0 ? now + keep * 1000 : null,
    updated_at: now,
  })
  return toEndpointView(deps, await requireEndpoint(deps, clientId, endpointId), secret)
}

/**
 * The worker's verdict on an endpoint: off, its pending deliveries held, its owners told. One
 * conditional write: of several hubs (or attempts) reaching the verdict at once, one disables it
 * and tells the owners.
 */
export async function disableEndpoint(deps: WebhooksDeps, clientId: string, endpointId: string, reason: 'gone' | 'failing'): Promise<void> {
  const row = await deps.endpoints.disable(clientId, endpointId, reason, deps.clock.now())
  if (!row) return
  const message = `The webhook endpoint ${row.url} was disabled: ${DISABLE_TEXT[reason]}. Fix the receiver, then enable it again (PATCH enabled: true); its held deliveries will resume.`
  deps.logger.warn('webhook endpoint disabled', { client_id: clientId, endpoint_id: endpointId, reason })
  deps.notifyDisabled(clientId, {
    endpoint: { id: row.id, url: row.url, description: row.description },
    reason,
    message,
    failing_since: row.failing_since === null ? null : toIso(row.failing_since),
  })
}
