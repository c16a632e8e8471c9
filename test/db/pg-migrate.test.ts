import { afterAll, describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { SQL } from 'bun'
import { is } from 'drizzle-orm'
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteConfig } from 'drizzle-orm/sqlite-core'
import { MigrationError } from '../../src/db/migrate'
import { migratePostgres, migrationStatusPostgres } from '../../src/db/pg/migrate'
import { MIGRATIONS } from '../../src/db/pg/migrations.gen'
import { pgTablesFromSqlite, sqliteTables, TABLE_MODULES } from '../../src/db/pg/schema'
import * as generated from '../../src/db/pg/twins.table'
import { type FreshDatabase, postgresForTests } from '../helpers/postgres'

const root = join(import.meta.dir, '../..')
const pg = postgresForTests()
const made: FreshDatabase[] = []
afterAll(async () => {
  for (const db of made) await db.drop()
})

/** the tables of src/db/pg/<name>.table.ts beside the twins: coordination between hubs, PostgreSQL only */
async function pgOnlyTables() {
  const files = readdirSync(join(root, 'src/db/pg')).filter((f) => f.endsWith('.table.ts') && f !== 'twins.table.ts')
  const modules = await Promise.all(files.map((f) => import(join(root, 'src/db/pg', f))))
  return modules.flatMap((m) =>
    Object.values(m)
      .filter((v) => is(v, PgTable))
      .map((t) => pgConfig(t as PgTable).name),
  )
}

describe('the PostgreSQL schema comes from the SQLite table files', () => {
  test('every table file is a source of the schema (run `bun run db:generate` if not)', () => {
    const files = readdirSync(join(root, 'src/modules'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) =>
        readdirSync(join(root, 'src/modules', d.name))
          .filter((f) => f.endsWith('.table.ts'))
          .map(() => d.name),
      )
    expect(Object.keys(TABLE_MODULES).sort()).toEqual([...new Set(files)].sort())
    expect(Object.keys(generated).sort()).toEqual([...sqliteTables().keys()].sort())
  })

  test('each twin has the same columns, nullability, keys and index names', () => {
    const twins = pgTablesFromSqlite()
    for (const [name, table] of sqliteTables()) {
      const s = sqliteConfig(table)
      const p = pgConfig(twins.get(name)!)
      expect(p.columns.map((c) => [c.name, c.notNull, c.primary])).toEqual(s.columns.map((c) => [c.name, c.notNull, c.primary]))
      expect(p.primaryKeys.map((k) => k.columns.map((c) => c.name))).toEqual(s.primaryKeys.map((k) => k.columns.map((c) => c.name)))
      expect(p.foreignKeys.length).toBe(s.foreignKeys.length)
      const pgIndexes = [...p.indexes.map((i) => i.config.name), ...p.uniqueConstraints.map((u) => u.name)].sort()
      expect(pgIndexes).toEqual(s.indexes.map((i) => i.config.name).sort())
    }
  })

  test('the embedded list matches drizzle-kit’s journal for PostgreSQL', async () => {
    const journal = await Bun.file(join(root, 'migrations-pg/meta/_journal.json')).json()
    expect(MIGRATIONS.map((m) => m.tag)).toEqual(journal.entries.map((e: { tag: string }) => e.tag))
  })
})

