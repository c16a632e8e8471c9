import { afterAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import type { JobClaims } from '../../src/jobs/claims'
import { postgresJobClaims } from '../../src/jobs/claims.pg'
import { type Job, nextRunAfter, startScheduler } from '../../src/jobs/scheduler'
import { migratePostgres } from '../../src/db/pg/migrate'
import { createLogger } from '../../src/lib/logger'
import { type FreshDatabase, postgresForTests } from '../helpers/postgres'
import { manualTimers } from '../helpers/timers'

/**
 * Several hubs on one PostgreSQL database, each with its own scheduler, connection, timers and a
 * clock a few hundred ms off the others': time passes by the test moving one true time and
 * firing every hub's timers, never by waiting.
 */
const pg = postgresForTests()
const made: FreshDatabase[] = []
const open: SQL[] = []
afterAll(async () => {
  for (const sql of open) await sql.close({ timeout: 0 }).catch(() => {})
  for (const db of made) await db.drop()
}, 30_000)

async function migratedDatabase() {
  const db = await pg.freshDatabase()
  made.push(db)
  const sql = new SQL(db.url, { max: 1 })
  await migratePostgres(sql, 0)
  await sql.close()
  return db.url
}

const T0 = Date.parse('2026-11-27T12:00:00.050Z')

/** the true time every hub's clock is read from, off by its skew */
function world() {
  const w = { t: T0, lines: [] as string[] }
  const logger = createLogger({ level: 'warn', format: 'json', write: (l) => void w.lines.push(l) })
  /** a hub: its own connection to the database and its own timers */
  const hub = (url: string, name: string, skewMs: number, jobs: Job[], opts: { leaseMs?: number; keptMs?: number } = {}) => {
    const sql = new SQL(url, { max: 2 })
    open.push(sql)
    const timers = manualTimers()
    const pgClaims = postgresJobClaims(sql, { hub: name, ...opts })
    let refused = 0
    const claims: JobClaims = {
      ...pgClaims,
      claim: async (job, slot, now) => {
        const ok = await pgClaims.claim(job, slot, now)
        if (!ok) refused++
        return ok
      },
    }
    const scheduler = startScheduler(jobs, logger, { now: () => w.t + skewMs, timers: timers.timers }, claims)
    return { name, sql, timers, scheduler, refused: () => refused, alive: true }
  }
  return { w, logger, hub }
}

type Hub = ReturnType<ReturnType<typeof world>['hub']>

/** moves the true time by `ms` and lets each live hub see it; waits for their claims and runs */
async function advance(w: { t: number }, hubs: Hub[], ms: number) {
  w.t += ms
  const live = hubs.filter((h) => h.alive)
  for (const h of live) h.timers.fire()
  await Promise.all(live.map((h) => h.scheduler.settled()))
}

/** the cron times in (fromMs, toMs] */
function slotsBetween(pattern: string, fromMs: number, toMs: number) {
  const out: number[] = []
  for (let at = nextRunAfter(pattern, fromMs); at !== null && at <= toMs; at = nextRunAfter(pattern, at)) out.push(at)
  return out
}

/** a fixed sequence of step lengths (50–650 ms), the same on every run of the test */
function steps(n: number) {
  let x = 7
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31
    return 50 + (x % 601)
  })
}

