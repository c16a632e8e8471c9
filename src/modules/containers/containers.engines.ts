import type { Database } from 'bun:sqlite'

/** A device's container_engines row: what its collector last said of its engine. */
export interface EngineRow {
  device_id: string
  client_id: string
  kind: string | null
  version: string | null
  api_version: string | null
  unavailable_reason: string | null
  memory_accounting: number
  ts: number
}

/** devices whose engine row is kept in memory at once (a few hundred bytes each) */
const MAX_KEPT = 100_000

/** The row as stored says what `r` says: only its time may differ. */
const sameEngine = (a: EngineRow, r: EngineRow) =>
  a.client_id === r.client_id &&
  a.kind === r.kind &&
  a.version === r.version &&
  a.api_version === r.api_version &&
  a.unavailable_reason === r.unavailable_reason &&
  a.memory_accounting === r.memory_accounting

/**
 * The devices' engine rows on SQLite (only the containers' ingest writes them). Each row is kept
 * in memory as stored, with the newest block's time when later than the stored one: a collector
 * sends a block with every sample, mostly saying what the one before said, and writing the row
 * for each made every batch a commit of its own. Such a block moves only the time, in memory
 * (`hold`); the times held are written for every device at once (`writeHeld`, every
 * ENGINE_TIMES_EVERY_MS by the ingest), so a restart reads a time at most that much older, until
 * the device's next block.
 */
export function engineRows(sqlite: Database) {
  const read = sqlite.query<EngineRow, [string]>('SELECT * FROM container_engines WHERE device_id = ?')
  const put = sqlite.query(
    `INSERT INTO container_engines (device_id, client_id, kind, version, api_version, unavailable_reason, memory_accounting, ts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (device_id) DO UPDATE SET kind = excluded.kind, version = excluded.version, api_version = excluded.api_version,
       unavailable_reason = excluded.unavailable_reason, memory_accounting = excluded.memory_accounting, ts = excluded.ts`,
  )
  const putTs = sqlite.query('UPDATE container_engines SET ts = ? WHERE device_id = ?')
  /** in the order first kept: past MAX_KEPT the longest kept without a held time goes */
  const kept = new Map<string, { row: EngineRow; newest: number }>()
  /** the devices whose newest block time is not written yet */
  const held = new Set<string>()

  const keep = (deviceId: string, row: EngineRow) => {
    if (kept.size >= MAX_KEPT) {
      const oldest = kept.keys().next().value!
      if (held.has(oldest)) return null // a time not written yet stays kept until it is
      kept.delete(oldest)
    }
    const k = { row, newest: row.ts }
    kept.set(deviceId, k)
    return k
  }

  const entry = (deviceId: string) => {
    const k = kept.get(deviceId)
    if (k) return k
    const row = read.get(deviceId)
    return row ? (keep(deviceId, row) ?? { row, newest: row.ts }) : null
  }

  /** a newer block's row that says what the stored one says: its time kept in memory (true); else nothing is done */
  const hold = (r: EngineRow): boolean => {
    const k = entry(r.device_id)
    if (!k || kept.get(r.device_id) !== k || !sameEngine(k.row, r) || r.ts < k.newest) return false
    k.newest = r.ts
    if (r.ts !== k.row.ts) held.add(r.device_id)
    return true
  }

  return {
    /** what the device's collector last said of its engine, as of its newest block (whose time may not be written yet) */
    engine(deviceId: string): EngineRow | null {
      const k = entry(deviceId)
      if (!k) return null
      return k.newest === k.row.ts ? k.row : { ...k.row, ts: k.newest }
    },
    /** writes the row, unless it says what the stored one says: then only its time moves, in memory */
    putEngine(r: EngineRow): void {
      if (hold(r)) return
      put.run(r.device_id, r.client_id, r.kind, r.version, r.api_version, r.unavailable_reason, r.memory_accounting, r.ts)
      held.delete(r.device_id)
      kept.delete(r.device_id)
      keep(r.device_id, r)
    },
    holdEngine: hold,
    /** whether newest block times wait to be written */
    holdsTimes: (): boolean => held.size > 0,
    /** writes every held newest block time, in the caller's transaction */
    writeHeldTimes(): void {
      for (const id of held) {
        const k = kept.get(id)
        if (!k) continue
        putTs.run(k.newest, id)
        k.row = { ...k.row, ts: k.newest }
      }
      held.clear()
    },
    /**
     * Forgets what is kept of a device's engine row, or of every device's: a write rolled back,
     * a device deleted. A time held and not written goes with it (the row reads as stored).
     */
    forgetEngine(deviceId?: string): void {
      if (deviceId === undefined) {
        kept.clear()
        held.clear()
      } else {
        kept.delete(deviceId)
        held.delete(deviceId)
      }
    },
  }
}
