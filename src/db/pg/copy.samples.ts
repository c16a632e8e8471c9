import type { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import { FIELDS, KIND_BIT, tierColumns, type MetricKind } from '../../modules/metrics/metrics.fields'
import { createPackedStore } from '../../modules/metrics/metrics.packed.store'
import type { HotPart } from '../../modules/metrics/metrics.hot'
import { createRecordCodec } from '../../modules/metrics/metrics.records.pg'
import { createMetricsStore } from '../../modules/metrics/metrics.store'
import { canonical, canonicalSql, RowChecksum, type TwinType } from './copy.values'
import { RECORDS, dayOf, ensureMetricDayIn } from './metrics.partitions'

/**
 * The raw samples in the form a PostgreSQL hub reads (db/pg/metrics.partitions.ts): each sample as
 * SQLite's store decodes it (sealed rows with their blocks' texts, and the newest samples' records),
 * read per device and day, written as `metric_records` rows coded against the device's reference of
 * the day, in the copy's transaction. A sample keeps its id, so pages answer the same on both engines.
 */

/** SQLite's own metric tables, which no PostgreSQL hub reads: left empty on the target */
export const SQLITE_ONLY_METRICS = new Set([
  'metric_samples',
  'metric_blocks',
  'metric_nested',
  'metric_block_index',
  'metric_block_wipes',
  'metric_hot_0',
  'metric_hot_1',
  'metric_hot_2',
  'metric_hot_3',
  'metric_hw_1m_packed',
  'metric_net_1m_packed',
])
/** PostgreSQL's own metric tables, emptied with --replace */
export const PG_ONLY_METRICS = [RECORDS, 'metric_record_refs']

const DAY_MS = 86_400_000
const ROWS_PER_INSERT = 1_000
const HW = FIELDS.hardware.map((f) => f.name)
const NET = FIELDS.network.map((f) => f.name)
const COLS = ['device_seq', 'ts', 'id', 'kinds', ...HW, ...NET]
const TYPES: TwinType[] = ['bigint', 'bigint', 'bigint', 'bigint', ...HW.map((): TwinType => 'double'), ...NET.map((): TwinType => 'double')]

interface Sample {
  id: number
  ts: number
  parts: HotPart[]
}

/** One device's samples of one day, both kinds joined by time, oldest first. */
function samplesOfDay(store: ReturnType<typeof createMetricsStore>, seq: number, day: number): Sample[] {
  const byTs = new Map<number, Sample>()
  for (const kind of ['hardware', 'network'] as MetricKind[]) {
    const n = FIELDS[kind].length
    for (const row of store.page(kind, seq, day, day + DAY_MS - 1, Number.MAX_SAFE_INTEGER, 0)) {
      const ts = row[1] as number
      let s = byTs.get(ts)
      if (!s) byTs.set(ts, (s = { id: row[0] as number, ts, parts: [] }))
      s.parts.push({ kind, values: row.slice(2, 2 + n) as (number | null)[], rest: (row[2 + n] as string | null) ?? null })
    }
  }
  return [...byTs.values()].sort((a, b) => a.ts - b.ts)
}

/** Copies every device's samples; returns how many and their checksum (over the columns PostgreSQL can sum). */
export async function copySamples(sqlite: Database, tx: SQL): Promise<RowChecksum> {
  const store = createMetricsStore(sqlite)
  const codec = createRecordCodec()
  const sum = new RowChecksum()
  const seqs = sqlite
    .query<{ seq: number }, []>('SELECT seq FROM main.devices ORDER BY seq')
    .all()
    .map((r) => r.seq)
  let maxId = 0
  for (const seq of seqs) {
    const ends = (['hardware', 'network'] as MetricKind[]).flatMap((k) => {
      const oldest = store.oldestTs(k, seq)
      const newest = store.latest(k, seq)?.ts as number | undefined
      return oldest === null || newest === undefined ? [] : [oldest, newest]
    })
    if (!ends.length) continue
    for (let day = dayOf(Math.min(...ends)); day <= dayOf(Math.max(...ends)); day += DAY_MS) {
      const samples = samplesOfDay(store, seq, day)
      if (!samples.length) continue
      await ensureMetricDayIn(tx, day)
      const refs = codec.scope()
      await refs.refsFor(tx, [{ seq, day, parts: samples[0]!.parts }])
      for (let at = 0; at < samples.length; at += ROWS_PER_INSERT) {
        const chunk = samples.slice(at, at + ROWS_PER_INSERT)
        const params: unknown[] = []
        const rows = chunk.map((s) => {
          const hw = s.parts.find((p) => p.kind === 'hardware')
          const net = s.parts.find((p) => p.kind === 'network')
          const values = [
            seq,
            s.ts,
            s.id,
            s.parts.reduce((k, p) => k | KIND_BIT[p.kind], 0),
            ...HW.map((_, i) => (hw ? (hw.values[i] ?? null) : null)),
            ...NET.map((_, i) => (net ? (net.values[i] ?? null) : null)),
          ] as (number | null)[]
          sum.add(values.map((v, i) => canonical(TYPES[i]!, v)))
          if (s.id > maxId) maxId = s.id
          const first = params.length
          params.push(...values, refs.encode(seq, s.ts, s.parts))
          return `(${[...COLS, 'rec'].map((_, c) => `$${first + c + 1}`).join(', ')})`
        })
        await tx.unsafe(`INSERT INTO ${RECORDS} (${[...COLS, 'rec'].join(', ')}) VALUES ${rows.join(', ')}`, params)
      }
      refs.commit()
    }
  }
  if (maxId > 0) await tx.unsafe(`SELECT setval('${RECORDS}_id_seq', $1)`, [maxId])
  return sum
}

/** The samples' count and checksum as PostgreSQL computes them over metric_records. */
export async function checksumSamples(tx: SQL): Promise<{ rows: number; checksum: string }> {
  const row = COLS.map((c, i) => canonicalSql(TYPES[i]!, c)).join(' || chr(1) || ')
  const [r] = await tx.unsafe(
    `SELECT count(*)::text AS rows, coalesce(sum(('x' || substr(md5(${row}), 1, 15))::bit(60)::bigint::numeric), 0)::text AS checksum FROM ${RECORDS}`,
  )
  return { rows: Number(r.rows), checksum: r.checksum as string }
}

/** SQLite's 1-minute tier tables, whose rows a PostgreSQL hub reads as they are (its own metric_hw_1m, metric_net_1m) */
export const MINUTE_TABLES: Record<string, MetricKind> = { metric_hw_1m: 'hardware', metric_net_1m: 'network' }
/** a week of one device's minutes at a time (about 10,000 rows) */
const MINUTE_WINDOW = 7 * DAY_MS

/**
 * The 1-minute tier's rows as a PostgreSQL hub keeps them (one row per device and minute), for
 * `metric_hw_1m` and `metric_net_1m`: SQLite codes them per ten minutes (metrics.packed.ts) and
 * keeps the rows earlier releases wrote beside them; both are read through the metrics store, as
 * a hub reads them. Null for any other table (copied as it is).
 */
export function minuteRows(sqlite: Database, table: string): Iterable<Record<string, unknown>> | null {
  const kind = MINUTE_TABLES[table]
  if (!kind) return null
  return (function* () {
    const minutes = createPackedStore(sqlite)
    const names = ['device_seq', 'bucket', 'n', ...tierColumns(kind)]
    const seqs = sqlite
      .query<{ seq: number }, []>('SELECT seq FROM devices ORDER BY seq')
      .all()
      .map((r) => r.seq)
    // the fleet's first and last minute (the ends of the table; a device's own would be a walk
    // through the others' rows from an end), then each device's minutes a window at a time
    const first = minutes.oldest(kind, seqs)
    if (first === null) return
    const last = minutes.newest(kind, seqs)!
    for (const seq of seqs) {
      for (let a = first; a <= last; a += MINUTE_WINDOW)
        for (const r of minutes.deviceRows(kind, seq, a, Math.min(a + MINUTE_WINDOW, last + 1))) {
          const row: Record<string, unknown> = { device_seq: seq }
          for (let i = 0; i < r.length; i++) row[names[i + 1]!] = r[i]
          yield row
        }
    }
  })()
}
