import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { tempDir } from '../helpers/binary'

const wal = join(import.meta.dir, '../../src/db/wal.ts')

/**
 * A hub's process: writes in WAL mode and reads the WAL's size from `-shm` after each write, as
 * the bulk pause does, reading the table now and then; prints its count at the end.
 */
const hub = `
import { Database } from 'bun:sqlite'
import { walInUseBytes } from ${JSON.stringify(wal)}
const path = process.argv.at(-1)
const db = new Database(path, { create: true })
db.run('PRAGMA journal_mode = WAL')
db.run('CREATE TABLE t (x)')
const insert = db.prepare('INSERT INTO t VALUES (?)')
const count = db.prepare('SELECT count(*) AS n FROM t')
console.log('ready')
for (let i = 0; i < 3000; i++) {
  insert.run(i)
  if (!(walInUseBytes(path) > 0)) throw new Error('no WAL in use read')
  if (i % 50 === 0) count.get()
  if (i % 100 === 0) await Bun.sleep(1)
}
console.log(count.get().n)
`

test("reading the WAL's size keeps SQLite's locks: other processes opening the database meanwhile change nothing for the hub", async () => {
  const path = join(tempDir('vigil-shm-'), 'hub.db')
  const child = Bun.spawn([process.execPath, '-e', hub, path], { stdout: 'pipe', stderr: 'pipe' })
  const out = new Response(child.stdout).text()
  while (!(await Bun.file(path).exists())) await Bun.sleep(5) // waiting for the child to create it, not for time to pass
  // other processes (a shell, `vigil backup`) open the database and close it while the hub writes.
  // Had the hub's locks on -shm gone with a descriptor it closed, one of them would take itself
  // for the database's only user and reset the wal-index under the hub's mapping of it: before
  // the descriptor was kept, the hub died of a bus error within a second
  let opened = 0
  while (child.exitCode === null) {
    try {
      const other = new Database(path, { readonly: true })
      other.query('SELECT count(*) FROM t').get()
      other.close()
      opened++
    } catch {
      // the table is not there yet, or the hub holds a lock a moment
    }
    await Bun.sleep(2) // spacing the openings, so the hub gets the CPU between them
  }
  const code = await child.exited
  const err = code === 0 ? '' : (await new Response(child.stderr).text()).slice(0, 200)
  expect({ code, out: await out, err }).toEqual({ code: 0, out: 'ready\n3000\n', err: '' })
  expect(opened).toBeGreaterThan(10)
})
