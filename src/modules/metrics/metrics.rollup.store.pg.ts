import type { SQL } from 'bun'
import { FIELDS, LEVEL, TIERS, tierColumns, tierTable, type MetricKind, type TierName } from './metrics.fields'
import { PRUNE_BATCH, type Fold, type RollupPort, type SourceRow } from './metrics.rollup.store'
import { RECORDS, dropMetricDaysBefore, ensureMetricTables, metricTables } from '../../db/pg/metrics.partitions'

/** tier rows per INSERT: PostgreSQL takes at most 65,535 parameters per statement */
const ROWS_PER_INSERT = 500

const KIND_BIT: Record<MetricKind, number> = { hardware: 1, network: 2 }
const levelTable = (kind: MetricKind, level: number) => (level === LEVEL.raw ? RECORDS : tierTable(kind, TIERS[level - 1]!.name))
const timeColumn = (level: number) => (level === LEVEL.raw ? 'ts' : 'bucket')

/**
 * The rollup tiers and retention on PostgreSQL (the SQLite store's, metrics.rollup.store.ts):
 * the same folds over the same source rows, written by one multi-row upsert per 500 tier rows in
 * the step's transaction. Raw samples go by whole day partitions (db/pg/metrics.partitions.ts);
 * the tiers by bounded deletes, as on SQLite. The jobs calling it run once across hubs
 * (src/jobs/claims.pg.ts).
 */
export function createRollupStorePg(sql: SQL): RollupPort {
  const source = (kind: MetricKind, level: number) => {
    const time = timeColumn(level)
    const cols = level === LEVEL.raw ? FIELDS[kind].map((f) => f.name) : ['n', ...tierColumns(kind)]
    const has = level === LEVEL.raw ? ` AND (kinds & ${KIND_BIT[kind]}) <> 0` : ''
    return `SELECT device_seq, ${time}, ${cols.join(', ')} FROM ${levelTable(kind, level)}
      WHERE device_seq = ANY($3::int8[]) AND ${time} >= $1 AND ${time} < $2${has} ORDER BY device_seq, ${time}`
  }
  return {
    async roll(kind: MetricKind, tier: number, seqs: number[], a: number, b: number, fold: Fold) {
      const cols = ['device_seq', 'bucket', 'n', ...tierColumns(kind)]
      const table = tierTable(kind, TIERS[tier]!.name)
      await metricTables(sql)
      await sql.begin(async (tx) => {
        const rows: unknown[][] = await tx.unsafe(source(kind, tier), [a, b, tx.array(seqs, 'int8')]).values()
        const numeric = rows.map((r) => r.map((v) => (v === null ? null : Number(v))) as SourceRow)
        const out: (number | null)[][] = []
        fold(numeric, (r) => void out.push(r))
        const set = cols.slice(2).map((c) => `${c} = EXCLUDED.${c}`)
        for (let at = 0; at < out.length; at += ROWS_PER_INSERT) {
          const chunk = out.slice(at, at + ROWS_PER_INSERT)
          const params: unknown[] = []
          const values = chunk.map((r) => {
            const first = params.length
            params.push(...r)
            return `(${cols.map((_, c) => `$${first + c + 1}`).join(', ')})`
          })
          await tx.unsafe(
            `INSERT INTO ${table} (${cols.join(', ')}) VALUES ${values.join(', ')} ON CONFLICT (device_seq, bucket) DO UPDATE SET ${set.join(', ')}`,
            params,
          )
        }
      })
    },
    async oldest(kind: MetricKind, level: number, seqs: number[]) {
      if (!seqs.length) return null
      await metricTables(sql)
      const time = timeColumn(level)
      const has = level === LEVEL.raw ? ` AND (kinds & ${KIND_BIT[kind]}) <> 0` : ''
      const rows: unknown[][] = await sql
        .unsafe(
          `SELECT min(t) FROM unnest($1::int8[]) AS d(seq)
           CROSS JOIN LATERAL (SELECT ${time} AS t FROM ${levelTable(kind, level)} WHERE device_seq = d.seq${has} ORDER BY ${time} LIMIT 1) o`,
          [sql.array(seqs, 'int8')],
        )
        .values()
      const v = rows[0]?.[0]
      return v === null || v === undefined ? null : Number(v)
    },
    async doneUntil(kind: MetricKind, tier: TierName) {
      const [r] = await sql`SELECT done_until FROM metric_rollups WHERE kind = ${kind} AND tier = ${tier}`
      return r ? Number(r.done_until) : null
    },
    async setDone(kind: MetricKind, tier: TierName, t: number) {
      await sql`INSERT INTO metric_rollups (kind, tier, done_until) VALUES (${kind}, ${tier}, ${t})
        ON CONFLICT (kind, tier) DO UPDATE SET done_until = EXCLUDED.done_until`
    },
    /**
     * Raw: the day partitions wholly older than the cutoff are dropped (answers the days dropped:
     * no row is deleted one by one); tiers: up to `limit` rows, as on SQLite.
     */
    async pruneBatch(kind: MetricKind, level: number, seqs: number[], cutoff: number, limit = PRUNE_BATCH) {
      await metricTables(sql)
      if (level === LEVEL.raw) return (await dropMetricDaysBefore(sql, cutoff)).length
      if (!seqs.length) return 0
      const table = levelTable(kind, level)
      const rows = await sql.unsafe(
        `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE device_seq = ANY($1::int8[]) AND bucket < $2 LIMIT $3)`,
        [sql.array(seqs, 'int8'), cutoff, limit],
      )
      return rows.count
    },
    /** the day partitions ahead (the retention job's run makes them, once across hubs), none past retention */
    ahead: async (now: number, keepFrom: number) => void (await ensureMetricTables(sql, now, keepFrom)),
    // PostgreSQL's autovacuum keeps statistics and reuses the space freed: nothing to step through
    optimize: () => {},
    freePages: () => 0,
    vacuumStep: () => {},
  }
}
