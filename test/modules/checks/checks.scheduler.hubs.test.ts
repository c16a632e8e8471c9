import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { openPostgres } from '../../../src/db/pg/connection'
import { migratePostgres } from '../../../src/db/pg/migrate'
import { manualClock } from '../../../src/lib/clock'
import { memoryLogger } from '../../../src/lib/logger'
import type { Timers } from '../../../src/lib/timers'
import { checkClaimsPg } from '../../../src/modules/checks/checks.claims.pg'
import { createCheckScheduler, type Scheduled } from '../../../src/modules/checks/checks.scheduler'
import type { CheckRow } from '../../../src/modules/checks/checks.store.rows'
import { createChecksStorePg } from '../../../src/modules/checks/checks.store.pg'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'

/** Two hubs' check schedulers on one PostgreSQL database, probing a local target that counts each attempt. */
const pg = postgresForTests()
const T0 = Date.parse('2026-03-01T00:00:00Z')
const INTERVAL = 60_000
let fresh: FreshDatabase | undefined
let sql: SQL | undefined
let target: ReturnType<typeof Bun.serve> | undefined
/** check id → the times (on the test's clock) its attempts reached the target, and which hub sent them */
const hits = new Map<string, { at: number; hub: string }[]>()
let clockNow = T0

beforeAll(async () => {
  if (!pg.url) return
  fresh = await pg.freshDatabase('vigil_checks_hubs')
  sql = openPostgres({ url: fresh.url, pool: 4 })
  await migratePostgres(sql, 1)
  target = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url)
      const id = url.pathname.slice(1)
      const list = hits.get(id) ?? []
      list.push({ at: clockNow, hub: url.searchParams.get('hub')! })
      hits.set(id, list)
      return new Response('ok')
    },
  })
}, 60_000)
afterAll(async () => {
  target?.stop(true)
  await sql?.close()
  await fresh?.drop()
}, 60_000)

/** timers on the manual clock: `fire()` runs those due */
function clockTimers(clock: { now(): number }) {
  let next = 0
  const pending = new Map<number, { at: number; fn: () => void }>()
  const timers: Timers = {
    after(ms, fn) {
      const id = next++
      pending.set(id, { at: clock.now() + ms, fn })
      return () => pending.delete(id)
    },
  }
  return {
    timers,
    fire() {
      const due = [...pending].filter(([, t]) => t.at <= clock.now())
      for (const [id] of due) pending.delete(id)
      for (const [, t] of due) t.fn()
    },
  }
}

const checkRow = (id: string, clientId: string, i: number): Omit<CheckRow, 'seq'> => ({
  id,
  client_id: clientId,
  name: id,
  kind: 'http',
  settings: '{}',
  interval_s: INTERVAL / 1000,
  timeout_ms: 5000,
  down_after: 1,
  up_after: 1,
  run_on_hub: 1,
  device_ids: '[]',
  depends_on_device_id: null,
  paused: 0,
  hb_token_hash: null,
  hb_token_hint: null,
  state: 'pending',
  state_since: T0,
  last_checked_at: null,
  last_response_ms: null,
  last_status_code: null,
  last_error: null,
  cert_expires_at: null,
  created_at: T0 + i,
  updated_at: T0,
})

test.skipIf(!pg.url)(
  `two hubs run each check once per interval between them; when one stops, the other takes its checks over within an interval of their last run ${pg.skipReason}`,
  async () => {
    const db = sql!
    for (const c of ['c1', 'c2']) await db`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${c}, ${c}, 1, 1)`
    const store = createChecksStorePg(db)
    const ids: string[] = []
    for (let i = 0; i < 6; i++) {
      const id = `chk_${i}`
      await store.create(checkRow(id, i < 3 ? 'c1' : 'c2', i), 100)
      ids.push(id)
    }
    const scheduled: Scheduled[] = ids.map((id, i) => ({ id, clientId: i < 3 ? 'c1' : 'c2', intervalMs: INTERVAL, timeoutMs: 5000 }))
    const clock = manualClock(T0)
    const inFlight = new Set<Promise<unknown>>()
    const track = <T>(p: Promise<T>) => {
      inFlight.add(p)
      void p.finally(() => inFlight.delete(p))
      return p
    }
    const hub = (name: string, random: number) => {
      const t = clockTimers(clock)
      const claims = checkClaimsPg(db, name)
      const scheduler = createCheckScheduler({
        clock,
        timers: t.timers,
        logger: memoryLogger().logger,
        // one slot per account: an account's checks queue behind each other, never another account's
        caps: { total: 4, perAccount: 1 },
        random: () => random,
        initial: () => scheduled,
        claim: (id, now, next) => track(claims.claim(id, now, next)),
        run: (id) =>
          track(
            fetch(`http://127.0.0.1:${target!.port}/${id}?hub=${name}`).then(async (r) => {
              await r.text()
              return { ts: 0, ok: r.ok, response_ms: 1, status_code: r.status, error: null, cert_expires_at: null }
            }),
          ),
        record: () => undefined,
      })
      return { scheduler, fire: t.fire }
    }
    const a = hub('hubA', 0.2)
    const b = hub('hubB', 0.7)
    await a.scheduler.start()
    await b.scheduler.start()
    const hubs = [a, b]
    /** lets time pass in steps of a second; each hub's due work and its database round trips settle in each step */
    const pass = async (ms: number) => {
      const end = clock.now() + ms
      while (clock.now() < end) {
        clock.set(clock.now() + 1000)
        clockNow = clock.now()
        for (const h of hubs) h.fire()
        while (inFlight.size) await Promise.all([...inFlight])
      }
    }
    await pass(10 * INTERVAL)
    for (const id of ids) {
      const list = hits.get(id)!
      // the first run falls in the first interval, then one per interval: 10 in 10 minutes, by either hub, never two in one interval
      expect(list.length).toBe(10)
      for (let i = 1; i < list.length; i++) expect(list[i]!.at - list[i - 1]!.at).toBeGreaterThanOrEqual(INTERVAL)
    }
    const byHub = (name: string) => [...hits.values()].flat().filter((h) => h.hub === name).length
    expect(byHub('hubA') + byHub('hubB')).toBe(60)
    // hub A plans earlier in each interval: it runs them; B loses each claim and learns when the next run is due
    expect(byHub('hubA')).toBe(60)

    // hub A stops (it died): B takes every check over within one interval of its last run
    a.scheduler.stop()
    hubs.splice(0, 1)
    const lastByA = new Map(ids.map((id) => [id, hits.get(id)!.at(-1)!.at]))
    await pass(5 * INTERVAL)
    for (const id of ids) {
      const list = hits.get(id)!.filter((h) => h.at > lastByA.get(id)!)
      expect(list.every((h) => h.hub === 'hubB')).toBe(true)
      expect(list[0]!.at - lastByA.get(id)!).toBeLessThanOrEqual(INTERVAL + 5_000)
      expect(list.length).toBeGreaterThanOrEqual(4)
      for (let i = 1; i < list.length; i++) expect(list[i]!.at - list[i - 1]!.at).toBeGreaterThanOrEqual(INTERVAL)
    }
    b.scheduler.stop()
  },
  120_000,
)
