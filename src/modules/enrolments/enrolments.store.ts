import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { type NewApiKey, sqliteApiKeys } from '../api-keys/api-keys.store'
import { type DeviceRegistration, sqliteDevices } from '../devices/devices.store'

export interface EnrolmentRow {
  id: string
  client_id: string
  created_by: string
  created_at: number
  expires_at: number
  used_at: number | null
  device_id: string | null
}

export type NewEnrolment = Omit<EnrolmentRow, 'used_at' | 'device_id'> & { token_hash: string }

/** A machine spending a token: the device it registers and the key it gets, bound to that device. */
export interface Redemption {
  tokenHash: string
  /** the client the token was read for: a token that no longer names it is refused */
  clientId: string
  now: number
  /** the device to register (found by fingerprint, or made within the client's limit) */
  device: Omit<DeviceRegistration, 'clientId' | 'boundTo'>
  /** the key to make, bound to the device registered */
  key: Omit<NewApiKey, 'client_id' | 'device_id'>
}

/** What a redemption did, or why it was refused (nothing written then: the token stays unspent). */
export type Redeemed =
  | { enrolmentId: string; deviceId: string; created: boolean }
  | { refused: 'invalid_enrolment' | 'device_limit_reached' | 'device_mismatch' }

/**
 * The enrolments table, on either engine (this file: SQLite; enrolments.store.pg.ts: PostgreSQL).
 * `byHash` serves the machine redeeming a token, which has no client yet: the token is its credential.
 */
export interface EnrolmentsStore {
  insert(r: NewEnrolment): Promise<void>
  byHash(hash: string): Promise<EnrolmentRow | null>
  /** spends an unused token; false when it was already spent (nothing changes then) */
  markUsed(id: string, at: number, deviceId: string): Promise<boolean>
  /** drops rows that expired before `before` (used or not): they can no longer enrol anything */
  prune(before: number): Promise<void>
  /**
   * In one transaction: the token spent if it is unused and unexpired, the device registered
   * (the devices' registration, limit included) and the key bound to it inserted. Of two
   * redemptions of one token, on one hub or two, one wins; a refusal writes nothing.
   */
  redeem(r: Redemption): Promise<Redeemed>
}

/** thrown inside a redemption's transaction to roll it back with its reason */
export class RedeemRefused extends Error {
  constructor(readonly reason: Extract<Redeemed, { refused: string }>['refused']) {
    super(reason)
  }
}

function build(sqlite: Database) {
  const insert = sqlite.query<never, [string, string, string, string, number, number]>(
    'INSERT INTO enrolments (id, client_id, token_hash, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const byHash = sqlite.query<EnrolmentRow, [string]>(
    'SELECT id, client_id, created_by, created_at, expires_at, used_at, device_id FROM enrolments WHERE token_hash = ?',
  )
  const markUsed = sqlite.query<never, [number, string, string]>('UPDATE enrolments SET used_at = ?, device_id = ? WHERE id = ? AND used_at IS NULL')
  const spend = sqlite.query<{ id: string }, [number, string, string, number]>(
    'UPDATE enrolments SET used_at = ? WHERE token_hash = ? AND client_id = ? AND used_at IS NULL AND expires_at > ? RETURNING id',
  )
  const setDevice = sqlite.query<never, [string, string]>('UPDATE enrolments SET device_id = ? WHERE id = ?')
  const prune = sqlite.query<never, [number]>('DELETE FROM enrolments WHERE expires_at < ?')
  const devices = sqliteDevices(sqlite)
  const keys = sqliteApiKeys(sqlite)
  return {
    insert: (r: NewEnrolment) => void insert.run(r.id, r.client_id, r.token_hash, r.created_by, r.created_at, r.expires_at),
    byHash: (hash: string) => byHash.get(hash),
    markUsed: (id: string, at: number, deviceId: string) => markUsed.run(at, deviceId, id).changes > 0,
    prune: (before: number) => void prune.run(before),
    /** one IMMEDIATE transaction: two redemptions of one token cannot both see it unused */
    redeem: (r: Redemption): Redeemed => {
      try {
        return sqlite
          .transaction((): Redeemed => {
            const spent = spend.get(r.now, r.tokenHash, r.clientId, r.now)
            if (!spent) return { refused: 'invalid_enrolment' }
            const reg = devices.register({ ...r.device, clientId: r.clientId, boundTo: null })
            if ('refused' in reg) throw new RedeemRefused(reg.refused)
            keys.insert({ ...r.key, client_id: r.clientId, device_id: reg.id })
            setDevice.run(reg.id, spent.id)
            return { enrolmentId: spent.id, deviceId: reg.id, created: reg.created }
          })
          .immediate()
      } catch (err) {
        if (err instanceof RedeemRefused) return { refused: err.reason }
        throw err
      }
    },
  }
}

/** SQLite's statements, synchronous, one set per connection. */
export const sqliteEnrolments = perConnection(build)

export type SqliteEnrolments = ReturnType<typeof build>

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createEnrolmentsStore(enrolments: SqliteEnrolments): EnrolmentsStore {
  return {
    insert: async (r) => enrolments.insert(r),
    byHash: async (hash) => enrolments.byHash(hash),
    markUsed: async (id, at, deviceId) => enrolments.markUsed(id, at, deviceId),
    prune: async (before) => enrolments.prune(before),
    redeem: async (r) => enrolments.redeem(r),
  }
}
