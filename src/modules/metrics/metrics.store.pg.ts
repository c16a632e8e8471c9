import type { SQL } from 'bun'
import { FIELDS, KIND_BIT, TIERS, tierColumns, tierTable, type MetricKind, type TierName } from './metrics.fields'
import { RECORDS, metricTables } from '../../db/pg/metrics.partitions'
import { createRecordCodec, type RecordCodec } from './metrics.records.pg'
import type { MetricsReads } from './metrics.reads'
import { pendingOf } from './metrics.late.store'
import type { RawValues, SampleValues, TierValues } from './metrics.store'

/**
 * The metric reads on PostgreSQL (the SQLite store's, metrics.store.ts, answering the same):
 * every one a range on the (device_seq, ts) primary key of the day partitions it touches. A
 * sample's other fields come out of its compact record (metrics.records.pg.ts), decoded only for
 * the rows a page or latest returns. No hub keeps samples of its own: what one hub committed,
 * every hub reads at once.
 */
export function createMetricsStorePg(sql: SQL, codec: RecordCodec = createRecordCodec()): MetricsReads {
  const has = (kind: MetricKind) => `(kinds & ${KIND_BIT[kind]}) <> 0`
  const hot = (kind: MetricKind) => FIELDS[kind].map((f) => f.name).join(', ')
  const ints = (row: unknown[], n: number) => {
    for (let i = 0; i < n; i++) if (row[i] !== null) row[i] = Number(row[i])
    return row
  }

  /** rows [id, ts, ...hot, rec] with rec replaced by the kind's text */
  async function withRest(kind: MetricKind, seq: number, rows: unknown[][]): Promise<SampleValues[]> {
    const at = FIELDS[kind].length + 2
    await codec.refsOf(
      sql,
      rows.filter((r) => r[at] !== null).map((r) => ({ seq, ts: Number(r[1]) })),
    )
    for (const row of rows) {
      ints(row, 2)
      const rec = row[at] as Uint8Array | null
      row[at] = rec ? (codec.decode(seq, row[1] as number, new Uint8Array(rec))[kind] ?? null) : null
    }
    return rows
  }

  const one = async (text: string, params: unknown[]): Promise<number | null> => {
    const rows: unknown[][] = await sql.unsafe(text, params).values()
    const v = rows[0]?.[0]
    return v === null || v === undefined ? null : Number(v)
  }

  const reads: MetricsReads = {
    async page(kind, seq, from, to, limit, offset) {
      const rows: unknown[][] = await sql
        .unsafe(
          `SELECT id, ts, ${hot(kind)}, rec FROM ${RECORDS} WHERE device_seq = $1 AND ts >= $2 AND ts <= $3 AND ${has(kind)}
           ORDER BY ts DESC, id DESC LIMIT $4 OFFSET $5`,
          [seq, from, to, limit, offset],
        )
        .values()
      return withRest(kind, seq, rows)
    },
    count: async (kind, seq, from, to) =>
      (await one(`SELECT count(*) FROM ${RECORDS} WHERE device_seq = $1 AND ts >= $2 AND ts <= $3 AND ${has(kind)}`, [seq, from, to])) ?? 0,
    hourlyCount: async (kind, seq, from, to) =>
      (await one(`SELECT sum(n) FROM ${tierTable(kind, '1h')} WHERE device_seq = $1 AND bucket >= $2 AND bucket < $3`, [seq, from, to])) ?? 0,
    async lateSpan(kind) {
      const [r] = await sql`SELECT from_ts, to_ts, rolling_from, rolling_to FROM metric_late WHERE kind = ${kind}`.values()
      const n = (v: unknown) => (v === null ? null : Number(v))
      return r ? pendingOf(n(r[0]), n(r[1]), n(r[2]), n(r[3])) : null
    },
    oldestTs: (kind, seq) => one(`SELECT ts FROM ${RECORDS} WHERE device_seq = $1 AND ${has(kind)} ORDER BY ts LIMIT 1`, [seq]),
    async latest(kind, seq) {
      const rows: unknown[][] = await sql
        .unsafe(`SELECT id, ts, ${hot(kind)}, rec FROM ${RECORDS} WHERE device_seq = $1 AND ${has(kind)} ORDER BY ts DESC, id DESC LIMIT 1`, [seq])
        .values()
      if (!rows.length) return null
      const [row] = await withRest(kind, seq, rows)
      const out: Record<string, unknown> = { id: row![0], ts: row![1] }
      FIELDS[kind].forEach((f, i) => {
        out[f.name] = row![i + 2]
      })
      out.rest = row![FIELDS[kind].length + 2]
      return out
    },
    async latestOf(kind, seqs) {
      if (!seqs.length) return []
      // one descent of each device's (device_seq, ts) key, in the order given
      const rows: unknown[][] = await sql
        .unsafe(
          `SELECT d.seq, r.ts, ${FIELDS[kind].map((f) => `r.${f.name}`).join(', ')}
           FROM unnest($1::int8[]) WITH ORDINALITY AS d(seq, o)
           CROSS JOIN LATERAL (SELECT * FROM ${RECORDS} WHERE device_seq = d.seq AND ${has(kind)} ORDER BY ts DESC, id DESC LIMIT 1) r
           ORDER BY d.o`,
          [sql.array(seqs, 'int8')],
        )
        .values()
      return rows.map((r) => ints(r, 2) as RawValues)
    },
    async rawValues(kind, seq, from, to) {
      const rows: unknown[][] = await sql
        .unsafe(`SELECT ts, ${hot(kind)} FROM ${RECORDS} WHERE device_seq = $1 AND ts >= $2 AND ts < $3 AND ${has(kind)} ORDER BY ts`, [seq, from, to])
        .values()
      return rows.map((r) => ints(r, 1) as RawValues)
    },
    firstTs: (kind, seq, from, to) =>
      one(`SELECT ts FROM ${RECORDS} WHERE device_seq = $1 AND ts >= $2 AND ts < $3 AND ${has(kind)} ORDER BY ts LIMIT 1`, [seq, from, to]),
    lastTs: (kind, seq, from, to) =>
      one(`SELECT ts FROM ${RECORDS} WHERE device_seq = $1 AND ts >= $2 AND ts < $3 AND ${has(kind)} ORDER BY ts DESC LIMIT 1`, [seq, from, to]),
    async tierValues(kind, tier, seq, from, to) {
      const cols = tierColumns(kind)
      const rows: unknown[][] = await sql
        .unsafe(`SELECT bucket, n, ${cols.join(', ')} FROM ${tierTable(kind, tier)} WHERE device_seq = $1 AND bucket >= $2 AND bucket < $3 ORDER BY bucket`, [
          seq,
          from,
          to,
        ])
        .values()
      // int8 columns (bucket, n, the counts and counters) come back as text
      return rows.map((r) => r.map((v) => (v === null ? null : Number(v))) as TierValues)
    },
    async hourlyAverages(kind, field, seq, from, to) {
      if (!FIELDS[kind].some((f) => f.name === field)) return undefined
      const rows: unknown[][] = await sql
        .unsafe(
          `SELECT bucket, ${field}_avg FROM ${tierTable(kind, '1h')} WHERE device_seq = $1 AND bucket >= $2 AND bucket < $3 AND ${field}_n > 0 ORDER BY bucket`,
          [seq, from, to],
        )
        .values()
      return rows.map((r) => ({ t: Number(r[0]), avg: r[1] as number | null }))
    },
    async countSince(kind, seqs, since) {
      if (!seqs.length) return 0
      return (
        (await one(`SELECT count(*) FROM ${RECORDS} WHERE device_seq = ANY($1::int8[]) AND ts >= $2 AND ${has(kind)}`, [sql.array(seqs, 'int8'), since])) ?? 0
      )
    },
    async doneUntil(kind) {
      const rows: { tier: TierName; done_until: string }[] = await sql`SELECT tier, done_until FROM metric_rollups WHERE kind = ${kind}`
      const done = {} as Record<TierName, number>
      for (const t of TIERS) done[t.name] = Number(rows.find((r) => r.tier === t.name)?.done_until ?? 0)
      return done
    },
  }
  // every read waits for the tables to exist (made once per pool: a fresh database before its first sample)
  const out = {} as Record<string, unknown>
  for (const [name, fn] of Object.entries(reads) as [string, (...a: unknown[]) => Promise<unknown>][]) {
    out[name] = async (...a: unknown[]) => {
      await metricTables(sql)
      return fn(...a)
    }
  }
  return out as unknown as MetricsReads
}

export type { RawValues, SampleValues, TierValues }
