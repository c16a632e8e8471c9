/**
 * Both engines for a store's contract test: SQLite in memory with the real migrations, and
 * PostgreSQL on a fresh migrated database of its own (skipped, saying why, without
 * VIGIL_TEST_PG_URL). A contract test runs the same cases on each and expects the same answers:
 *
 *   for (const engine of ENGINES) describe(engine.name, () => {
 *     const db = engine.lifecycle()
 *     test.skipIf(engine.skip)(`… ${engine.skipReason}`, async () => { const store = engine.sqlite ? … ; … })
 *   })
 */
import { afterAll, beforeAll } from 'bun:test'
import type { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { openPostgres } from '../../src/db/pg/connection'
import { migratePostgres } from '../../src/db/pg/migrate'
import { type FreshDatabase, numbered, postgresForTests } from './postgres'

/** One engine's database for a test file: raw SQL for fixtures, and the handle its store takes. */
export interface EngineDb {
  /** runs SQL with `?` placeholders on either engine (fixture rows a store does not write) */
  exec(text: string, params?: unknown[]): Promise<void>
  /** the rows SQL with `?` placeholders reads, on either engine (int8 columns come back as PostgreSQL's driver gives them) */
  all(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>
  sqlite?: Database
  pg?: SQL
}

export interface Engine {
  name: 'sqlite' | 'postgres'
  skip: boolean
  skipReason: string
  /** opens the engine's database before the file's tests and closes it after; read `.db` inside a test */
  lifecycle(): { readonly db: EngineDb }
}

const pg = postgresForTests()
/** making and migrating a database takes seconds on a busy machine */
const HOOK_TIMEOUT_MS = 60_000

const sqliteEngine: Engine = {
  name: 'sqlite',
  skip: false,
  skipReason: '',
  lifecycle() {
    const handle = openDatabase(':memory:')
    migrate(handle.sqlite, 1)
    const db: EngineDb = {
      sqlite: handle.sqlite,
      async exec(text, params = []) {
        handle.sqlite.run(text, params as never[])
      },
      async all(text, params = []) {
        return handle.sqlite.query(text).all(...(params as never[])) as Record<string, unknown>[]
      },
    }
    afterAll(() => handle.sqlite.close())
    return { db }
  },
}

const postgresEngine: Engine = {
  name: 'postgres',
  skip: !pg.url,
  skipReason: pg.skipReason,
  lifecycle() {
    let fresh: FreshDatabase | undefined
    let sql: SQL | undefined
    const state = { db: undefined as unknown as EngineDb }
    beforeAll(async () => {
      if (!pg.url) return
      fresh = await pg.freshDatabase('vigil_store')
      sql = openPostgres({ url: fresh.url, pool: 4 })
      await migratePostgres(sql, 1)
      const s = sql
      state.db = {
        pg: s,
        async exec(text, params = []) {
          await s.unsafe(numbered(text), params as never[])
        },
        async all(text, params = []) {
          return (await s.unsafe(numbered(text), params as never[])) as Record<string, unknown>[]
        },
      }
    }, HOOK_TIMEOUT_MS)
    afterAll(async () => {
      await sql?.close()
      await fresh?.drop()
    }, HOOK_TIMEOUT_MS)
    return state
  },
}

export const ENGINES: Engine[] = [sqliteEngine, postgresEngine]
