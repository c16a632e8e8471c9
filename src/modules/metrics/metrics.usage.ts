import type { Database } from 'bun:sqlite'
import { HOT_TABLES, RAW_TABLE, hotTable, packedTable, tierTable, type LevelName } from './metrics.fields'
import { createBlockStore } from './metrics.block.store'
import { createHotStore } from './metrics.hot.store'
import { RECORDS, REFS } from '../../db/pg/metrics.partitions'

/**
 * The newest samples' records and the sealed blocks live in files beside the database
 * (metrics.hot.log.ts, metrics.block.log.ts): counted in the raw tier under these names, as if
 * they were tables, and in the space the data uses.
 */
export const HOT_RECORD_FILES = 'metric_hot (files)'
export const BLOCK_FILES = 'metric_blocks (files)'

/** The bytes of those files now, by name. */
export const metricFileBytes = (sqlite: Database) => (): Map<string, number> =>
  new Map([
    [HOT_RECORD_FILES, createHotStore(sqlite).stats().bytes],
    [BLOCK_FILES, createBlockStore(sqlite).fileBytes()],
  ])

/**
 * Which tables make up each metric tier, finest first: the order the disk budget prunes them in.
 * The one place that says so: the space per tier (storage.usage.ts) adds these tables' pages
 * (their indexes included), and whatever a new storage format adds to a tier goes in here.
 * Every other table of the database counts as "the rest" (accounts, alerts, deliveries…).
 */
export const STORAGE_TIERS: readonly { tier: LevelName; tables: readonly string[] }[] = [
  // raw samples: their rows, their sealed blocks and minutes (files and their index, BLOBs of an
  // earlier release), and the compact records of the newest ones (docs/storage.md)
  {
    tier: 'raw',
    tables: [
      RAW_TABLE,
      'metric_block_index',
      'metric_block_wipes',
      BLOCK_FILES,
      'metric_blocks',
      'metric_nested',
      ...Array.from({ length: HOT_TABLES }, (_, i) => hotTable(i)),
      HOT_RECORD_FILES,
      // on PostgreSQL: the raw samples' partitioned table (measured as one name) and its references
      RECORDS,
      REFS,
    ],
  },
  { tier: '1m', tables: [packedTable('hardware'), packedTable('network'), tierTable('hardware', '1m'), tierTable('network', '1m')] },
  { tier: '10m', tables: [tierTable('hardware', '10m'), tierTable('network', '10m')] },
  { tier: '1h', tables: [tierTable('hardware', '1h'), tierTable('network', '1h')] },
  { tier: '1d', tables: [tierTable('hardware', '1d'), tierTable('network', '1d')] },
]
