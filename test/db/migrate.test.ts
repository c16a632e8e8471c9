import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { openDatabase, quickCheck } from '../../src/db/connection'
import { migrate, migrationStatus, MigrationError } from '../../src/db/migrate'
import { MIGRATIONS } from '../../src/db/migrations.gen'

const tables = (db: ReturnType<typeof openDatabase>) =>
  db.sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name)

describe('migrations', () => {
  test('a fresh database gets every migration, once', () => {
    const db = openDatabase(':memory:')
    expect(migrate(db.sqlite, 1)).toEqual(MIGRATIONS.map((m) => m.tag))
    expect(tables(db)).toContain('users')
    expect(migrate(db.sqlite, 2)).toEqual([])
    expect(migrationStatus(db.sqlite).every((m) => m.applied && m.appliedAt === 1)).toBe(true)
  })

  test('an already-migrated file on disk is left alone on reopen', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'vigil-mig-')), 'vigil.db')
    const first = openDatabase(path)
    migrate(first.sqlite, 1)
    first.sqlite.run("INSERT INTO clients (id, created_at, updated_at) VALUES ('c1', 1, 1)")
    first.close()
    const again = openDatabase(path)
    expect(migrate(again.sqlite, 2)).toEqual([])
    expect(again.sqlite.query('SELECT id FROM clients').all()).toEqual([{ id: 'c1' }])
    expect(quickCheck(again.sqlite)).toBeNull()
    expect(again.sqlite.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get()!.journal_mode).toBe('wal')
    expect(again.sqlite.query<{ foreign_keys: number }, []>('PRAGMA foreign_keys').get()!.foreign_keys).toBe(1)
    again.close()
  })

  test('a failing migration leaves the database exactly as it was', () => {
    const db = openDatabase(':memory:')
    const broken = [
      { tag: '0000_ok', sql: 'CREATE TABLE a (id INTEGER);\n--> statement-breakpoint\nCREATE TABLE b (id INTEGER);' },
      { tag: '0001_bad', sql: 'CREATE TABLE c (id INTEGER);\n--> statement-breakpoint\nCREATE TABLE a (id INTEGER);' },
    ]
    expect(() => migrate(db.sqlite, 1, broken)).toThrow(MigrationError)
    expect(() => migrate(db.sqlite, 1, broken)).toThrow(/migration 0001_bad failed, nothing was applied/)
    expect(tables(db)).toEqual(['__vigil_migrations'])
    expect(migrationStatus(db.sqlite, broken).some((m) => m.applied)).toBe(false)
  })

  test('a database migrated by a newer version is refused', () => {
    const db = openDatabase(':memory:')
    migrate(db.sqlite, 1)
    db.sqlite.run("INSERT INTO __vigil_migrations (tag, hash, applied_at) VALUES ('9999_future', 'x', 1)")
    expect(() => migrate(db.sqlite, 2)).toThrow(/newer Vigil/)
  })

  test('the embedded list matches drizzle-kit’s journal (run `bun run db:generate` if not)', async () => {
    const journal = await Bun.file(join(import.meta.dir, '../../migrations/meta/_journal.json')).json()
    expect(MIGRATIONS.map((m) => m.tag)).toEqual(journal.entries.map((e: { tag: string }) => e.tag))
  })
})
