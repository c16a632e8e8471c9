import { AppError, notFound } from '../../http/errors'
import { toIso, type Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import { hostRefusal, type OutboundPolicy } from '../../lib/outbound/outbound.policy'
import { refusedHostText } from '../../lib/outbound/outbound.words'
import { maskSecret, openSecret, sealSecret } from '../../lib/secret-box'
import type { KindSpec, RenderEnv, Settings } from './channels.kind-spec'
import { KINDS } from './channels.kind-catalogue'
import type { ChannelCreate, ChannelPatch, ChannelView, KindId } from './channels.model'
import { applySettings, splitSettings } from './channels.settings'
import type { ChannelRow, ChannelsStore } from './channels.store'
import type { TransportDeps } from './channels.transport'

export interface ChannelsDeps {
  store: ChannelsStore
  clock: Clock
  logger: Logger
  secretKey: () => Uint8Array
  transport: TransportDeps
  /** VIGIL_OUTBOUND_ALLOW_PRIVATE: every client's channels may be on private networks */
  allowPrivate: boolean
  /** VIGIL_OUTBOUND_ALLOW_LOCAL: every client's channels may reach loopback and this host (a relay beside Vigil) */
  allowLocal?: boolean
  isOperatorClient: (clientId: string) => boolean
  env: RenderEnv
  /** tells the delivery worker that rows were queued (a no-op until it runs) */
  wake: (clientId: string, channelIds: string[]) => void
  /** channels one account may have */
  maxChannels: number
  /** takes one of the account's "send now" tokens (test), or throws 429 (deliveries/deliveries.limit) */
  sendNow: (scope: 'channels', clientId: string) => void
}

/**
 * Where a client's channels may send: public addresses; the LAN for the operator's own
 * client or when the operator allows it for all; loopback and this host only when the operator
 * allows them for all (docs/outbound.md).
 */
export function channelPolicy(deps: ChannelsDeps, clientId: string): OutboundPolicy {
  return { allowPrivate: deps.allowPrivate || deps.isOperatorClient(clientId), allowLocal: deps.allowLocal ?? false }
}

/** The sealed secrets belong to one channel of one client: a row copied elsewhere does not open. */
const secretAad = (clientId: string, channelId: string) => `channel:${clientId}:${channelId}`

export const kindOf = (row: ChannelRow): KindSpec => KINDS[row.kind as KindId]

/** All of a channel's settings, or null when its secrets cannot be opened (the secret key changed). */
export function settingsOf(deps: ChannelsDeps, row: ChannelRow): Settings | null {
  const config = JSON.parse(row.config) as Settings
  if (!row.secrets_enc) return config
  const opened = openSecret(deps.secretKey(), row.secrets_enc, secretAad(row.client_id, row.id))
  return opened === null ? null : { ...config, ...(JSON.parse(opened) as Settings) }
}

function sealed(deps: ChannelsDeps, clientId: string, channelId: string, secrets: Settings): string | null {
  return Object.keys(secrets).length ? sealSecret(deps.secretKey(), JSON.stringify(secrets), secretAad(clientId, channelId)) : null
}

export function presentChannel(deps: ChannelsDeps, row: ChannelRow): ChannelView {
  const kind = kindOf(row)
  const all = settingsOf(deps, row)
  const secrets: Record<string, string> = {}
  for (const f of kind.fields) {
    const v = all?.[f.name]
    if (f.secret && typeof v === 'string') secrets[f.name] = maskSecret(v)
  }
  // a secret that no longer opens is still "set": the owner must enter it again
  if (all === null) for (const f of kind.fields) if (f.secret) secrets[f.name] = '••••'
  return {
    id: row.id,
    name: row.name,
    kind: kind.id,
    enabled: row.enabled === 1,
    min_severity: row.min_severity as ChannelView['min_severity'],
    config: JSON.parse(row.config),
    secrets,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  }
}

/**
 * Targets are judged when saved as written (an IP literal or a refused name: 422); names are
 * resolved and judged again on every send, since DNS can change.
 */
function checkTargets(deps: ChannelsDeps, clientId: string, kind: KindSpec, s: Settings) {
  const policy = channelPolicy(deps, clientId)
  const self = deps.transport.outbound.selfAddresses
  const hosts = kind.targets(s, deps.env).map((u) => new URL(u).hostname)
  if (kind.id === 'email') hosts.push(String(s.host))
  const audience = deps.isOperatorClient(clientId) ? 'operator' : 'tenant'
  for (const host of hosts) {
    const refusal = hostRefusal(host, policy, self)
    if (refusal) throw new AppError('unsafe_url', `the channel points at ${refusedHostText(refusal, audience)}`, 'config')
  }
}

const rowOf = async (deps: ChannelsDeps, clientId: string, id: string): Promise<ChannelRow> => {
  const row = await deps.store.channel(clientId, id)
  if (!row) throw notFound('Channel')
  return row
}

export const listChannels = async (deps: ChannelsDeps, clientId: string) => (await deps.store.channels(clientId)).map((r) => presentChannel(deps, r))
export const getChannel = async (deps: ChannelsDeps, clientId: string, id: string) => presentChannel(deps, await rowOf(deps, clientId, id))

export async function createChannel(deps: ChannelsDeps, clientId: string, input: ChannelCreate): Promise<ChannelView> {
  if ((await deps.store.count(clientId)) >= deps.maxChannels) {
    throw new AppError('conflict', `An account may have at most ${deps.maxChannels} notification channels; delete one first`)
  }
  const kind = KINDS[input.kind]
  const settings = applySettings(kind, input.config)
  checkTargets(deps, clientId, kind, settings)
  const { config, secrets } = splitSettings(kind, settings)
  const id = newId('chn')
  const now = deps.clock.now()
  const row: ChannelRow = {
    id,
    client_id: clientId,
    name: input.name,
    kind: kind.id,
    config: JSON.stringify(config),
    secrets_enc: sealed(deps, clientId, id, secrets),
    enabled: input.enabled === false ? 0 : 1,
    min_severity: input.min_severity ?? 'info',
    created_at: now,
    updated_at: now,
  }
  await deps.store.insertChannel(row)
  return presentChannel(deps, row)
}

export async function updateChannel(deps: ChannelsDeps, clientId: string, id: string, patch: ChannelPatch): Promise<ChannelView> {
  const row = await rowOf(deps, clientId, id)
  const kind = kindOf(row)
  const next = { ...row, updated_at: deps.clock.now() }
  if (patch.config) {
    const current = settingsOf(deps, row)
    // unreadable secrets: the change must bring every secret the kind requires again
    const settings = applySettings(kind, patch.config, current ?? (JSON.parse(row.config) as Settings))
    checkTargets(deps, clientId, kind, settings)
    const { config, secrets } = splitSettings(kind, settings)
    next.config = JSON.stringify(config)
    next.secrets_enc = sealed(deps, clientId, id, secrets)
  }
  if (patch.name !== undefined) next.name = patch.name
  if (patch.enabled !== undefined) next.enabled = patch.enabled ? 1 : 0
  if (patch.min_severity !== undefined) next.min_severity = patch.min_severity
  // deleted meanwhile (on this hub or another): 404 as for any unknown id
  if (!(await deps.store.updateChannel(next))) throw notFound('Channel')
  return presentChannel(deps, next)
}

export async function deleteChannel(deps: ChannelsDeps, clientId: string, id: string): Promise<void> {
  if (!(await deps.store.deleteChannel(clientId, id))) throw notFound('Channel')
}
