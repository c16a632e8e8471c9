import { HOT_TABLES, RAW_TABLE, hotTable, tierTable, type LevelName } from './metrics.fields'

/**
 * Which tables make up each metric tier, finest first: the order the disk budget prunes them in.
 * The one place that says so: the space per tier (storage.usage.ts) adds these tables' pages
 * (their indexes included), and whatever a new storage format adds to a tier goes in here.
 * Every other table of the database counts as "the rest" (accounts, alerts, deliveries…).
 */
export const STORAGE_TIERS: readonly { tier: LevelName; tables: readonly string[] }[] = [
  // raw samples: their rows, their sealed blocks and minutes, and the compact records of the newest ones (docs/storage.md)
  { tier: 'raw', tables: [RAW_TABLE, 'metric_blocks', 'metric_nested', ...Array.from({ length: HOT_TABLES }, (_, i) => hotTable(i))] },
  { tier: '1m', tables: [tierTable('hardware', '1m'), tierTable('network', '1m')] },
  { tier: '10m', tables: [tierTable('hardware', '10m'), tierTable('network', '10m')] },
  { tier: '1h', tables: [tierTable('hardware', '1h'), tierTable('network', '1h')] },
  { tier: '1d', tables: [tierTable('hardware', '1d'), tierTable('network', '1d')] },
]
