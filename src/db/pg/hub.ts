import type { SQL } from 'bun'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { systemTimers, type Timers } from '../../lib/timers'
import { redactUrl } from '../../lib/url-secrets'
import { hubName, postgresJobClaims } from '../../jobs/claims.pg'
import type { JobClaims } from '../../jobs/claims'
import { MigrationError } from '../migrate'
import type { DbHandle } from '../connection'
import { describePostgresError, openPostgres } from './connection'
import { migratePostgres } from './migrate'
import { noSqliteHandle } from './no-sqlite'
import { type PgPeerLink, pgPeerLink } from './notify'

/** how long a stopping hub waits for its last messages to the other hubs to go out */
export const FLUSH_ON_CLOSE_MS = 2_000

/** What a hub on PostgreSQL runs on: the pool, the link to the other hubs, and its share of the jobs. */
export interface PostgresHub {
  sql: SQL
  /** stands in for the SQLite file a hub on PostgreSQL does not have (no-sqlite.ts) */
  db: DbHandle
  peers: PgPeerLink
  claims: JobClaims
  /** stops listening to the other hubs and closes the pool: after the app and its workers stopped */
  close(): Promise<void>
}

export interface PostgresHubOptions {
  url: string
  pool: number
  logger: Logger
  clock: Clock
  timers?: Timers
  /** names this hub in job_runs; default host and process id */
  hub?: string
}

/**
 * Opens a hub's PostgreSQL side: the pool, the schema brought up to date (under the migrations'
 * advisory lock: hubs starting together apply each migration once), the LISTEN/NOTIFY link to the
 * other hubs, and the job claims taken in `job_runs`. Throws `HubOpenError` (one line, no
 * password) when the server cannot be reached or the schema cannot be brought up to date; what it
 * opened is closed again.
 */
export async function openPostgresHub(o: PostgresHubOptions): Promise<PostgresHub> {
  const sql = openPostgres({ url: o.url, pool: o.pool })
  let peers: PgPeerLink | null = null
  try {
    const applied = await migrateOrExplain(sql, o.url, o.clock.now())
    if (applied.length) o.logger.info('migrations applied', { migrations: applied, database: redactUrl(o.url) })
    peers = await pgPeerLink(sql, { logger: o.logger, clock: o.clock, timers: o.timers })
  } catch (err) {
    await sql.close().catch(() => {})
    throw err
  }
  const link = peers
  return {
    sql,
    db: noSqliteHandle(),
    peers: link,
    claims: postgresJobClaims(sql, { hub: o.hub ?? hubName() }),
    async close() {
      // what this hub told the others last (a session signed out as it stopped) still goes out,
      // unless the database does not take it in time
      let cancel = () => {}
      const bound = new Promise<void>((resolve) => {
        cancel = (o.timers ?? systemTimers).after(FLUSH_ON_CLOSE_MS, resolve)
      })
      await Promise.race([link.flushed().catch(() => {}), bound])
      cancel()
      await link.close().catch(() => {})
      await sql.close().catch(() => {})
    },
  }
}

/** A hub that cannot open its database must say why in one line and stop. */
export class HubOpenError extends Error {
  override name = 'HubOpenError'
}

async function migrateOrExplain(sql: SQL, url: string, now: number): Promise<string[]> {
  try {
    await sql`SELECT 1`
  } catch (err) {
    throw new HubOpenError(describePostgresError(err, url))
  }
  try {
    return await migratePostgres(sql, now)
  } catch (err) {
    if (err instanceof MigrationError) throw new HubOpenError(`${redactUrl(url)}: ${err.message}`)
    throw new HubOpenError(describePostgresError(err, url))
  }
}
