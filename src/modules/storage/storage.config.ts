/**
 * The two storage settings. Parsed here, beside the module that uses them; config.ts calls this
 * with its own error (a bad value is one line on stderr and exit 2, like every other setting).
 */

/** VIGIL_STORAGE_BUDGET: a fixed size, or a share of the file system that holds the data dir. */
export type StorageBudget = { kind: 'bytes'; bytes: number; text: string } | { kind: 'share'; share: number; text: string }

export interface StorageSettings {
  /** null: no budget, only the fixed retention settings prune */
  budget: StorageBudget | null
  /** the share of the data dir's disk in use from which the hub warns (0..1] */
  diskWarnRatio: number
}

/** Decimal units as disks are sold, binary ones as `ls -h` counts; a bare number is bytes. */
const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
}

/** Below this a budget cannot hold even an empty database and a few minutes of samples. */
export const MIN_BUDGET_BYTES = 1_000_000
const MAX_BUDGET_BYTES = 2 ** 53 - 1

export const DEFAULT_DISK_WARN_RATIO = 0.9

type Fail = (message: string) => never

/** `8GB`, `500MiB`, `2000000`, or `25%` of the data dir's file system; empty: no budget. */
export function parseStorageBudget(raw: string | undefined, fail: Fail): StorageBudget | null {
  const v = raw?.trim() ?? ''
  if (v === '') return null
  const share = /^(\d+(?:\.\d+)?)\s*%$/.exec(v)
  if (share) {
    const pct = Number(share[1])
    if (pct <= 0 || pct > 100) fail(`VIGIL_STORAGE_BUDGET as a share of the disk must be above 0% and at most 100%, got "${raw}"`)
    return { kind: 'share', share: pct / 100, text: `${pct}%` }
  }
  const size = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(v)
  const unit = size ? UNITS[size[2]!.toLowerCase()] : undefined
  if (!size || unit === undefined) {
    fail(`VIGIL_STORAGE_BUDGET must be a size such as 8GB, 500MiB or 2000000 (bytes), or a share of the data dir's disk such as 25%, got "${raw}"`)
  }
  const bytes = Math.floor(Number(size[1]) * unit)
  if (bytes < MIN_BUDGET_BYTES) fail(`VIGIL_STORAGE_BUDGET must be at least 1MB, got "${raw}"`)
  if (bytes > MAX_BUDGET_BYTES) fail(`VIGIL_STORAGE_BUDGET is larger than any disk, got "${raw}"`)
  return { kind: 'bytes', bytes, text: v }
}

/** `90%` or `90`: warn when the data dir's disk is this full; default 90%. */
export function parseDiskWarn(raw: string | undefined, fail: Fail): number {
  const v = raw?.trim() ?? ''
  if (v === '') return DEFAULT_DISK_WARN_RATIO
  const m = /^(\d+(?:\.\d+)?)\s*%?$/.exec(v)
  const pct = m ? Number(m[1]) : Number.NaN
  if (!(pct > 0 && pct <= 100)) fail(`VIGIL_STORAGE_DISK_WARN must be a share of the disk in use, above 0% and at most 100%, such as 90%, got "${raw}"`)
  return pct / 100
}

export function storageSettings(budget: string | undefined, diskWarn: string | undefined, fail: Fail): StorageSettings {
  return { budget: parseStorageBudget(budget, fail), diskWarnRatio: parseDiskWarn(diskWarn, fail) }
}

/**
 * A hub on PostgreSQL does not take VIGIL_STORAGE_BUDGET: the budget frees space by deleting the
 * oldest rows and giving SQLite's free pages back to the file system, while PostgreSQL keeps a
 * deleted row's space in its tables for reuse (only VACUUM FULL, which locks them, returns it),
 * and the server's disk is not the data dir's. There the retention settings bound the metrics,
 * and the database's size is watched with PostgreSQL's own figures (GET /v1/admin/storage,
 * /metrics). The one-line reason a hub with both refuses to start; null when it can start.
 */
export function postgresBudgetRefusal(settings: StorageSettings): string | null {
  if (!settings.budget) return null
  return `VIGIL_STORAGE_BUDGET (${settings.budget.text}) applies to the SQLite database only: on PostgreSQL deleting rows does not give their space back to the disk, so Vigil cannot hold a budget there; unset it and bound the data with the VIGIL_RETENTION_* settings (see docs/storage.md)`
}
