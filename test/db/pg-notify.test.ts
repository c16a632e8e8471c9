import { afterEach, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { manualClock } from '../../src/lib/clock'
import { createEventBus, type StreamPoint } from '../../src/lib/event-bus'
import type { BusEvent } from '../../src/lib/event-bus.event'
import { createLogger, type Logger } from '../../src/lib/logger'
import { migratePostgres } from '../../src/db/pg/migrate'
import { KEEP_ROWS_MS, type PgPeerLink, pgPeerLink, RETRY_MIN_MS } from '../../src/db/pg/notify'
import { sessionRevocations } from '../../src/modules/users/users.revocations'
import { type FreshDatabase, postgresForTests } from '../helpers/postgres'
import { manualTimers } from '../helpers/timers'

const pg = postgresForTests()
const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo()
})

/** a logger whose lines a test can wait for: the link's own words, not a sleep */
function watchedLogger() {
  const lines: { level: string; msg: string; [field: string]: unknown }[] = []
  const waiting: { match: RegExp; resolve: () => void }[] = []
  const logger: Logger = createLogger({
    level: 'debug',
    format: 'json',
    write: (line) => {
      const { level, msg, ...fields } = JSON.parse(line)
      lines.push({ level, msg, ...fields })
      for (const w of waiting.splice(0))
        if (w.match.test(msg)) w.resolve()
        else waiting.push(w)
    },
  })
  const logged = (match: RegExp) =>
    lines.some((l) => match.test(l.msg)) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ match, resolve }))
  return { logger, lines, logged }
}

/** resolves once `done()` holds: checked after each turn of the event loop, as the link's messages arrive */
function until(done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (done() ? resolve() : setImmediate(check))
    check()
  })
}
const untilCount = <T>(list: T[], n: number) => until(() => list.length >= n)

interface Hub {
  name: string
  sql: SQL
  link: PgPeerLink
  log: ReturnType<typeof watchedLogger>
}

async function migratedDatabase(): Promise<FreshDatabase> {
  const db = await pg.freshDatabase()
  cleanup.push(() => db.drop())
  const sql = new SQL(db.url, { max: 1 })
  await migratePostgres(sql, Date.now())
  await sql.close()
  return db
}

/** a hub as far as events go: its own connections (named, so a test can find its listener) and its link */
async function hub(db: FreshDatabase, name: string, clock = manualClock()): Promise<Hub> {
  const sql = new SQL(db.url, { max: 2, connection: { application_name: name } })
  const log = watchedLogger()
  const link = await pgPeerLink(sql, { logger: log.logger, clock })
  cleanup.push(async () => {
    await link.close()
    await sql.close()
  })
  return { name, sql, link, log }
}

const deviceOf = (e: BusEvent) => (e.data as { device_id?: string }).device_id ?? 'alert'
const indexOf = (e: BusEvent) => (e.data as { i: number }).i

