import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'

const Bytes = Type.Integer({ minimum: 0 })
const Tier = t.Union([t.Literal('raw'), t.Literal('1m'), t.Literal('10m'), t.Literal('1h'), t.Literal('1d')])

export const StorageTier = t.Object({
  tier: t.Union([Tier], { description: 'raw samples, or a rollup tier by its bucket (1m, 10m, 1h, 1d)' }),
  bytes: t.Union([Bytes], { description: 'pages its tables and their indexes use' }),
  oldest_at: t.Nullable(t.String({ description: 'the time of the oldest data it holds for any device; null when empty' })),
})

export const StorageReport = t.Object({
  measured_at: t.Nullable(
    t.String({ description: 'when the space per tier was measured (a job does it hourly, and after every pruning); null before the first measure' }),
  ),
  database_bytes: t.Union([Bytes], {
    description:
      'the space the data takes now: on SQLite the pages the database uses (its file without the free pages) and the sealed blocks’ and newest samples’ files beside it; on PostgreSQL its database size',
  }),
  tiers: t.Array(StorageTier, { description: 'the metric tiers, finest first: the order the budget prunes them in' }),
  rest_bytes: t.Union([Bytes], { description: 'everything else in the database: accounts, devices, alerts, deliveries…' }),
  budget: t.Nullable(
    t.Object(
      {
        setting: t.String({ description: 'VIGIL_STORAGE_BUDGET as set: a size, or a share of the data dir’s disk' }),
        bytes: t.Union([Bytes], { description: 'the budget in bytes (a share is taken of the disk’s size)' }),
        used_ratio: t.Number({ description: 'database_bytes over the budget: pruning starts above 1 and brings it to 0.95' }),
        raw_days_held: t.Nullable(
          t.Number({
            description: 'days of raw samples the budget holds at the current rate, beside everything else; null before an hour of raw data is stored',
          }),
        ),
        short_bytes: t.Union([Bytes], {
          description:
            'while what is never pruned does not fit the budget (the warning says so): how far over it the data is now; 0 otherwise (see docs/operations.md)',
        }),
      },
      { description: 'null when VIGIL_STORAGE_BUDGET is unset' },
    ),
  ),
  disk: t.Object({
    total_bytes: Bytes,
    available_bytes: Bytes,
    used_ratio: t.Number({ description: 'as df counts it' }),
    warn_ratio: t.Number({ description: 'VIGIL_STORAGE_DISK_WARN: from this share in use the hub warns' }),
  }),
  last_prune: t.Nullable(
    t.Object({
      at: t.String(),
      deleted_rows: Type.Integer({ minimum: 0 }),
      tiers: t.Array(Tier, { description: 'the tiers it took data from, in order' }),
    }),
  ),
  warning: t.Nullable(t.String({ description: 'what needs the operator: the disk nearly full, or a budget smaller than what is never pruned' })),
})

export type StorageReport = Static<typeof StorageReport>
