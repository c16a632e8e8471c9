import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { openDatabase } from '../../../src/db/connection'
import { migrate } from '../../../src/db/migrate'
import { memoryLogger } from '../../../src/lib/logger'
import { measureInWorker, tableBytes } from '../../../src/modules/storage/storage.measurer'
import { sqliteStorage } from '../../../src/modules/storage/storage.store'
import { tempDir } from '../../helpers/binary'

describe('the space per table, measured on a thread of its own', () => {
  test('reads the same figures as the server’s own connection, while that connection keeps its write lock free', async () => {
    const path = join(tempDir('vigil-measure-'), 'vigil.db')
    const db = openDatabase(path)
    migrate(db.sqlite, Date.now())
    db.sqlite.run('CREATE TABLE filler (x BLOB)')
    db.sqlite.transaction(() => {
      for (let i = 0; i < 200; i++) db.sqlite.run('INSERT INTO filler VALUES (randomblob(3000))')
    })()
    db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
    const inline = sqliteStorage(db.sqlite).bytesPerTable()
    const measured = await measureInWorker(path)
    expect(measured).toEqual(inline)
    expect(measured.get('filler')).toBeGreaterThan(200 * 3000)
    expect(measured.get('users')).toBeGreaterThan(0)
    db.sqlite.close()
  })

  test('a thread that cannot read the file: measured on the connection instead, and said once in the log', async () => {
    const { logger, lines } = memoryLogger()
    const here = new Database(':memory:')
    here.run('CREATE TABLE t (x)')
    const inline = () => sqliteStorage(here).bytesPerTable()
    const measure = tableBytes(join(tempDir('vigil-measure-'), 'missing.db'), inline, logger)
    expect((await measure()).has('t')).toBe(true)
    expect(lines.filter((l) => l.includes('storage measure thread failed'))).toHaveLength(1)
  })

  test('an in-memory database (tests) is measured on its own connection: no thread can see it', async () => {
    const { logger, lines } = memoryLogger()
    const here = new Database(':memory:')
    here.run('CREATE TABLE t (x)')
    expect((await tableBytes(':memory:', () => sqliteStorage(here).bytesPerTable(), logger)()).has('t')).toBe(true)
    expect(lines).toEqual([])
  })
})