describe('events across hubs, on a real PostgreSQL', () => {
  test.skipIf(!pg.url)(
    `a stream's subscriber on hub B receives what was published on hub A, each device's events in order, large ones by reference, its own never echoed ${pg.skipReason}`,
    async () => {
      const db = await migratedDatabase()
      const [a, b] = [await hub(db, 'hubA'), await hub(db, 'hubB')]
      const clock = manualClock()
      const busA = createEventBus({ clock, peers: a.link })
      const busB = createEventBus({ clock, peers: b.link })
      const onA: BusEvent[] = []
      const onB: BusEvent[] = []
      busA.subscribe('c1', (e) => onA.push(e))
      busB.subscribe('c1', (e) => onB.push(e))

      const published: string[] = []
      for (let i = 0; i < 300; i++) {
        const device = `d${i % 3}`
        busA.publish('c1', 'sample', { device_id: device, kind: 'hardware', i, values: { cpu_percent: i % 100 } })
        published.push(`${device}:${i}`)
        // past NOTIFY's 8,000 bytes: sent through hub_messages, and still in its place
        if (i === 150) {
          busA.publish('c1', 'alert.firing', { i: -1, alert: { id: 'big', note: 'x'.repeat(12_000) } })
          published.push('alert:-1')
        }
        // not shared: each hub tells its own streams of status changes
        if (i === 10) busA.publish('c1', 'device.status', { device_id: 'd0', status: 'online', i: -2 })
      }
      busA.publish('c2', 'sample', { device_id: 'other', i: 0 })
      await untilCount(onB, published.length)
      await a.link.flushed()
      await b.link.flushed()

      expect(onB.map((e) => `${deviceOf(e)}:${indexOf(e)}`)).toEqual(published)
      for (const d of ['d0', 'd1', 'd2']) {
        const seen = onB.filter((e) => deviceOf(e) === d).map(indexOf)
        expect(seen).toEqual([...seen].sort((x, y) => x - y))
      }
      expect((onB.find((e) => e.type === 'alert.firing')!.data as { alert: { note: string } }).alert.note.length).toBe(12_000)
      const [{ rows }] = await a.sql`SELECT count(*)::int AS rows FROM hub_messages`
      expect(rows).toBe(1)
      // A heard its own events once, from itself (published + device.status)
      expect(onA.length).toBe(published.length + 1)
      // the other client's event reached B's other stream only
      expect(busB.position('c2').seq).toBe(1)

      // and back: B's events reach A once, and B does not hear them twice
      busB.publish('c1', 'device.deleted', { device_id: 'd2', i: 999 })
      await untilCount(onA, published.length + 2)
      await b.link.flushed()
      expect(onA.at(-1)!.type).toBe('device.deleted')
      expect(onB.filter((e) => e.type === 'device.deleted').length).toBe(1)
    },
  )

  test.skipIf(!pg.url)(`a session revoked on hub A is refused by hub B's check at once, with no database read on B ${pg.skipReason}`, async () => {
    const db = await migratedDatabase()
    const [a, b] = [await hub(db, 'hubA'), await hub(db, 'hubB')]
    // the clock does not move: B's periodic re-read (every 5 s) never comes, only the link can tell it
    const clock = manualClock()
    let readsOnB = 0
    const revocationsA = sessionRevocations({ revokedSince: async () => [] }, clock, undefined, a.link)
    const revocationsB = sessionRevocations(
      {
        revokedSince: async () => {
          readsOnB++
          return []
        },
      },
      clock,
      undefined,
      b.link,
    )
    // the first check reads the database (revocations are loaded on first use)
    expect(await revocationsB.isRevoked('rtf_family1')).toBe(false)
    const readsAtStart = readsOnB
    const heard = new Promise<unknown>((resolve) => b.link.on('session.revoked', resolve))
    revocationsA.add(['rtf_family1', 'rtf_family2'])
    await heard
    expect(await revocationsB.isRevoked('rtf_family1')).toBe(true)
    expect(await revocationsB.isRevoked('rtf_family2')).toBe(true)
    expect(await revocationsB.isRevoked('rtf_other')).toBe(false)
    expect(readsOnB).toBe(readsAtStart)
  })

  test.skipIf(!pg.url)(
    `when the listener's connection is killed the link listens again, says so in the log, streams start anew and revocations are re-read ${pg.skipReason}`,
    async () => {
      const db = await migratedDatabase()
      const [a, b] = [await hub(db, 'hubA'), await hub(db, 'hubB')]
      const clock = manualClock()
      const busA = createEventBus({ clock, peers: a.link })
      const busB = createEventBus({ clock, peers: b.link })
      let readsOnB = 0
      const revocationsB = sessionRevocations(
        {
          revokedSince: async () => {
            readsOnB++
            return [{ family_id: 'rtf_while_away', revoked_at: clock.now() }]
          },
        },
        clock,
        undefined,
        b.link,
      )
      const onB: BusEvent[] = []
      const restarts: StreamPoint[] = []
      busB.subscribe(
        'c1',
        (e) => onB.push(e),
        (p) => restarts.push(p),
      )
      busA.publish('c1', 'sample', { device_id: 'd1', i: 1 })
      await untilCount(onB, 1)
      const epochBefore = busB.position('c1').epoch
      const readsBefore = readsOnB

      const killed =
        await a.sql`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = ${db.name} AND application_name = 'hubB' AND query ILIKE 'LISTEN%'`
      expect(killed.length).toBe(1)
      await b.log.logged(/listening again after the connection to PostgreSQL dropped/)

      expect(b.log.lines.find((l) => /listening again/.test(l.msg))!.level).toBe('warn')
      expect(restarts.length).toBe(1)
      expect(restarts[0]!.epoch).not.toBe(epochBefore)
      expect(busB.position('c1').epoch).toBe(restarts[0]!.epoch)
      // the next check reads the database again, though the clock has not moved
      expect(await revocationsB.isRevoked('rtf_while_away')).toBe(true)
      expect(readsOnB).toBe(readsBefore + 1)
      // A's link never dropped
      expect(a.log.lines.some((l) => /listening again/.test(l.msg))).toBe(false)

      busA.publish('c1', 'sample', { device_id: 'd1', i: 2 })
      await untilCount(onB, 2)
      expect(indexOf(onB[1]!)).toBe(2)
    },
  )

  test.skipIf(!pg.url)(`a payload whose number was skipped tells the receiver it missed messages ${pg.skipReason}`, async () => {
    const db = await migratedDatabase()
    const b = await hub(db, 'hubB')
    const missed: (string | null)[] = []
    b.link.onMissed((key) => missed.push(key))
    const heard: unknown[] = []
    b.link.on('t', (body) => heard.push(body))
    const sender = new SQL(db.url, { max: 1 })
    cleanup.push(() => sender.close())
    await sender.notify('vigil_hubs', '{"o":"elsewhere","n":1,"m":[["t","",{"x":1}]]}')
    await sender.notify('vigil_hubs', '{"o":"elsewhere","n":3,"m":[["t","",{"x":3}]]}')
    await sender.notify('vigil_hubs', 'not ours')
    await untilCount(heard, 2)
    expect(heard).toEqual([{ x: 1 }, { x: 3 }])
    expect(missed).toEqual([null])
    expect(b.log.lines.some((l) => /messages from another hub were missed/.test(l.msg))).toBe(true)
  })

  test.skipIf(!pg.url)(
    `an account past its share of the queue loses its own messages, the others are told which account, and other accounts' get through ${pg.skipReason}`,
    async () => {
      const db = await migratedDatabase()
      const [a, b] = [await hub(db, 'hubA'), await hub(db, 'hubB')]
      const missed: (string | null)[] = []
      b.link.onMissed((key) => missed.push(key))
      const heard: string[] = []
      b.link.on('t', (_body, key) => heard.push(key))
      const body = JSON.stringify({ pad: 'y'.repeat(1000) })
      // sent in one go, faster than the link drains: the noisy account runs past its 512 KiB
      for (let i = 0; i < 1000; i++) a.link.send('t', 'noisy', body)
      a.link.send('t', 'quiet', body)
      await a.link.flushed()
      await until(() => heard.includes('quiet') && missed.length > 0)
      expect(heard.filter((k) => k === 'quiet').length).toBe(1)
      expect(heard.filter((k) => k === 'noisy').length).toBeLessThan(1000)
      expect(missed).toEqual(['noisy'])
      expect(a.log.lines.some((l) => /queue full/.test(l.msg))).toBe(true)
    },
  )
})

