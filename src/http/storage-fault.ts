import { classifyDbError } from '../db/db-errors'
import type { StorageHealth } from '../db/storage-health'
import { AppError } from './errors'
import { isPostgresUnreachable } from '../db/pg/connection'

/** a full or failing disk may be fixed by freeing space: clients (the collector's queue) come back then */
const RETRY_AFTER_S = '60'
/** PostgreSQL restarted or failed over is usually back within seconds */
const UNREACHABLE_RETRY_S = '5'

/**
 * A thrown storage fault (damaged file, full or failing disk) as the AppError the client gets,
 * recorded for /health; null for any other error. Whatever the request wrote was rolled back
 * with its transaction, so the answer says "nothing was changed" and is never a 2xx.
 */
export function storageFaultError(err: unknown, health: StorageHealth | undefined, now: number): AppError | null {
  // PostgreSQL out of reach: /health probes it itself, and says it is back as soon as it is
  if (isPostgresUnreachable(err))
    return new AppError('database_unavailable', 'The database cannot be reached; nothing was changed', undefined, { 'retry-after': UNREACHABLE_RETRY_S })
  const kind = classifyDbError(err)
  if (!kind) return null
  health?.record(kind, (err as Error).message, now)
  if (kind === 'corrupt') return new AppError('database_corrupt', 'The database file is damaged; the operator has to restore a backup')
  const retry = { 'retry-after': RETRY_AFTER_S }
  if (kind === 'full') return new AppError('storage_full', "The server's disk is full; nothing was written", undefined, retry)
  return new AppError('storage_error', 'The server could not read or write its database; nothing was changed', undefined, retry)
}