describe('scheduled runs across hubs on one PostgreSQL', () => {
  for (const skews of [
    [-200, 150],
    [-250, 0, 300],
  ]) {
    test.skipIf(!pg.url)(
      `${skews.length} hubs with clocks ${skews.join(', ')} ms apart: each slot of each job runs exactly once ${pg.skipReason}`,
      async () => {
        const url = await migratedDatabase()
        const { w, hub } = world()
        const runs = new Map<string, string[]>()
        const jobsFor = (name: string): Job[] =>
          [
            ['test.every-second', '* * * * * *'],
            ['test.every-two', '*/2 * * * * *'],
            ['test.every-five', '*/5 * * * * *'],
          ].map(([job, cron]) => ({ name: job!, cron: cron!, run: () => void runs.set(job!, [...(runs.get(job!) ?? []), name]) }))
        const hubs = skews.map((skew, i) => hub(url, `hub-${i}`, skew, jobsFor(`hub-${i}`)))
        for (const ms of steps(60)) await advance(w, hubs, ms)
        for (const h of hubs) await h.scheduler.stop()

        const from = T0 + Math.min(...skews)
        const to = w.t + Math.max(...skews)
        for (const [job, cron] of [
          ['test.every-second', '* * * * * *'],
          ['test.every-two', '*/2 * * * * *'],
          ['test.every-five', '*/5 * * * * *'],
        ] as const) {
          const expected = slotsBetween(cron, from, to)
          expect(expected.length).toBeGreaterThan(3)
          expect(runs.get(job)?.length).toBe(expected.length)
          const rows: { slot: string; hub: string }[] = await hubs[0]!.sql`SELECT slot, hub FROM job_runs WHERE job = ${job} ORDER BY slot`
          expect(rows.map((r) => Number(r.slot))).toEqual(expected)
          // the hub that holds each slot is the one that ran it
          expect(rows.map((r) => r.hub).toSorted()).toEqual(runs.get(job)!.toSorted())
        }
        // the hubs did ask for the same slots: every hub but the one that won was refused
        expect(hubs.reduce((n, h) => n + h.refused(), 0)).toBeGreaterThan(10)
      },
      60_000,
    )
  }

  test.skipIf(!pg.url)(
    `a hub that dies mid-run: its slot is not run again, the job's next slot after its lease runs on another hub ${pg.skipReason}`,
    async () => {
      const url = await migratedDatabase()
      const { w, hub } = world()
      const started: { hub: string; at: number }[] = []
      const job = (name: string, run: () => Promise<void>): Job[] => [
        {
          name: 'test.slow',
          cron: '* * * * * *',
          run: () => {
            started.push({ hub: name, at: w.t })
            return run()
          },
        },
      ]
      // a's clock is ahead: it claims 12:00:01 first, then hangs there and is never heard of again
      const a = hub(
        url,
        'a',
        200,
        job('a', () => new Promise<void>(() => {})),
        { leaseMs: 3000 },
      )
      const b = hub(
        url,
        'b',
        0,
        job('b', async () => {}),
        { leaseMs: 3000 },
      )
      const hubs = [a, b]
      while (started.length === 0) await advance(w, hubs, 100)
      expect(started).toEqual([{ hub: 'a', at: Date.parse('2026-11-27T12:00:00.850Z') }])
      a.alive = false // no more timers, no lease renewed, no finish
      for (let i = 0; i < 60; i++) await advance(w, hubs, 100)
      await b.scheduler.stop()

      const rows: { slot: string; hub: string; finished_at: string | null }[] = await b.sql`SELECT slot, hub, finished_at FROM job_runs ORDER BY slot`
      const slots = rows.map((r) => [new Date(Number(r.slot)).toISOString().slice(11, 19), r.hub])
      // 12:00:02 and :03 fall in a's lease (until 12:00:04.050 by a's clock); from :04 on, b runs each slot
      expect(slots).toEqual([
        ['12:00:01', 'a'],
        ['12:00:04', 'b'],
        ['12:00:05', 'b'],
        ['12:00:06', 'b'],
      ])
      expect(rows[0]!.finished_at).toBeNull()
      expect(started.map((s) => s.hub)).toEqual(['a', 'b', 'b', 'b'])
    },
    60_000,
  )

  test.skipIf(!pg.url)(
    `a run that outlasts its lease keeps it while its hub lives: no other hub starts the job meanwhile ${pg.skipReason}`,
    async () => {
      const url = await migratedDatabase()
      const { w, hub } = world()
      let active = 0
      let most = 0
      const log: string[] = []
      const finishers: (() => void)[] = []
      const job = (name: string): Job[] => [
        {
          name: 'test.long',
          cron: '* * * * * *',
          run: () => {
            active++
            most = Math.max(most, active)
            log.push(name)
            return new Promise<void>((resolve) => finishers.push(resolve)).finally(() => void active--)
          },
        },
      ]
      // claims are kept 2 s: the live one, older than that, is still not forgotten
      const opts = { leaseMs: 1000, keptMs: 2000 }
      const hubs = [hub(url, 'a', 300, job('a'), opts), hub(url, 'b', -100, job('b'), opts)]
      while (log.length === 0) await advance(w, hubs, 100)
      // the first run lasts five seconds, five leases: its hub renews it (every third of a lease)
      for (let i = 0; i < 50; i++) await advance(w, hubs, 100)
      expect(log).toHaveLength(1)
      finishers.shift()!()
      while (log.length < 2) await advance(w, hubs, 100)
      finishers.shift()!()
      await Promise.all(hubs.map((h) => h.scheduler.stop()))
      expect(most).toBe(1)
    },
    60_000,
  )

  test.skipIf(!pg.url)(
    `old claims are forgotten, an every-hub job runs on each hub unclaimed, and an operator's run is immediate ${pg.skipReason}`,
    async () => {
      const url = await migratedDatabase()
      const { w, hub } = world()
      const runs: string[] = []
      const jobsFor = (name: string): Job[] => [
        { name: 'test.claimed', cron: '* * * * * *', run: () => {} },
        { name: 'test.local', cron: '*/10 * * * * *', everyHub: true, run: () => void runs.push(`local@${name}`) },
        { name: 'test.operator', cron: '0 0 0 1 1 *', run: () => void runs.push(`operator@${name}`) },
      ]
      const hubs = [hub(url, 'a', 0, jobsFor('a'), { keptMs: 5000 }), hub(url, 'b', 120, jobsFor('b'), { keptMs: 5000 })]
      for (let i = 0; i < 200; i++) await advance(w, hubs, 100)
      const [{ n }] = await hubs[0]!.sql`SELECT count(*)::int AS n FROM job_runs WHERE job = 'test.claimed'`
      // 20 s of slots, kept 5 s (and the one being claimed): the rest were deleted by later claims
      expect(n).toBeLessThanOrEqual(7)
      const [{ local }] = await hubs[0]!.sql`SELECT count(*)::int AS local FROM job_runs WHERE job = 'test.local'`
      expect(local).toBe(0)
      expect(runs.filter((r) => r.startsWith('local@')).toSorted()).toEqual(['local@a', 'local@a', 'local@b', 'local@b'])
      // claimed by another hub or not: trigger runs at once
      await hubs[0]!.sql`INSERT INTO job_runs (job, slot, hub, claimed_at, lease_until) VALUES ('test.operator', 1, 'b', 0, ${w.t + 60_000})`
      await hubs[0]!.scheduler.trigger('test.operator')
      expect(runs.at(-1)).toBe('operator@a')
      for (const h of hubs) await h.scheduler.stop()
    },
    60_000,
  )

  test.skipIf(!pg.url)(
    `a claim that fails (the database unreachable) skips that run and says why ${pg.skipReason}`,
    async () => {
      const url = await migratedDatabase()
      const { w, hub } = world()
      let ran = 0
      const a = hub(url, 'a', 0, [{ name: 'test.claimed', cron: '* * * * * *', run: () => void ran++ }])
      await advance(w, [a], 1000)
      expect(ran).toBe(1)
      await a.sql.close()
      await advance(w, [a], 1000)
      expect(ran).toBe(1)
      const line = w.lines.find((l) => l.includes('job not run: its claim failed'))
      expect(line).toContain('test.claimed')
      await a.scheduler.stop()
    },
    60_000,
  )
})
