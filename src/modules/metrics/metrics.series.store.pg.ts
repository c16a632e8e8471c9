import type { SQL } from 'bun'
import { KIND_BIT, tierTable, type MetricKind, type TierName } from './metrics.fields'
import { RECORDS, metricTables } from '../../db/pg/metrics.partitions'
import { createRecordCodec, type RecordCodec } from './metrics.records.pg'
import type { SeriesReads } from './metrics.series.reads'
import { RECENT_TIMES } from './metrics.series.store'

/**
 * The chart reads on PostgreSQL (the SQLite store's, metrics.series.store.ts, answering the same).
 * Field and family names reaching the SQL were checked against the field lists by the service.
 * A family's JSON comes out of the sample's compact record, as the member's JSON text (what
 * SQLite's `->` gives); no sample is sealed into blocks here, so a chart of nested families reads
 * its samples themselves.
 */
export function createSeriesStorePg(sql: SQL, codec: RecordCodec = createRecordCodec()): SeriesReads {
  const nums = (rows: unknown[][]) => rows.map((r) => r.map((v) => (v === null ? null : Number(v))))
  return {
    async recentTimes(seq) {
      await metricTables(sql)
      const rows: unknown[][] = await sql`SELECT ts FROM metric_records WHERE device_seq = ${seq} ORDER BY ts DESC LIMIT ${RECENT_TIMES}`.values()
      return rows.map((r) => Number(r[0]))
    },
    async tierRows(kind: MetricKind, tier: TierName, fields, seq, from, to) {
      const cols = fields.flatMap((f) => [`${f}_avg`, `${f}_min`, `${f}_max`, `${f}_n`])
      const rows: unknown[][] = await sql
        .unsafe(`SELECT bucket, ${cols.join(', ')} FROM ${tierTable(kind, tier)} WHERE device_seq = $1 AND bucket >= $2 AND bucket < $3 ORDER BY bucket`, [
          seq,
          from,
          to,
        ])
        .values()
      return nums(rows)
    },
    async rawRows(kind: MetricKind, fields, families, seq, from, to, limit) {
      await metricTables(sql)
      const cols = ['ts', ...fields, ...(families.length ? ['rec'] : [])]
      const rows: unknown[][] = await sql
        .unsafe(
          `SELECT ${cols.join(', ')} FROM ${RECORDS} WHERE device_seq = $1 AND ts >= $2 AND ts < $3 AND (kinds & ${KIND_BIT[kind]}) <> 0 ORDER BY ts LIMIT $4`,
          [seq, from, to, limit],
        )
        .values()
      if (families.length)
        await codec.refsOf(
          sql,
          rows.map((r) => ({ seq, ts: Number(r[0]) })),
        )
      return rows.map((r) => {
        const out: unknown[] = [Number(r[0]), ...r.slice(1, 1 + fields.length)]
        if (!families.length) return out
        const rec = r[1 + fields.length] as Uint8Array | null
        const text = rec ? codec.decode(seq, out[0] as number, new Uint8Array(rec))[kind] : null
        const rest = text ? (JSON.parse(text) as Record<string, unknown>) : {}
        for (const f of families) out.push(rest[f] === undefined ? null : JSON.stringify(rest[f]))
        return out
      })
    },
    // nothing is sealed: every sample of the range is read from its record
    firstUnsealed: async (_seq, from) => from,
    nestedMinutes: async () => [],
  }
}
