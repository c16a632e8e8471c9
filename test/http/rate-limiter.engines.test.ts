import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { RedisClient, SQL } from 'bun'
import { memoryRateLimiter, type RateLimiter } from '../../src/http/rate-limiter'
import { postgresRateLimiter, rateLimitPool } from '../../src/http/rate-limiter.pg'
import { redisRateLimiter } from '../../src/http/rate-limiter.redis'
import { migratePostgres } from '../../src/db/pg/migrate'
import type { TakeResult } from '../../src/lib/token-bucket'
import { type FreshDatabase, postgresForTests, redisForTests } from '../helpers/postgres'

/**
 * One table of take sequences, run against the memory limiter (the reference) and each shared
 * store: every answer (allowed, remaining, reset, retry-after) must be the same. Each step is
 * [key, limit per minute, ms since the previous step].
 */
type Step = [key: string, limit: number, dt: number]
const repeat = (n: number, step: Step): Step[] => Array.from({ length: n }, () => step)

const CASES: Record<string, Step[]> = {
  'a burst past the limit is refused': repeat(8, ['a', 5, 0]),
  'an empty bucket refills a token at a time': [...repeat(60, ['a', 60, 0]), ['a', 60, 500], ['a', 60, 499], ['a', 60, 1], ['a', 60, 0]],
  'fractional refills at odd intervals': [
    ['a', 7, 0],
    ['a', 7, 13],
    ['a', 7, 2_000],
    ['a', 7, 8_571],
    ['a', 7, 1],
    ...repeat(6, ['a', 7, 3]),
    ['a', 7, 8_572],
    ['a', 7, 17_143],
  ],
  'a lower plan caps the tokens kept': [...repeat(10, ['a', 100, 0]), ['a', 5, 0], ['a', 5, 0], ['a', 5, 12_000]],
  'a higher plan mints nothing but refills faster': [...repeat(6, ['a', 5, 0]), ['a', 600, 0], ['a', 600, 100], ['a', 600, 50]],
  'a bucket idle for a window is full again': [...repeat(3, ['a', 3, 0]), ['a', 3, 0], ['a', 3, 60_001], ['a', 3, 0], ['a', 3, 0], ['a', 3, 0]],
  'buckets are per key': [
    ['a', 1, 0],
    ['a', 1, 0],
    ['b', 1, 0],
    ['b', 1, 10],
    ['a', 1, 60_000],
    ['b', 1, 0],
  ],
  'a limit of one': [
    ['a', 1, 0],
    ['a', 1, 59_999],
    ['a', 1, 1],
    ['a', 1, 30_000],
  ],
}

const T0 = Date.parse('2026-03-01T00:00:00Z')

async function play(limiter: RateLimiter, steps: Step[], prefix: string): Promise<TakeResult[]> {
  const out: TakeResult[] = []
  let now = T0
  for (const [key, limit, dt] of steps) {
    now += dt
    out.push(await limiter.take(`${prefix}${key}`, limit, now))
  }
  return out
}

const pg = postgresForTests()
const redis = redisForTests()
const run = `t${process.pid}-${Date.now().toString(36)}-`
let db: FreshDatabase | null = null
const pools: SQL[] = []
const closers: RateLimiter[] = []

async function migratedPostgres(): Promise<string> {
  if (!db) {
    db = await pg.freshDatabase()
    const sql = new SQL(db.url, { max: 1 })
    await migratePostgres(sql, Date.now())
    await sql.close()
  }
  return db.url
}

/** as the hub makes it: its own pool, commits not waiting for the disk */
async function pgLimiter(): Promise<RateLimiter> {
  const l = postgresRateLimiter(rateLimitPool(await migratedPostgres()), { ownsPool: true })
  closers.push(l)
  return l
}

function redisLimiter(): RateLimiter {
  const l = redisRateLimiter(redis.url!)
  closers.push(l)
  return l
}

afterAll(async () => {
  for (const l of closers) await l.close?.()
  for (const p of pools) await p.close()
  await db?.drop()
})

const ENGINES: { name: string; skip: string | false; make: () => RateLimiter | Promise<RateLimiter> }[] = [
  { name: 'memory', skip: false, make: () => memoryRateLimiter() },
  { name: 'redis', skip: redis.url ? false : redis.skipReason, make: redisLimiter },
  { name: 'postgres', skip: pg.url ? false : pg.skipReason, make: pgLimiter },
]

