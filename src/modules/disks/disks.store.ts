import type { Database } from 'bun:sqlite'

export interface ReportRow {
  device_id: string
  client_id: string
  available: number
  unavailable_reason: string | null
  ts: number
}

export interface ReadingRow {
  device_id: string
  client_id: string
  name: string
  ts: number
  model: string | null
  serial: string | null
  kind: string
  capacity_bytes: number | null
  passed: number | null
  temperature_c: number | null
  power_on_hours: number | null
  reallocated_sectors: number | null
  pending_sectors: number | null
  uncorrectable_sectors: number | null
  nvme_percentage_used: number | null
  nvme_media_errors: number | null
}

/** A failing disk of the account, at its device's newest report. */
export interface FailingDiskRow {
  device_id: string
  /** the device's name, else its hostname, else its id */
  device_name: string
  name: string
  model: string | null
  ts: number
}

/** One S.M.A.R.T. report of a device: its disks' readings, and whether smartctl could be run. */
export interface DiskReport {
  report: ReportRow
  readings: ReadingRow[]
}

/**
 * The disk_reports and disk_readings tables, on either engine (this file: SQLite;
 * disks.store.pg.ts: PostgreSQL). Every read and write names the client; the retention prunes all.
 */
export interface DisksStore {
  /**
   * Stores a report in one transaction: its readings always (a replay completes the history),
   * the report itself only when newer than the one held. True when it was.
   */
  apply(r: DiskReport): Promise<boolean>
  report(clientId: string, deviceId: string): Promise<ReportRow | null>
  /** the device's disks as read at one report, by name */
  readingsAt(clientId: string, deviceId: string, ts: number): Promise<ReadingRow[]>
  /** per disk, its reallocated sectors at its oldest reading since a time */
  oldestSince(clientId: string, deviceId: string, since: number): Promise<Map<string, number | null>>
  /** failing disks at each device's newest report, by device name then disk name */
  failing(clientId: string): Promise<FailingDiskRow[]>
  /** readings older than a time, keeping every device's newest report; how many went */
  prune(before: number): Promise<number>
}

export const READING_COLUMNS = [
  'device_id',
  'client_id',
  'name',
  'ts',
  'model',
  'serial',
  'kind',
  'capacity_bytes',
  'passed',
  'temperature_c',
  'power_on_hours',
  'reallocated_sectors',
  'pending_sectors',
  'uncorrectable_sectors',
  'nvme_percentage_used',
  'nvme_media_errors',
] as const
const COLS = READING_COLUMNS.join(', ')

/** Failing: smartctl's own verdict, or sectors it could not read back (pending, uncorrectable). */
export const FAILING_SQL = '(r.passed = 0 OR COALESCE(r.pending_sectors, 0) > 0 OR COALESCE(r.uncorrectable_sectors, 0) > 0)'

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createDisksStore(sqlite: Database): DisksStore {
  const report = sqlite.query<ReportRow, [string, string]>(
    'SELECT device_id, client_id, available, unavailable_reason, ts FROM disk_reports WHERE device_id = ? AND client_id = ?',
  )
  const heldTs = sqlite.query<{ ts: number }, [string]>('SELECT ts FROM disk_reports WHERE device_id = ?')
  const putReport = sqlite.query<never, [string, string, number, string | null, number]>(
    `INSERT INTO disk_reports (device_id, client_id, available, unavailable_reason, ts) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (device_id) DO UPDATE SET available = excluded.available, unavailable_reason = excluded.unavailable_reason, ts = excluded.ts`,
  )
  const putReading = sqlite.query(`INSERT INTO disk_readings (${COLS}) VALUES (${READING_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`)
  const at = sqlite.query<ReadingRow, [string, string, number]>(
    `SELECT ${COLS} FROM disk_readings WHERE device_id = ? AND client_id = ? AND ts = ? ORDER BY name`,
  )
  const oldestSince = sqlite.query<{ name: string; reallocated_sectors: number | null }, [string, string, number]>(
    `SELECT name, reallocated_sectors FROM disk_readings r WHERE device_id = ?1 AND client_id = ?2 AND ts >= ?3
       AND ts = (SELECT MIN(ts) FROM disk_readings x WHERE x.device_id = r.device_id AND x.name = r.name AND x.ts >= ?3)`,
  )
  const failing = sqlite.query<FailingDiskRow, [string]>(
    `SELECT r.device_id, COALESCE(d.name, d.hostname, d.id) AS device_name, r.name, r.model, r.ts
     FROM disk_reports p JOIN disk_readings r ON r.device_id = p.device_id AND r.ts = p.ts JOIN devices d ON d.id = p.device_id
     WHERE p.client_id = ? AND ${FAILING_SQL} ORDER BY device_name, r.name`,
  )
  const prune = sqlite.query<never, [number]>(
    'DELETE FROM disk_readings WHERE ts < ?1 AND ts < (SELECT ts FROM disk_reports p WHERE p.device_id = disk_readings.device_id)',
  )
  const apply = sqlite.transaction((r: DiskReport): boolean => {
    for (const reading of r.readings) putReading.run(...READING_COLUMNS.map((c) => reading[c]))
    const held = heldTs.get(r.report.device_id)
    if (held && held.ts >= r.report.ts) return false
    const p = r.report
    putReport.run(p.device_id, p.client_id, p.available, p.unavailable_reason, p.ts)
    return true
  })

  return {
    apply: async (r) => apply(r),
    report: async (clientId, deviceId) => report.get(deviceId, clientId),
    readingsAt: async (clientId, deviceId, ts) => at.all(deviceId, clientId, ts),
    oldestSince: async (clientId, deviceId, since) => new Map(oldestSince.all(deviceId, clientId, since).map((r) => [r.name, r.reallocated_sectors])),
    failing: async (clientId) => failing.all(clientId),
    prune: async (before) => prune.run(before).changes,
  }
}
