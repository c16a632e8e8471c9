import type { DbFault } from './db-errors'

export interface StorageFault {
  kind: DbFault
  /** SQLite's words for it */
  message: string
  /** when it was last seen (ms) */
  at: number
}

/**
 * The last storage fault the service ran into, for /health. A damaged file stays reported until
 * a restart (only the operator can repair it); a full or failing disk is reported until
 * TRANSIENT_MS pass without it happening again, since freeing space fixes it without a restart.
 */
export interface StorageHealth {
  record(kind: DbFault, message: string, at: number): void
  current(now: number): StorageFault | null
}

export const TRANSIENT_MS = 5 * 60_000

export function storageHealth(): StorageHealth {
  let corrupt: StorageFault | null = null
  let transient: StorageFault | null = null
  return {
    record(kind, message, at) {
      if (kind === 'corrupt') corrupt ??= { kind, message, at }
      else transient = { kind, message, at }
    },
    current(now) {
      if (corrupt) return corrupt
      return transient && now - transient.at < TRANSIENT_MS ? transient : null
    },
  }
}
