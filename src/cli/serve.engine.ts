import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { SQL } from 'bun'
import type { Config } from '../config'
import type { DbHandle } from '../db/connection'
import { BULK_WAL_BOUND_BYTES, walBoundedPause } from '../db/bulk-pause'
import { yieldToRequests } from '../lib/yield'
import { startCheckpointer } from '../db/checkpointer'
import { walInUseBytes } from '../db/wal'
import { HubOpenError, openPostgresHub } from '../db/pg/hub'
import { localJobClaims, type JobClaims } from '../jobs/claims'
import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import type { PeerLink } from '../lib/peer-link'
import { redactUrl } from '../lib/url-secrets'
import { lockForService, openAndMigrate } from './open'
import { StartupError } from './errors'

/**
 * how often the WAL is copied back into the database: a page written by many commits in between
 * (the hot table's last page, the database header) is copied once per checkpoint, so every 5 s
 * rather than every second writes fewer bytes per sample (measured in docs/storage.md);
 * the WAL holds about 5 s of writes
 */
const CHECKPOINT_EVERY_MS = 5_000

/**
 * What `vigil serve` runs on, one per engine: the database handles createApp takes, which
 * scheduled runs are this hub's, and the engine's own upkeep. SQLite: the data dir's file under
 * its lock, every run this hub's, the checkpointer. PostgreSQL: the pool, the other hubs over
 * LISTEN/NOTIFY, runs claimed once across the hubs; no SQLite file, no data-dir lock, no
 * checkpointer, no scheduled backups (pg_dump's job).
 */
export interface ServeEngine {
  name: 'sqlite' | 'postgresql'
  db: DbHandle
  pg: SQL | null
  peers?: PeerLink
  claims: JobClaims
  /**
   * the pause between the bounded steps of a long run of writes (pruning, vacuuming, rollups):
   * on SQLite it also keeps the WAL within a bound (db/bulk-pause.ts)
   */
  bulkPause: () => Promise<void>
  /** once the app is built: the engine's upkeep (`holdWrites` pauses the metric group commit) */
  start(holdWrites: () => () => void): void
  /** after every worker stopped; `warn` hears what could not be closed cleanly */
  close(warn: (what: string, err: Error) => void): Promise<void>
}

export async function openServeEngine(config: Config, logger: Logger, clock: Clock): Promise<ServeEngine> {
  return config.database.url === null ? sqliteEngine(config, logger, clock) : await postgresEngine(config, config.database.url, logger, clock)
}

function sqliteEngine(config: Config, logger: Logger, clock: Clock): ServeEngine {
  const lock = lockForService(config, clock.now(), 'stop it first, or give this one its own --data-dir')
  let db: DbHandle
  try {
    db = openAndMigrate(config, logger, clock.now())
  } catch (err) {
    lock.release()
    throw err
  }
  let checkpointer: ReturnType<typeof startCheckpointer> | null = null
  return {
    name: 'sqlite',
    db,
    pg: null,
    // one hub on SQLite: every scheduled run is this hub's (src/jobs/claims.ts)
    claims: localJobClaims,
    // before the checkpointer starts (nothing written yet) a turn of the event loop is all it can be
    bulkPause: walBoundedPause({
      inUseBytes: () => walInUseBytes(db.sqlite.filename),
      boundBytes: BULK_WAL_BOUND_BYTES,
      catchUp: () => checkpointer?.catchUp() ?? Promise.resolve(),
    }),
    start(holdWrites) {
      // the metric group commit is where the write volume is; the rare other writes are never held
      checkpointer = startCheckpointer({ sqlite: db.sqlite, synchronous: config.synchronous, holdWrites, logger, everyMs: CHECKPOINT_EVERY_MS })
    },
    async close(warn) {
      await checkpointer?.stop().catch((err: Error) => warn('checkpoint thread did not close cleanly', err))
      db.close(warn)
      lock.release()
    },
  }
}

async function postgresEngine(config: Config, url: string, logger: Logger, clock: Clock): Promise<ServeEngine> {
  let hub: Awaited<ReturnType<typeof openPostgresHub>>
  try {
    hub = await openPostgresHub({ url, pool: config.database.pool, logger, clock })
  } catch (err) {
    if (err instanceof HubOpenError) throw new StartupError(err.message)
    throw err
  }
  logger.info('serving from PostgreSQL', { database: redactUrl(url), pool: config.database.pool, hub: hub.peers.origin })
  // every hub must sign and check access tokens with one secret: a file made here now is this hub's alone
  if (config.jwtSecret === null && !existsSync(join(config.dataDir, 'jwt-secret'))) {
    logger.warn(
      'this hub makes a new jwt-secret in its data dir: every hub on this database must have the same one (copy the file to the others, or set VIGIL_JWT_SECRET on all), and the same secret.key (or VIGIL_SECRET_KEY)',
      { data_dir: config.dataDir },
    )
  }
  return {
    name: 'postgresql',
    db: hub.db,
    pg: hub.sql,
    peers: hub.peers,
    claims: hub.claims,
    bulkPause: yieldToRequests,
    start() {},
    async close() {
      await hub.close()
    },
  }
}
