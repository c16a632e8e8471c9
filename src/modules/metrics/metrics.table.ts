import { index, integer, primaryKey, real, sqliteTable, text, type SQLiteColumnBuilderBase } from 'drizzle-orm/sqlite-core'
import { devices } from '../devices/devices.table'
import { COUNTER_FIELDS, FIELDS, TIERS, rawTable, tierTable, type MetricKind } from './metrics.fields'

/**
 * Raw samples: an integer rowid (the record id), the device's integer `seq` (not its 36-char
 * id: the (device, ts) index is the largest structure on disk), the time, the hot numeric
 * fields as columns and the rest as JSON text. Deleting a device cascades here.
 */
function rawSamples(kind: MetricKind) {
  const cols: Record<string, SQLiteColumnBuilderBase> = {}
  for (const f of FIELDS[kind]) cols[f.name] = f.integer ? integer(f.name) : real(f.name)
  return sqliteTable(
    rawTable(kind),
    {
      id: integer('id').primaryKey(),
      deviceSeq: integer('device_seq').notNull().references(() => devices.seq, { onDelete: 'cascade' }),
      ts: integer('ts').notNull(),
      ...cols,
      /** every non-hot field as sent (JSON object), null when there is none */
      rest: text('rest'),
    },
    (t) => [index(`${rawTable(kind)}_device_ts`).on(t.deviceSeq, t.ts)],
  )
}

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
      deviceSeq: integer('device_seq').notNull().references(() => devices.seq, { onDelete: 'cascade' }),
      bucket: integer('bucket').notNull(),
      n: integer('n').notNull(),
      ...cols,
    },
    (t) => [primaryKey({ columns: [t.deviceSeq, t.bucket] })],
  )
}

export const metricHw = rawSamples('hardware')
export const metricNet = rawSamples('network')
export const metricHw1m = tier('hardware', TIERS[0]!.name)
export const metricHw10m = tier('hardware', TIERS[1]!.name)
export const metricHw1h = tier('hardware', TIERS[2]!.name)
export const metricHw1d = tier('hardware', TIERS[3]!.name)
export const metricNet1m = tier('network', TIERS[0]!.name)
export const metricNet10m = tier('network', TIERS[1]!.name)
export const metricNet1h = tier('network', TIERS[2]!.name)
export const metricNet1d = tier('network', TIERS[3]!.name)

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
