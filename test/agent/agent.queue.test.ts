import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openQueue } from '../../src/agent/agent.queue'
import { QUEUE_DIR, queuedSamples, readDisk } from '../../src/agent/agent.queue-files'
import { importSqliteQueue, SQLITE_QUEUE_FILE } from '../../src/agent/agent.queue-import'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-queue-')
const open = (dir: string, clock = manualClock()) => openQueue(dir, { clock, log: memoryLogger().logger })
const body = (i: number, pad = 0) => JSON.stringify({ i, pad: 'x'.repeat(pad) })
const indexes = (items: { body: string }[]) => items.map((s) => (JSON.parse(s.body) as { i: number }).i)
/** recorded_at of the i-th sample: within the age bound of a fresh manual clock */
const at = (i: number) => manualClock().now() + i
const files = (dir: string) => readdirSync(join(dir, QUEUE_DIR)).sort()

describe('agent queue on disk', () => {
  test('oldest first; removing through a sample removes it and every one before it', () => {
    const dir = tempDir()
    const q = open(dir)
    for (let i = 0; i < 5; i++) q.push(body(i), at(i))
    expect(q.size()).toEqual({ count: 5, bytes: 5 * (body(0).length + String(at(0)).length + 2) })
    const first = q.oldest(3)
    expect(indexes(first)).toEqual([0, 1, 2])
    expect(first.map((s) => s.recordedAt)).toEqual([at(0), at(1), at(2)])
    q.removeThrough(first[1]!.id)
    expect(indexes(q.oldest(10))).toEqual([2, 3, 4])
    expect(q.size().count).toBe(3)
    q.close()
  })

  test('a reader counting beside the agent looks again when a segment goes between its listing and its read', () => {
    const dir = tempDir()
    const q = open(dir)
    for (let i = 0; i < 3; i++) q.push(body(i), at(i))
    q.close()
    let reads = 0
    const vanishing = (queueDir: string) => {
      // the agent removed the segment just listed, twice in a row
      if (++reads <= 2) throw Object.assign(new Error('ENOENT: no such file or directory, open'), { code: 'ENOENT' })
      return readDisk(queueDir)
    }
    expect(queuedSamples(dir, vanishing)).toBe(3)
    expect(reads).toBe(3)
    // any other failure is not a race: it is reported at once
    const broken = () => {
      throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })
    }
    expect(() => queuedSamples(dir, broken)).toThrow('EACCES')
    // nor is a file that keeps vanishing looked for forever
    const gone = () => {
      throw Object.assign(new Error('ENOENT: no such file or directory, open'), { code: 'ENOENT' })
    }
    expect(() => queuedSamples(dir, gone)).toThrow('ENOENT')
  })

  test('survives a restart: the same samples, the same order, removals kept', () => {
    const dir = tempDir()
    const q = open(dir)
    for (let i = 0; i < 4; i++) q.push(body(i), at(i))
    q.removeThrough(q.oldest(1)[0]!.id)
    q.close()
    expect(queuedSamples(dir)).toBe(3)
    const again = open(dir)
    expect(indexes(again.oldest(10))).toEqual([1, 2, 3])
    again.push(body(4), at(4))
    expect(indexes(again.oldest(10))).toEqual([1, 2, 3, 4])
    again.close()
  })

  test('a sample cut off by a crash mid-write is dropped at the next start; the rest stay', () => {
    const dir = tempDir()
    const q = open(dir)
    q.push(body(0), at(0))
    q.push(body(1), at(1))
    q.close()
    const segment = join(dir, QUEUE_DIR, files(dir).find((f) => f.endsWith('.log'))!)
    appendFileSync(segment, `${at(2)} {"i":2,"pad":"half a rec`)
    expect(queuedSamples(dir)).toBe(2)
    const again = open(dir)
    expect(indexes(again.oldest(10))).toEqual([0, 1])
    again.push(body(3), at(3))
    expect(indexes(again.oldest(10))).toEqual([0, 1, 3])
    expect(readFileSync(segment, 'utf8').endsWith('\n')).toBe(true)
    again.close()
  })

  test('segments roll over at about 1 MiB and are deleted once the queue has moved past them', () => {
    const dir = tempDir()
    const q = open(dir)
    // ~3.5 KB samples, as a real one: 900 of them fill about three segments
    for (let i = 0; i < 900; i++) q.push(body(i, 3_500), at(i))
    const logs = () => files(dir).filter((f) => f.endsWith('.log'))
    expect(logs().length).toBe(4)
    let seen: number[] = []
    while (q.size().count > 0) {
      const batch = q.oldest(500)
      seen = seen.concat(indexes(batch))
      q.removeThrough(batch.at(-1)!.id)
    }
    expect(seen).toEqual(Array.from({ length: 900 }, (_, i) => i))
    expect(logs()).toEqual([]) // empty: nothing left on disk but the head
    q.push(body(900), at(900))
    expect(indexes(q.oldest(5))).toEqual([900])
    q.close()
    expect(queuedSamples(dir)).toBe(1)
  })

  test('a crash between saving the head and deleting passed segments is tidied at the next start', () => {
    const dir = tempDir()
    const q = open(dir)
    for (let i = 0; i < 600; i++) q.push(body(i, 3_500), at(i))
    const kept = files(dir)
    const batch = q.oldest(400)
    q.removeThrough(batch.at(-1)!.id)
    q.close()
    // put back the segment the removal deleted, as if the crash came just before its delete
    const gone = kept.filter((f) => !files(dir).includes(f))
    expect(gone.length).toBe(1)
    writeFileSync(join(dir, QUEUE_DIR, gone[0]!), 'junk that must not be read\n')
    const again = open(dir)
    expect(indexes(again.oldest(1))).toEqual([400])
    expect(again.size().count).toBe(200)
    expect(files(dir)).not.toContain(gone[0])
    again.close()
  })

  test('removing a sample the queue did not hand out is refused', () => {
    const q = open(tempDir())
    q.push(body(0), at(0))
    expect(() => q.removeThrough(5)).toThrow('was not read from the queue')
    q.close()
  })

  test('a body must be one line', () => {
    const q = open(tempDir())
    expect(() => q.push('{\n"a": 1}', 0)).toThrow('one line')
    expect(q.size().count).toBe(0)
    q.close()
  })
})

