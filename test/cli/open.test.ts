import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { closeSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { openAndMigrate } from '../../src/cli/open'
import { StartupError } from '../../src/cli/errors'
import { testConfig } from '../../src/config'
import { createLogger } from '../../src/lib/logger'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-open-')

function setup() {
  const dir = tempDir()
  const lines: string[] = []
  const logger = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(l) })
  const open = () => openAndMigrate(testConfig({ dataDir: dir }), logger, 1)
  const checks = () => lines.filter((l) => l.includes('integrity check')).length
  return { dir, open, checks, dbPath: join(dir, 'vigil.db') }
}

/** Rows enough to give the file a few b-tree pages to damage. */
function fill(db: ReturnType<typeof openAndMigrate>) {
  const insert = db.sqlite.prepare('INSERT INTO clients (id, created_at, updated_at) VALUES (?, 1, 1)')
  db.sqlite.transaction(() => {
    for (let i = 0; i < 2000; i++) insert.run(`cli_${String(i).padStart(6, '0')}_${'x'.repeat(40)}`)
  })()
  insert.finalize()
}

describe('opening the database at start', () => {
  test('after a clean stop the whole-file check is skipped', () => {
    const t = setup()
    const first = t.open()
    fill(first)
    first.close()
    expect(() => statSync(`${t.dbPath}-wal`)).toThrow() // a clean close removes the WAL
    t.open().close()
    expect(t.checks()).toBe(0)
  })

  test('a clean stop closes for real while prepared statements are alive (the metric writer keeps some)', () => {
    const t = setup()
    const db = t.open()
    const insert = db.sqlite.prepare('INSERT INTO clients (id, created_at, updated_at) VALUES (?, 1, 1)')
    insert.run('cli_kept')
    db.close()
    expect(() => statSync(`${t.dbPath}-wal`)).toThrow()
    t.open().close()
    expect(t.checks()).toBe(0)
  })

  test('after an unclean stop (the WAL left behind) the file is checked', () => {
    const t = setup()
    const running = t.open()
    fill(running) // still open, as a killed process leaves it: the WAL holds the rows
    const next = t.open()
    expect(t.checks()).toBe(1)
    next.sqlite.close()
    running.sqlite.close()
  })

  test('a damaged table found after an unclean stop stops the start with the reason', () => {
    const t = setup()
    const first = t.open()
    fill(first)
    const leaf = first.sqlite
      .query<{ pageno: number }, []>("SELECT pageno FROM dbstat WHERE name = 'clients' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 10")
      .get()!.pageno
    const pageSize = first.sqlite.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
    first.close()
    // a crash leaves a WAL behind (here: a connection that wrote and never closed) ...
    const crashed = new Database(t.dbPath)
    crashed.run('PRAGMA user_version = 7')
    // ... and one of the table's pages had been damaged (nothing reads it until the check does)
    const fd = openSync(t.dbPath, 'r+')
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (leaf - 1) * pageSize)
    closeSync(fd)
    expect(() => t.open()).toThrow(StartupError)
    expect(() => t.open()).toThrow(/failed its integrity check/)
    crashed.close()
  })
})

test('a file that is not a database stops the start with the reason', () => {
  const t = setup()
  writeFileSync(t.dbPath, Buffer.alloc(8192, 0x42))
  expect(() => t.open()).toThrow(StartupError)
  expect(() => t.open()).toThrow(/cannot open the database .*restore a backup/)
})
