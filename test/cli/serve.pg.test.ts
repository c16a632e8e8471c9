/**
 * What `vigil serve` runs on when VIGIL_DATABASE_URL is set (src/db/pg/hub.ts, src/cli/serve.engine.ts),
 * in process on a fresh migrated PostgreSQL database: the refusal in serve.ts stands in front of it
 * until every store runs on PostgreSQL.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { backupCommand, restoreCommand } from '../../src/cli/backup'
import { StartupError } from '../../src/cli/errors'
import { openServeEngine } from '../../src/cli/serve.engine'
import { backupJobs } from '../../src/composition/backups'
import { createApp } from '../../src/app'
import { loadConfig, testConfig } from '../../src/config'
import { HubOpenError, openPostgresHub } from '../../src/db/pg/hub'
import { NoSqliteError, noSqliteHandle } from '../../src/db/pg/no-sqlite'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import { freePort, tempDir } from '../helpers/binary'
import { TEST_JWT_SECRET } from '../helpers/app'
import { postgresForTests } from '../helpers/postgres'

const pg = postgresForTests()
const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo()
}, 60_000)

async function freshHub(name: string, url: string) {
  const { logger, lines } = memoryLogger()
  const hub = await openPostgresHub({ url, pool: 2, logger, clock: manualClock(), hub: name })
  cleanup.push(() => hub.close())
  return { hub, lines }
}

async function freshUrl() {
  const fresh = await pg.freshDatabase('vigil_serve')
  cleanup.push(() => fresh.drop())
  return fresh.url
}

describe('a hub on PostgreSQL', () => {
  test.skipIf(!pg.url)(
    `opening migrates the database once for hubs starting together, and has no SQLite ${pg.skipReason}`,
    async () => {
      const url = await freshUrl()
      const [a, b] = await Promise.all([freshHub('a', url), freshHub('b', url)])
      const applied = [a, b].flatMap((h) => h.lines.filter((l) => l.includes('migrations applied')))
      expect(applied).toHaveLength(1)
      const [{ n }] = await a.hub.sql`SELECT count(*)::int AS n FROM __vigil_migrations`
      expect(n).toBeGreaterThan(0)
      expect(() => a.hub.db.sqlite.query('SELECT 1').get()).toThrow(NoSqliteError)
    },
    60_000,
  )

  test.skipIf(!pg.url)(
    `two hubs: a scheduled run is claimed by one of them, and a message one sends the other hears ${pg.skipReason}`,
    async () => {
      const url = await freshUrl()
      const [a, b] = await Promise.all([freshHub('a', url), freshHub('b', url)])
      const slot = Date.UTC(2026, 0, 1, 12, 0, 15)
      const wins = await Promise.all([a.hub.claims.claim('metrics.rollup', slot, slot), b.hub.claims.claim('metrics.rollup', slot, slot)])
      expect(wins.filter(Boolean)).toHaveLength(1)
      // messages of several payloads each, sent just before the hub stops: all of them still go out
      const COUNT = 40
      const heard: number[] = []
      const all = new Promise<void>((resolve) =>
        b.hub.peers.on('test.topic', (body) => {
          heard.push((body as { n: number }).n)
          if (heard.length === COUNT) resolve()
        }),
      )
      for (let n = 0; n < COUNT; n++) a.hub.peers.send('test.topic', 'client-1', JSON.stringify({ n, pad: 'x'.repeat(6_000) }))
      await a.hub.close()
      await all
      expect(heard).toEqual(Array.from({ length: COUNT }, (_, n) => n))
    },
    60_000,
  )

  test.skipIf(!pg.url)(
    `an unreachable server or a wrong password: one line naming the server without its password, nothing left open ${pg.skipReason}`,
    async () => {
      const { logger } = memoryLogger()
      const refused = `postgres://vigil:hunter22@127.0.0.1:${freePort()}/vigil`
      const e1 = await openPostgresHub({ url: refused, pool: 1, logger, clock: manualClock() }).catch((e) => e)
      expect(e1).toBeInstanceOf(HubOpenError)
      expect(e1.message).toContain('connection refused')
      expect(e1.message).not.toContain('hunter22')
      const wrong = new URL(await freshUrl())
      wrong.password = 'not-the-password'
      const e2 = await openPostgresHub({ url: wrong.toString(), pool: 1, logger, clock: manualClock() }).catch((e) => e)
      expect(e2).toBeInstanceOf(HubOpenError)
      expect(e2.message).not.toContain('not-the-password')
    },
    60_000,
  )

  test.skipIf(!pg.url)(
    `serve's engine on PostgreSQL: no data-dir lock nor SQLite file, claims across hubs, and a warning when the jwt-secret is this hub's alone ${pg.skipReason}`,
    async () => {
      const url = await freshUrl()
      const dir = tempDir('vigil-serve-pg-')
      const config = loadConfig({ VIGIL_DATABASE_URL: url, VIGIL_DATA_DIR: `${dir}/data`, VIGIL_LOG_FORMAT: 'json' })
      const { logger, lines } = memoryLogger()
      const engine = await openServeEngine(config, logger, manualClock())
      cleanup.push(() => engine.close(() => {}))
      const again = await openServeEngine(config, logger, manualClock()) // a second hub on the same data dir is not locked out
      cleanup.push(() => again.close(() => {}))
      expect(engine.name).toBe('postgresql')
      expect(engine.pg).not.toBeNull()
      expect(await Bun.file(`${dir}/data/vigil.db`).exists()).toBe(false)
      expect(lines.some((l) => l.includes('every hub on this database must have the same one'))).toBe(true)
      expect(
        backupJobs({ config: { ...config, backup: { ...config.backup, schedule: '0 47 3 * * *' } }, db: engine.db, clock: manualClock(), logger }),
      ).toEqual([])
    },
    60_000,
  )
})

describe('the SQLite stand-in of a hub on PostgreSQL', () => {
  test('a statement may be made but not run; a transaction may be wrapped but not run; the error names the statement', () => {
    const db = noSqliteHandle()
    const stmt = db.sqlite.query('SELECT id FROM alert_rules WHERE client_id = ?')
    expect(() => stmt.all('c1')).toThrow('no SQLite on a PostgreSQL hub: the statement "SELECT id FROM alert_rules')
    const tx = db.sqlite.transaction(() => 1)
    expect(() => tx()).toThrow(NoSqliteError)
    expect(() => db.sqlite.run('DELETE FROM devices')).toThrow('sqlite.run(), the statement "DELETE FROM devices", reached')
    expect(() => db.sqlite.exec('PRAGMA optimize')).toThrow(NoSqliteError)
    db.close()
  })
})

describe('vigil backup and restore with VIGIL_DATABASE_URL', () => {
  test('refuse in one line that points to pg_dump or pg_restore, without the password', () => {
    const config = testConfig({ database: { url: 'postgres://vigil:hunter22@db:5432/vigil', pool: 4 } })
    for (const [run, tool] of [
      [() => backupCommand(config, '/tmp/x.db'), 'pg_dump'],
      [() => restoreCommand(config, '/tmp/x.db'), 'pg_restore'],
    ] as const) {
      let err: unknown
      try {
        run()
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(StartupError)
      expect((err as Error).message).toContain(tool)
      expect((err as Error).message).not.toContain('hunter22')
    }
  })
})

describe('createApp on a PostgreSQL hub', () => {
  test.skipIf(!pg.url)(`builds on the hub with no SQLite and answers /health ${pg.skipReason}`, async () => {
    const url = await freshUrl()
    const { logger } = memoryLogger()
    const hub = await openPostgresHub({ url, pool: 2, logger, clock: manualClock() })
    cleanup.push(() => hub.close())
    const app = createApp({
      config: testConfig({ database: { url, pool: 2 } }),
      db: hub.db,
      pg: hub.sql,
      peers: hub.peers,
      clock: manualClock(),
      logger,
      jwtSecret: TEST_JWT_SECRET,
    })
    const res = await app.handle(new Request('http://localhost/health'))
    expect(res.status).toBe(200)
  })
})
