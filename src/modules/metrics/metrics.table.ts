import { sql } from 'drizzle-orm'
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex, type SQLiteColumnBuilderBase } from 'drizzle-orm/sqlite-core'
import { devices } from '../devices/devices.table'
import { COUNTER_FIELDS, FIELDS, RAW_TABLE, TIERS, hotTable, packedTable, tierTable, type MetricKind } from './metrics.fields'

const hotColumns: Record<string, SQLiteColumnBuilderBase> = {}
for (const f of [...FIELDS.hardware, ...FIELDS.network]) hotColumns[f.name] = f.integer ? integer(f.name) : real(f.name)

/**
 * Raw samples, both kinds in one row (see RAW_TABLE): an integer rowid (the record id), the
 * device's integer `seq` (not its 36-char id: the (device, ts) index is the largest structure
 * after the rows), the time, which parts the row carries, the hot numeric fields as columns and
 * each part's other fields as JSON text. Deleting a device cascades here.
 *
 * (device_seq, ts) is unique: a device's sample is identified by its time, so a retry or a
 * replay of one the hub already holds finds its row instead of making a second (the writer).
 *
 * The rows carrying one part only (rare: a collector sends both in one batch) are indexed apart,
 * with their kinds: a history page is then located by counting entries of the (device, ts) index
 * alone, less these, instead of reading every row it skips (metrics.history.store.ts). So are the
 * rows still carrying a text of their own (not sealed into their block yet: a late part, a row of
 * an earlier release): finding the oldest of a range, as sealing and the charts of nested families
 * do, read every sealed row of the range without it (27 ms for a day at 10 s).
 */
export const metricSamples = sqliteTable(
  RAW_TABLE,
  {
    id: integer('id').primaryKey(),
    deviceSeq: integer('device_seq')
      .notNull()
      .references(() => devices.seq, { onDelete: 'cascade' }),
    ts: integer('ts').notNull(),
    /** 1 hardware, 2 network, 3 both */
    kinds: integer('kinds').notNull(),
    ...hotColumns,
    /** every non-hot field of each part as sent (a JSON object), null when none */
    hwRest: text('hw_rest'),
    netRest: text('net_rest'),
  },
  (t) => [
    uniqueIndex(`${RAW_TABLE}_device_ts`).on(t.deviceSeq, t.ts),
    index(`${RAW_TABLE}_one_kind`).on(t.deviceSeq, t.ts, t.kinds).where(sql`(${t.kinds} & 3) != 3`),
    index(`${RAW_TABLE}_unsealed`).on(t.deviceSeq, t.ts).where(sql`${t.hwRest} IS NOT NULL OR ${t.netRest} IS NOT NULL`),
  ],
)

/**
 * A rollup tier: one row per device and bucket. Per numeric field avg, min, max and the count
 * of samples that carried it (so coarser tiers weight averages correctly); per counter the
 * growth inside the bucket plus its first and last value, so growth across buckets composes.
 */
function tier(kind: MetricKind, name: string) {
  const cols: Record<string, SQLiteColumnBuilderBase> = {}
  for (const f of FIELDS[kind]) {
    for (const s of ['avg', 'min', 'max']) cols[`${f.name}_${s}`] = real(`${f.name}_${s}`)
    cols[`${f.name}_n`] = integer(`${f.name}_n`)
  }
  for (const c of COUNTER_FIELDS[kind]) {
    for (const s of ['delta', 'first', 'last']) cols[`${c}_${s}`] = integer(`${c}_${s}`)
  }
  return sqliteTable(
    tierTable(kind, name as never),
    {
      deviceSeq: integer('device_seq')
        .notNull()
        .references(() => devices.seq, { onDelete: 'cascade' }),
      bucket: integer('bucket').notNull(),
      n: integer('n').notNull(),
      ...cols,
    },
    (t) => [primaryKey({ columns: [t.deviceSeq, t.bucket] })],
  )
}

export const metricHw1m = tier('hardware', TIERS[0]!.name)
export const metricHw10m = tier('hardware', TIERS[1]!.name)
export const metricHw1h = tier('hardware', TIERS[2]!.name)
export const metricHw1d = tier('hardware', TIERS[3]!.name)
export const metricNet1m = tier('network', TIERS[0]!.name)
export const metricNet10m = tier('network', TIERS[1]!.name)
export const metricNet1h = tier('network', TIERS[2]!.name)
export const metricNet1d = tier('network', TIERS[3]!.name)

/**
 * SQLite's 1-minute tier since migration 0022: one row per device, kind and ten minutes (`span`,
 * the start of the ten minutes) holding its 1-minute rows coded (metrics.packed.ts). Its rowid
 * `key` orders the rows time first (the span's number, then the device: packedKey), so a rollup
 * run's rows land together at the end of the table instead of on one index page per device, and
 * a device's span is found by one rowid seek. (Keyed WITHOUT ROWID by (span, device) instead, its
 * rows of about 1 KB spilled onto overflow pages and filled the tree's inner pages: a seek took
 * 15 µs instead of 2.) The tables above (`metric_hw_1m`, `metric_net_1m`) keep the rows earlier
 * releases wrote, read until they age out. Deleting a device cascades here (a scan of the table:
 * it has no index by device).
 */
