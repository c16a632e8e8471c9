import type { Static } from 'elysia'
import type { InstanceMode, SignupPolicy } from '../../config'
import { classifyDbError } from '../../db/db-errors'
import type { IntegrityScan } from '../../db/integrity'
import type { StorageHealth } from '../../db/storage-health'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { VERSION } from '../../version'
import type { HealthResponse } from './health.model'
import type { HealthStore } from './health.store'
import { DatabaseUnavailable } from './health.store.pg'

export interface HealthDeps {
  store: HealthStore
  /** storage faults on record (damaged file, full disk, I/O errors) */
  storage: StorageHealth
  /** the SQLite file's integrity scan; none on PostgreSQL, which checks its own pages */
  scan: IntegrityScan | null
  clock: Clock
  logger: Logger
  startedAt: number
  /** what the portal adapts to before anyone signs in: billing shown or not, sign-up offered or not */
  instance: { mode: InstanceMode; signup: SignupPolicy }
  /** whether a registration with these headers would need the setup token (the users domain decides) */
  setupTokenRequired(headers: Headers): boolean
  /** the storage module's warning: the data dir's disk nearly full, or a budget too small */
  storageWarning(): string | null
  /** devices whose older samples are still being converted into the long-lived form (the metrics module) */
  convertingDevices?: () => number
}

type DatabaseState = Static<typeof HealthResponse>['database']

/** The database as /health reports it: the connection answers, and no storage fault is on record. */
async function databaseState(deps: HealthDeps): Promise<DatabaseState> {
  const now = deps.clock.now()
  try {
    await deps.store.ping()
  } catch (err) {
    const kind = classifyDbError(err)
    if (kind) deps.storage.record(kind, (err as Error).message, now)
    else {
      // PostgreSQL's spell of silence is dated from its first failed ping; anything else from now
      const since = err instanceof DatabaseUnavailable ? err.since : now
      return { ok: false, fault: 'unavailable', message: (err as Error).message, since: new Date(since).toISOString() }
    }
  }
  const fault = deps.storage.current(now)
  return fault ? { ok: false, fault: fault.kind, message: fault.message, since: new Date(fault.at).toISOString() } : { ok: true }
}

export async function healthReport(deps: HealthDeps, headers: Headers): Promise<Static<typeof HealthResponse>> {
  const database = await databaseState(deps)
  return {
    status: database.ok ? 'ok' : 'degraded',
    version: VERSION,
    uptime_seconds: Math.floor((deps.clock.now() - deps.startedAt) / 1000),
    mode: deps.instance.mode,
    signup: deps.instance.signup,
    setup_token_required: deps.setupTokenRequired(headers),
    database,
    storage: { warning: deps.storageWarning(), ...conversion(deps) },
  }
}

/** The conversion's progress; left out when it cannot be told (before its first look it counts the devices, which a database that does not answer cannot). */
function conversion(deps: HealthDeps): { converting_devices?: number } {
  if (!deps.convertingDevices) return {}
  try {
    return { converting_devices: deps.convertingDevices() }
  } catch {
    return {} // the database's state above says why
  }
}

/**
 * The database's size (and on PostgreSQL its connections), for the operator's GET /v1/admin/stats
 * and the /metrics scrape: on PostgreSQL as last read, at most STATS_REFRESH_MS old when asked often.
 */
export const databaseStats = (deps: Pick<HealthDeps, 'store'>) => deps.store.stats()