describe('PostgreSQL migrations, on a real server', () => {
  test.skipIf(!pg.url)(`a fresh database gets every table, once; a second run applies nothing ${pg.skipReason}`, async () => {
    const db = await pg.freshDatabase()
    made.push(db)
    const sql = new SQL(db.url, { max: 2 })
    try {
      expect(await migratePostgres(sql, 1_000)).toEqual(MIGRATIONS.map((m) => m.tag))
      expect(await migratePostgres(sql, 2_000)).toEqual([])
      const tables: { name: string }[] = await sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`
      expect(tables.map((t) => t.name).sort()).toEqual([...sqliteTables().keys(), ...(await pgOnlyTables()), '__vigil_migrations'].sort())
      expect((await migrationStatusPostgres(sql)).every((m) => m.applied && m.appliedAt === 1_000)).toBe(true)
      // an INTEGER PRIMARY KEY numbers its rows as SQLite's does, and a foreign key holds
      await sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'Acme', 1, 1)`
      const [row] = await sql`INSERT INTO device_seqs DEFAULT VALUES RETURNING seq`
      expect(Number(row.seq)).toBe(1)
      await expect(
        sql`INSERT INTO api_keys (id, client_id, name, key_prefix, key_hash, scopes, created_at) VALUES ('k', 'nope', 'n', 'p', 'h', '[]', 1)`,
      ).rejects.toThrow(/foreign key/)
    } finally {
      await sql.close()
    }
  })

  test.skipIf(!pg.url)(`metric_late as hubs of the release before made it at run time is taken over, its span kept ${pg.skipReason}`, async () => {
    const db = await pg.freshDatabase()
    made.push(db)
    const sql = new SQL(db.url, { max: 1 })
    try {
      const before = MIGRATIONS.filter((m) => m.tag !== '0011_metric_late')
      await migratePostgres(sql, 1, before)
      await sql`CREATE TABLE IF NOT EXISTS metric_late (kind text PRIMARY KEY, from_ts bigint NOT NULL, to_ts bigint NOT NULL)`
      await sql`INSERT INTO metric_late VALUES ('hardware', 10, 20)`
      expect(await migratePostgres(sql, 2)).toEqual(['0011_metric_late'])
      const rows = await sql`SELECT kind, from_ts::int AS "from", to_ts::int AS "to", rolling_from, rolling_to FROM metric_late`
      expect([...rows]).toEqual([{ kind: 'hardware', from: 10, to: 20, rolling_from: null, rolling_to: null }])
      // the writers' columns may be empty now: a run claimed their span
      await sql`UPDATE metric_late SET rolling_from = from_ts, rolling_to = to_ts, from_ts = NULL, to_ts = NULL`
    } finally {
      await sql.close()
    }
  })

  test.skipIf(!pg.url)(`hubs starting together apply each migration once ${pg.skipReason}`, async () => {
    const db = await pg.freshDatabase()
    made.push(db)
    const hubs = [0, 1, 2].map(() => new SQL(db.url, { max: 1 }))
    try {
      const applied = await Promise.all(hubs.map((h, i) => migratePostgres(h, 10 + i)))
      expect(applied.flat().sort()).toEqual(MIGRATIONS.map((m) => m.tag).sort())
      const [{ n }] = await hubs[0]!`SELECT count(*)::int AS n FROM __vigil_migrations`
      expect(n).toBe(MIGRATIONS.length)
    } finally {
      for (const h of hubs) await h.close()
    }
  })

  test.skipIf(!pg.url)(`a failing migration leaves nothing behind; a newer database is refused ${pg.skipReason}`, async () => {
    const db = await pg.freshDatabase()
    made.push(db)
    const sql = new SQL(db.url, { max: 1 })
    try {
      const broken = [...MIGRATIONS, { tag: '9999_broken', sql: 'CREATE TABLE x (a int);--> statement-breakpoint\nSELECT nope FROM nowhere;' }]
      await expect(migratePostgres(sql, 1, broken)).rejects.toThrow(/9999_broken failed, nothing was applied/)
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`
      expect(n).toBe(0)
      await migratePostgres(sql, 1)
      await sql`INSERT INTO __vigil_migrations (tag, hash, applied_at) VALUES ('9999_future', 'h', 1)`
      const refused = migratePostgres(sql, 2)
      await expect(refused).rejects.toBeInstanceOf(MigrationError)
      await expect(refused).rejects.toThrow(/newer Vigil/)
    } finally {
      await sql.close()
    }
  })
})