function packedTier(kind: MetricKind) {
  return sqliteTable(packedTable(kind), {
    key: integer('key').primaryKey(),
    span: integer('span').notNull(),
    deviceSeq: integer('device_seq')
      .notNull()
      .references(() => devices.seq, { onDelete: 'cascade' }),
    data: blob('data', { mode: 'buffer' }).notNull(),
  })
}
export const metricHw1mPacked = packedTier('hardware')
export const metricNet1mPacked = packedTier('network')

/** How far each tier is complete: buckets before done_until are rolled up. */
export const metricRollups = sqliteTable(
  'metric_rollups',
  {
    kind: text('kind').notNull(),
    tier: text('tier').notNull(),
    doneUntil: integer('done_until').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.tier] })],
)

/**
 * Per kind, the late samples stored and not rolled up yet (a sample more than LIVE_MS old when
 * written: a replay, a backfill), as the span of their times, written in the transaction that
 * stores them, so a restart before the rollup job's next run still re-rolls their buckets.
 * `from_ts`/`to_ts` is the span the writers add to; `rolling_from`/`rolling_to` the span a rollup
 * run took from it and has not finished (a run stopped midway leaves it to the next run).
 */
export const metricLate = sqliteTable('metric_late', {
  kind: text('kind').primaryKey(),
  fromTs: integer('from_ts'),
  toTs: integer('to_ts'),
  rollingFrom: integer('rolling_from'),
  rollingTo: integer('rolling_to'),
})

/**
 * The long-lived form of the samples' nested fields (see metrics.block.ts): one compressed block
 * per device and BLOCK_MS of time, holding the JSON "rest" of each part of every sealed row of
 * that span. A sealed row keeps its time and hot columns; its rest columns are null and its
 * `kinds` carries SEALED_BIT.
 */
export const metricBlocks = sqliteTable(
  'metric_blocks',
  {
    deviceSeq: integer('device_seq')
      .notNull()
      .references(() => devices.seq, { onDelete: 'cascade' }),
    /** the span's start (ms), a multiple of BLOCK_MS */
    start: integer('start').notNull(),
    data: blob('data', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceSeq, t.start] })],
)

/**
 * Beside each block: its samples' nested families per minute (metrics.minutes.ts), compressed,
 * so a chart of nested families over a long range reads these instead of decoding blocks.
 * Written and dropped with its block.
 */
export const metricNested = sqliteTable(
  'metric_nested',
  {
    deviceSeq: integer('device_seq')
      .notNull()
      .references(() => devices.seq, { onDelete: 'cascade' }),
    /** its block's start (ms) */
    start: integer('start').notNull(),
    data: blob('data', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceSeq, t.start] })],
)

/**
 * Where each sealed block's bytes are (metrics.block.log.ts): appended, framed, to a file beside
 * the database per hour of the blocks' starts (`<database>-blocks/<file>.log`), the block's frame
 * at `at` and its minutes' frame right after it. Written in the transaction that seals the block,
 * once its bytes are synced; a block sealed again points to its new bytes. Blocks of an earlier
 * release, and those a backup carries, stay in metric_blocks and metric_nested (read where this
 * has no row).
 */
export const metricBlockIndex = sqliteTable(
  'metric_block_index',
  {
    deviceSeq: integer('device_seq')
      .notNull()
      .references(() => devices.seq, { onDelete: 'cascade' }),
    /** the span's start (ms), a multiple of BLOCK_MS */
    start: integer('start').notNull(),
    /** its file: the hour of the span's start (start / 3,600,000, rounded down) */
    file: integer('file').notNull(),
    /** where the block's frame starts in the file */
    at: integer('at').notNull(),
    /** the block's payload length, then its minutes' (their frame follows the block's) */
    length: integer('length').notNull(),
    nestedLength: integer('nested_length').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceSeq, t.start] }), index('metric_block_index_file').on(t.file)],
)

/**
 * Byte ranges of the block files to overwrite with zeros: a deleted device's blocks (a trigger
 * on devices fills it in the delete's transaction, so a crash cannot lose the wipe), emptied by
 * the sealing job once the zeros are synced.
 */
export const metricBlockWipes = sqliteTable('metric_block_wipes', {
  id: integer('id').primaryKey(),
  file: integer('file').notNull(),
  at: integer('at').notNull(),
  length: integer('length').notNull(),
})

/**
 * The newest samples in their compact coded form (see metrics.hot.store.ts): HOT_TABLES tables
 * used in turn, each append-only with the increasing rowid as its only key, so a group commit
 * writes a few sequential pages instead of a row and an index leaf per device. A table is emptied
 * whole once its samples are sealed, which frees its pages without writing them; a foreign key
 * would make SQLite delete row by row, so there is none (a deleted device's records go then).
 * `sample_id` is the id the sample keeps once sealed into the raw table.
 */
function hotTableDef(i: number) {
  return sqliteTable(hotTable(i), {
    id: integer('id').primaryKey(),
    deviceSeq: integer('device_seq').notNull(),
    sampleId: integer('sample_id').notNull(),
    ts: integer('ts').notNull(),
    /** the parts this record carries: 1 hardware, 2 network, 3 both */
    kinds: integer('kinds').notNull(),
    /** the segment of writing it belongs to (metrics.hot.store.ts) */
    segment: integer('segment').notNull(),
    data: blob('data', { mode: 'buffer' }).notNull(),
  })
}
export const metricHot0 = hotTableDef(0)
export const metricHot1 = hotTableDef(1)
export const metricHot2 = hotTableDef(2)
export const metricHot3 = hotTableDef(3)