describe('the earlier SQLite queue', () => {
  test('its samples move to the file queue oldest first, and the database is deleted', async () => {
    const dir = tempDir()
    const db = new Database(join(dir, SQLITE_QUEUE_FILE), { create: true })
    db.run('PRAGMA journal_mode = WAL')
    db.run('CREATE TABLE queue (id INTEGER PRIMARY KEY AUTOINCREMENT, recorded_at INTEGER NOT NULL, bytes INTEGER NOT NULL, body TEXT NOT NULL)')
    const insert = db.prepare('INSERT INTO queue (recorded_at, bytes, body) VALUES (?, ?, ?)')
    for (const i of [0, 1, 2]) insert.run(at(i), body(i).length, body(i))
    db.close()
    const { logger, lines } = memoryLogger()
    expect(await importSqliteQueue(dir, { clock: manualClock(), log: logger })).toBe(3)
    expect(existsSync(join(dir, SQLITE_QUEUE_FILE))).toBe(false)
    expect(lines.some((l) => l.includes('earlier SQLite queue') && l.includes('"samples":3'))).toBe(true)
    const q = open(dir)
    const items = q.oldest(10)
    expect(indexes(items)).toEqual([0, 1, 2])
    expect(items.map((s) => s.recordedAt)).toEqual([at(0), at(1), at(2)])
    q.close()
    expect(await importSqliteQueue(dir, { clock: manualClock(), log: logger })).toBe(0) // nothing left to move
  })
})
