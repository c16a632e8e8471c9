import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import { type DisksStore, FAILING_SQL, READING_COLUMNS, type ReadingRow, type ReportRow } from './disks.store'

const COLS = READING_COLUMNS.join(', ')
const TEXT = new Set(['device_id', 'client_id', 'name', 'model', 'serial', 'kind'])
const NULLABLE_TEXT = new Set(['model', 'serial'])

const reading = (r: Raw): ReadingRow => {
  const out: Record<string, unknown> = {}
  for (const c of READING_COLUMNS) {
    if (TEXT.has(c)) out[c] = NULLABLE_TEXT.has(c) ? ((r[c] as string | null) ?? null) : r[c]
    else out[c] = c === 'ts' ? num(r[c]) : numOrNull(r[c])
  }
  return out as unknown as ReadingRow
}

const report = (r: Raw): ReportRow => ({
  device_id: r.device_id as string,
  client_id: r.client_id as string,
  available: num(r.available),
  unavailable_reason: (r.unavailable_reason as string | null) ?? null,
  ts: num(r.ts),
})

/** The disk tables on PostgreSQL: the same answers as the SQLite store (disks.store.contract.test.ts). */
export function createDisksStorePg(sql: SQL): DisksStore {
  const insertReading = `INSERT INTO disk_readings (${COLS}) VALUES (${READING_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING`
  return {
    apply(r) {
      return sql.begin(async (tx) => {
        for (const x of r.readings) await tx.unsafe(insertReading, READING_COLUMNS.map((c) => x[c]) as never[])
        const p = r.report
        // applied only over an older report: of two hubs storing reports of one device at once, the newer stands
        const [put]: Raw[] = await tx`INSERT INTO disk_reports (device_id, client_id, available, unavailable_reason, ts)
          VALUES (${p.device_id}, ${p.client_id}, ${p.available}, ${p.unavailable_reason}, ${p.ts})
          ON CONFLICT (device_id) DO UPDATE SET available = excluded.available, unavailable_reason = excluded.unavailable_reason, ts = excluded.ts
          WHERE disk_reports.ts < excluded.ts
          RETURNING ts`
        return put !== undefined
      })
    },
    async report(clientId, deviceId) {
      const [r]: Raw[] =
        await sql`SELECT device_id, client_id, available, unavailable_reason, ts FROM disk_reports WHERE device_id = ${deviceId} AND client_id = ${clientId}`
      return r ? report(r) : null
    },
    async readingsAt(clientId, deviceId, ts) {
      const rows: Raw[] = await sql.unsafe(`SELECT ${COLS} FROM disk_readings WHERE device_id = $1 AND client_id = $2 AND ts = $3 ORDER BY name COLLATE "C"`, [
        deviceId,
        clientId,
        ts,
      ])
      return rows.map(reading)
    },
    async oldestSince(clientId, deviceId, since) {
      const rows: Raw[] = await sql`SELECT DISTINCT ON (name) name, reallocated_sectors FROM disk_readings
        WHERE device_id = ${deviceId} AND client_id = ${clientId} AND ts >= ${since} ORDER BY name, ts`
      return new Map(rows.map((r) => [r.name as string, numOrNull(r.reallocated_sectors)]))
    },
    async failing(clientId) {
      const rows: Raw[] = await sql.unsafe(
        `SELECT r.device_id, COALESCE(d.name, d.hostname, d.id) AS device_name, r.name, r.model, r.ts
         FROM disk_reports p JOIN disk_readings r ON r.device_id = p.device_id AND r.ts = p.ts JOIN devices d ON d.id = p.device_id
         WHERE p.client_id = $1 AND ${FAILING_SQL} ORDER BY COALESCE(d.name, d.hostname, d.id) COLLATE "C", r.name COLLATE "C"`,
        [clientId],
      )
      return rows.map((r) => ({
        device_id: r.device_id as string,
        device_name: r.device_name as string,
        name: r.name as string,
        model: (r.model as string | null) ?? null,
        ts: num(r.ts),
      }))
    },
    async prune(before) {
      const rows: Raw[] = await sql`DELETE FROM disk_readings WHERE ts < ${before}
        AND ts < (SELECT ts FROM disk_reports p WHERE p.device_id = disk_readings.device_id) RETURNING 1`
      return rows.length
    },
  }
}
