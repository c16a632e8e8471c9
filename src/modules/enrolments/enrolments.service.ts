import { AppError } from '../../http/errors'
import { toIso, type Clock } from '../../lib/clock'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import { DEFAULT_TTL_MINUTES, type EnrolmentCreate, type EnrolmentCreated, type EnrolmentRedeem, type EnrolmentRedeemed } from './enrolments.model'
import type { NewApiKey } from '../api-keys/api-keys.store'
import type { DeviceRegistration } from '../devices/devices.store'
import type { EnrolmentsStore } from './enrolments.store'

export interface EnrolmentsDeps {
  store: EnrolmentsStore
  clock: Clock
  logger: Logger
  devices: EnrolDevices
  keys: EnrolKeys
  /** the hub's TLS public-key pin when its certificate is self-signed, else null */
  pin: () => string | null
  /** whether the hub has a collector executable to serve, and if not why (the install command would download nothing) */
  install: () => { install_available: boolean; install_unavailable_reason: string | null }
}

/** What enrolment needs of the devices domain, around the registration the redemption's store call makes. */
export interface EnrolDevices {
  /** the registration to make for this client: its facts, the client's limit in force, a new id */
  registration(clientId: string, facts: Omit<EnrolmentRedeem, 'token'>): Promise<Omit<DeviceRegistration, 'clientId' | 'boundTo'>>
  /** the API's error for a refused registration */
  refused(reason: 'device_limit_reached' | 'device_mismatch', max: number): Error
  /** after the redemption committed: caches dropped, the live stream told of a new device */
  registered(clientId: string, deviceId: string, created: boolean): Promise<void>
}

/** What enrolment needs of the API keys domain: a new key for one device, stored by the redemption. */
export interface EnrolKeys {
  /** the key's row (its device set by the redemption) and its plaintext, shown once */
  prepareBound(name: string): { row: Omit<NewApiKey, 'client_id' | 'device_id'>; plaintext: string }
}

const TOKEN_PREFIX = 'vet_'

/** Kept a day past expiry so a late redemption can be told apart in the logs; then pruned. */
const PRUNE_AFTER_MS = 24 * 3600_000

const shellQuote = (s: string) => (/^[A-Za-z0-9_./:=+@%-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

/** The one line to run on the machine: everything it downloads comes from the hub. */
export function installCommand(hub: string, token: string, pin: string | null): string {
  const curlPin = pin ? ` -k --pinnedpubkey ${shellQuote(pin)}` : ''
  const agentPin = pin ? ` --pin ${shellQuote(pin)}` : ''
  return `curl -fsSL${curlPin} ${shellQuote(`${hub}/install.sh`)} | sudo sh -s -- --token ${token}${agentPin}`
}

/** A single-use token for one machine; only its SHA-256 is stored. */
export async function createEnrolment(
  deps: EnrolmentsDeps,
  clientId: string,
  userId: string,
  input: EnrolmentCreate,
  requestOrigin: string,
): Promise<EnrolmentCreated> {
  const now = deps.clock.now()
  const expiresAt = now + (input.expires_in_minutes ?? DEFAULT_TTL_MINUTES) * 60_000
  const token = TOKEN_PREFIX + randomToken(24)
  const id = newId('enr')
  await deps.store.prune(now - PRUNE_AFTER_MS)
  await deps.store.insert({ id, client_id: clientId, token_hash: sha256Hex(token), created_by: userId, created_at: now, expires_at: expiresAt })
  deps.logger.info('enrolment created', { enrolment_id: id, client_id: clientId, user_id: userId })
  const hub = (input.hub_url ?? requestOrigin).replace(/\/+$/, '')
  const pin = hub.startsWith('https:') ? deps.pin() : null
  return { enrolment_id: id, token, expires_at: toIso(expiresAt), pin, install_command: installCommand(hub, token, pin), ...deps.install() }
}

const invalid = () =>
  new AppError('invalid_enrolment', 'This enrolment token is unknown, already used or expired; create a new one (POST /v1/enrolments)', 'token')

/**
 * The machine's side: the token is its only credential. One store call, one transaction, spends
 * the token, registers the device (or finds it by fingerprint, so re-installing keeps the
 * device) and makes a key bound to it; a refusal anywhere (max_devices) leaves the token unspent.
 * The read before it only finds the token's client, whose limit the registration applies.
 */
export async function redeemEnrolment(deps: EnrolmentsDeps, input: EnrolmentRedeem): Promise<EnrolmentRedeemed> {
  const now = deps.clock.now()
  const { token, ...facts } = input
  const tokenHash = sha256Hex(token)
  const row = await deps.store.byHash(tokenHash)
  if (!row || row.used_at !== null || row.expires_at <= now) throw invalid()
  const clientId = row.client_id
  const device = await deps.devices.registration(clientId, facts)
  const key = deps.keys.prepareBound(`enrolled: ${facts.hostname || facts.fingerprint}`.slice(0, 100))
  const result = await deps.store.redeem({ tokenHash, clientId, now, device, key: key.row })
  if ('refused' in result) throw result.refused === 'invalid_enrolment' ? invalid() : deps.devices.refused(result.refused, device.max)
  await deps.devices.registered(clientId, result.deviceId, result.created)
  deps.logger.info('api key created', { key_id: key.row.id, client_id: clientId, scopes: JSON.parse(key.row.scopes) })
  deps.logger.info('enrolment redeemed', { enrolment_id: result.enrolmentId, client_id: clientId, device_id: result.deviceId, key_id: key.row.id })
  return { device_id: result.deviceId, client_id: clientId, key_id: key.row.id, api_key: key.plaintext }
}
