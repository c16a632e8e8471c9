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

const COLS =
  'device_id, client_id, name, ts, model, serial, kind, capacity_bytes, passed, temperature_c, power_on_hours, reallocated_sectors, ' +
  'pending_sectors, uncorrectable_sectors, nvme_percentage_used, nvme_media_errors'
const LIST = COLS.split(', ')

/** Failing: smartctl's own verdict, or sectors it could not read back (pending, uncorrectable). */
export const FAILING_SQL = '(r.passed = 0 OR COALESCE(r.pending_sectors, 0) > 0 OR COALESCE(r.uncorrectable_sectors, 0) > 0)'

export function createDisksStore(sqlite: Database) {
  const report = sqlite.query<ReportRow, [string]>('SELECT * FROM disk_reports WHERE device_id = ?')
  const putReport = sqlite.query(
    `INSERT INTO disk_reports (device_id, client_id, available, unavailable_reason, ts) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (device_id) DO UPDATE SET available = excluded.available, unavailable_reason = excluded.unavailable_reason, ts = excluded.ts`,
  )
  const putReading = sqlite.query(`INSERT INTO disk_readings (${COLS}) VALUES (${LIST.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`)
  const at = sqlite.query<ReadingRow, [string, number]>(`SELECT ${COLS} FROM disk_readings WHERE device_id = ? AND ts = ? ORDER BY name`)
  const oldestSince = sqlite.query<{ name: string; reallocated_sectors: number | null }, [string, number]>(
    `SELECT name, reallocated_sectors FROM disk_readings r WHERE device_id = ?1 AND ts >= ?2
       AND ts = (SELECT MIN(ts) FROM disk_readings x WHERE x.device_id = r.device_id AND x.name = r.name AND x.ts >= ?2)`,
  )
  const failing = sqlite.query<{ device_id: string; device_name: string; name: string; model: string | null; ts: number }, [string]>(
    `SELECT r.device_id, COALESCE(d.name, d.hostname, d.id) AS device_name, r.name, r.model, r.ts
     FROM disk_reports p JOIN disk_readings r ON r.device_id = p.device_id AND r.ts = p.ts JOIN devices d ON d.id = p.device_id
     WHERE p.client_id = ? AND ${FAILING_SQL} ORDER BY device_name, r.name`,
  )
  const prune = sqlite.query('DELETE FROM disk_readings WHERE ts < ?1 AND ts < (SELECT ts FROM disk_reports p WHERE p.device_id = disk_readings.device_id)')

  return {
    report: (deviceId: string) => report.get(deviceId),
    putReport: (r: ReportRow) => putReport.run(r.device_id, r.client_id, r.available, r.unavailable_reason, r.ts),
    putReading: (r: ReadingRow) => putReading.run(...LIST.map((c) => r[c as keyof ReadingRow])),
    /** the device's disks as read at one report */
    readingsAt: (deviceId: string, ts: number) => at.all(deviceId, ts),
    /** per disk, its reallocated sectors at its oldest reading since a time */
    oldestSince: (deviceId: string, since: number) => new Map(oldestSince.all(deviceId, since).map((r) => [r.name, r.reallocated_sectors])),
    failing: (clientId: string) => failing.all(clientId),
    /** readings older than a time, keeping every device's newest report */
    prune: (before: number) => prune.run(before).changes,
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn)(),
  }
}

export type DisksStore = ReturnType<typeof createDisksStore>
