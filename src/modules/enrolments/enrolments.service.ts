import { AppError } from '../../http/errors'
import { toIso, type Clock } from '../../lib/clock'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import { DEFAULT_TTL_MINUTES, type EnrolmentCreate, type EnrolmentCreated, type EnrolmentRedeem, type EnrolmentRedeemed } from './enrolments.model'
import type { EnrolmentsStore, SqliteEnrolments } from './enrolments.store'

export interface EnrolmentsDeps {
  store: EnrolmentsStore
  /** SQLite's statements, for the redemption's transaction that spans devices and keys */
  sqlite: SqliteEnrolments
  clock: Clock
  logger: Logger
  devices: EnrolDevices
  keys: EnrolKeys
  /** the hub's TLS public-key pin when its certificate is self-signed, else null */
  pin: () => string | null
  /** whether the hub has a collector executable to serve, and if not why (the install command would download nothing) */
  install: () => { install_available: boolean; install_unavailable_reason: string | null }
}

/** What enrolment needs of the devices domain: register (or find by fingerprint), limits applied. Runs inside the redeem transaction. */
export interface EnrolDevices {
  register(clientId: string, facts: Omit<EnrolmentRedeem, 'token'>): string
}

/** What enrolment needs of the API keys domain: a new key bound to one device. Runs inside the redeem transaction. */
export interface EnrolKeys {
  createBound(clientId: string, deviceId: string, name: string): { key_id: string; api_key: string }
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

/**
 * The machine's side: the token is its only credential. In one IMMEDIATE transaction the token
 * is checked and spent, the device registered (or found by fingerprint, so re-installing keeps
 * the device) and a key bound to it made; a refusal anywhere (max_devices) leaves the token unspent.
 */
export function redeemEnrolment(deps: EnrolmentsDeps, input: EnrolmentRedeem): EnrolmentRedeemed {
  const now = deps.clock.now()
  const { token, ...facts } = input
  const result = deps.sqlite.transaction(() => {
    const row = deps.sqlite.byHash(sha256Hex(token))
    if (!row || row.used_at !== null || row.expires_at <= now) {
      throw new AppError('invalid_enrolment', 'This enrolment token is unknown, already used or expired; create a new one (POST /v1/enrolments)', 'token')
    }
    const deviceId = deps.devices.register(row.client_id, facts)
    const key = deps.keys.createBound(row.client_id, deviceId, `enrolled: ${facts.hostname || facts.fingerprint}`.slice(0, 100))
    deps.sqlite.markUsed(row.id, now, deviceId)
    return { enrolmentId: row.id, clientId: row.client_id, deviceId, key }
  })
  deps.logger.info('enrolment redeemed', {
    enrolment_id: result.enrolmentId,
    client_id: result.clientId,
    device_id: result.deviceId,
    key_id: result.key.key_id,
  })
  return { device_id: result.deviceId, client_id: result.clientId, key_id: result.key.key_id, api_key: result.key.api_key }
}