describe('every engine answers as the memory limiter does', () => {
  const expected = new Map<string, TakeResult[]>()
  beforeAll(async () => {
    for (const [name, steps] of Object.entries(CASES)) expected.set(name, await play(memoryRateLimiter(), steps, ''))
  })

  test('the reference itself: a burst of 8 at a limit of 5 lets 5 through', () => {
    expect(expected.get('a burst past the limit is refused')!.map((r) => r.allowed)).toEqual([true, true, true, true, true, false, false, false])
    expect(expected.get('a burst past the limit is refused')![7]).toMatchObject({ remaining: 0, retryAfterMs: 12_000, resetAt: T0 + 60_000 })
  })

  for (const engine of ENGINES) {
    for (const [name, steps] of Object.entries(CASES)) {
      test.skipIf(!!engine.skip)(`${engine.name}: ${name} ${engine.skip || ''}`, async () => {
        const limiter = await engine.make()
        expect(await play(limiter, steps, `${run}${engine.name}:${name}:`)).toEqual(expected.get(name)!)
      })
    }
  }
})

describe('two limiters on one store are two hubs sharing one budget', () => {
  for (const engine of ENGINES.slice(1)) {
    test.skipIf(!!engine.skip)(`${engine.name}: takes alternating between two instances count against one bucket ${engine.skip || ''}`, async () => {
      const [a, b] = [await engine.make(), await engine.make()]
      const key = `${run}${engine.name}:shared-alternating`
      const answers: boolean[] = []
      for (let i = 0; i < 12; i++) answers.push((await (i % 2 ? b : a).take(key, 10, T0)).allowed)
      expect(answers.filter(Boolean).length).toBe(10)
      expect(answers.slice(10)).toEqual([false, false])
      // a second later one token is back, whichever hub asks
      expect((await b.take(key, 10, T0 + 6_000)).allowed).toBe(true)
      expect((await a.take(key, 10, T0 + 6_000)).allowed).toBe(false)
    })

    test.skipIf(!!engine.skip)(`${engine.name}: 100 concurrent takes from two instances let exactly the limit through ${engine.skip || ''}`, async () => {
      const [a, b] = [await engine.make(), await engine.make()]
      const key = `${run}${engine.name}:shared-concurrent`
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? b : a).take(key, 30, T0)))
      expect(results.filter((r) => r.allowed).length).toBe(30)
      expect(new Set(results.filter((r) => r.allowed).map((r) => r.remaining))).toEqual(new Set(Array.from({ length: 30 }, (_, i) => i)))
    })

    test.skipIf(!!engine.skip)(`${engine.name}: a hub whose clock is behind cannot refill what another hub's time counted ${engine.skip || ''}`, async () => {
      const [ahead, behind] = [await engine.make(), await engine.make()]
      const key = `${run}${engine.name}:skew`
      for (let i = 0; i < 6; i++) await ahead.take(key, 6, T0 + 1_000)
      expect((await behind.take(key, 6, T0 + 800)).allowed).toBe(false)
      // had the bucket's time moved back to T0 + 800, this take would see 0.2 s more refill and pass
      expect((await ahead.take(key, 6, T0 + 1_000 + 10_000 - 1)).allowed).toBe(false)
      expect((await ahead.take(key, 6, T0 + 1_000 + 10_000)).allowed).toBe(true)
    })
  }
})

describe('shared stores forget idle buckets', () => {
  test.skipIf(!redis.url)(`redis: a bucket expires a window after its last take ${redis.skipReason}`, async () => {
    const key = `${run}expiry`
    await redisLimiter().take(key, 5, T0)
    const raw = new RedisClient(redis.url!)
    try {
      const ttl = Number(await raw.send('PTTL', [`vigil:rl:${key}`]))
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(60_000)
    } finally {
      raw.close()
    }
  })

  test.skipIf(!pg.url)(`postgres: the first take of each window deletes rows idle for a window, and answers stay the same ${pg.skipReason}`, async () => {
    // one connection: its queries run in the order they were sent, the sweep before the take
    const sql = new SQL(await migratedPostgres(), { max: 1 })
    pools.push(sql)
    const key = `${run}forget`
    await postgresRateLimiter(sql).take(key, 5, T0)
    const count = async () => Number((await sql`SELECT count(*)::int AS n FROM rate_limit_buckets WHERE key = ${key}`)[0].n)
    expect(await count()).toBe(1)
    // a new instance sweeps on its first take: the row is idle as of a window and a millisecond later
    const late = postgresRateLimiter(sql)
    expect((await late.take(`${run}other`, 5, T0 + 60_001)).allowed).toBe(true)
    expect(await count()).toBe(0)
    expect(await late.take(key, 5, T0 + 60_001)).toEqual(memoryRateLimiter().take(key, 5, T0 + 60_001))
  })
})
