import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { closeSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { integrityScan } from '../../src/db/integrity'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-integrity-')

function database(rows: number) {
  const path = join(tempDir(), 'x.db')
  const db = new Database(path)
  db.run('CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT)')
  db.run('CREATE TABLE b (k TEXT PRIMARY KEY, v TEXT)')
  const ia = db.prepare('INSERT INTO a (v) VALUES (?)')
  const ib = db.prepare('INSERT INTO b (k, v) VALUES (?, ?)')
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      ia.run('x'.repeat(100))
      ib.run(`k${i}`, 'y'.repeat(100))
    }
  })()
  return { db, path }
}

test('a large file is read a bounded share per run, going on where the last run stopped, and wraps around', async () => {
  const { db } = database(3000)
  const scan = integrityScan(db, { fullCheckBytes: 0 }) // force the incremental path
  const first = await scan.run(0) // a zero budget still reads one slice: progress is guaranteed
  expect(first).toEqual({ problem: null, rows: 200, whole: false })
  let total = first.rows
  for (let i = 0; i < 40; i++) total += (await scan.run(0)).rows
  expect(total).toBeGreaterThan(6000) // both tables read, then the scan starts over
})

test('a small file gets the whole-file check', async () => {
  const { db } = database(10)
  expect(await integrityScan(db).run(1000)).toEqual({ problem: null, rows: 0, whole: true })
})

test('a damaged table page is found by the incremental scan', async () => {
  const { db, path } = database(3000)
  const leaf = db
    .query<{ pageno: number }, []>("SELECT pageno FROM dbstat WHERE name = 'b' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 20")
    .get()!.pageno
  db.close()
  const fd = openSync(path, 'r+')
  writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (leaf - 1) * 4096)
  closeSync(fd)
  const scan = integrityScan(new Database(path), { fullCheckBytes: 0 })
  let problem: string | null = null
  for (let i = 0; i < 60 && !problem; i++) problem = (await scan.run(0)).problem
  expect(problem).toContain('malformed')
})