describe('the link itself', () => {
  test('a hub that cannot LISTEN at start says so and tries again, waiting twice as long each time', async () => {
    const log = watchedLogger()
    const timers = manualTimers()
    // nothing listens on port 1: every attempt is refused at once
    const sql = new SQL('postgres://vigil:x@127.0.0.1:1/none', { max: 1, connectionTimeout: 2 })
    const link = await pgPeerLink(sql, { logger: log.logger, clock: manualClock(), timers: timers.timers })
    cleanup.push(async () => {
      await link.close()
      await sql.close()
    })
    const attempts = () => log.lines.filter((l) => /cannot listen to the other hubs/.test(l.msg))
    expect(attempts().map((l) => l.retry_in_ms)).toEqual([RETRY_MIN_MS])
    expect(timers.pending()).toBe(1)
    timers.fire()
    await until(() => attempts().length === 2)
    timers.fire()
    await until(() => attempts().length === 3)
    expect(attempts().map((l) => l.retry_in_ms)).toEqual([RETRY_MIN_MS, RETRY_MIN_MS * 2, RETRY_MIN_MS * 4])
    expect(attempts().every((l) => l.level === 'warn')).toBe(true)
  })

  test.skipIf(!pg.url)(`rows of large messages are deleted once older than they are kept ${pg.skipReason}`, async () => {
    const db = await migratedDatabase()
    const clock = manualClock()
    const a = await hub(db, 'hubA', clock)
    const large = JSON.stringify({ x: 'z'.repeat(9_000) })
    a.link.send('t', 'c1', large)
    await a.link.flushed()
    clock.advance(KEEP_ROWS_MS + 60_000)
    a.link.send('t', 'c1', large)
    await a.link.flushed()
    const rows = await a.sql`SELECT created_at FROM hub_messages`
    expect(rows.map((r: { created_at: string }) => Number(r.created_at))).toEqual([clock.now()])
  })
})
