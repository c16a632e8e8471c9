import { afterAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { migratePostgres } from '../../../src/db/pg/migrate'
import { manualClock } from '../../../src/lib/clock'
import { memoryLogger } from '../../../src/lib/logger'
import { ACCOUNT_POLICY, type LoginThrottle, loginThrottle, memoryThrottle, type ThrottlePolicy } from '../../../src/modules/users/users.throttle'
import { postgresThrottle } from '../../../src/modules/users/users.throttle.pg'
import { redisThrottle } from '../../../src/modules/users/users.throttle.redis'
import { lazyRedis, selectLoginThrottles, withLocalThrottle } from '../../../src/modules/users/users.throttle.select'
import { type FreshDatabase, postgresForTests, redisForTests } from '../../helpers/postgres'
import { manualTimers } from '../../helpers/timers'

/**
 * The same failures and checks, spaced in time, against the memory throttle (the reference, what
 * a SQLite hub uses) and each shared store: every wait must be the same. Each step is
 * [what, key, ms since the previous step]; a check records the wait it answers.
 */
type Step = [op: 'fail' | 'check' | 'reset', key: string, dt: number]
const fails = (n: number, key = 'a', dt = 0): Step[] => Array.from({ length: n }, () => ['fail', key, dt] as Step)
const POLICY: ThrottlePolicy = { free: 3, baseMs: 1_000, maxMs: 8_000, windowMs: 60_000 }

const CASES: Record<string, Step[]> = {
  'the free failures lock nothing, the next one locks for the base time': [
    ...fails(2),
    ['check', 'a', 0],
    ['fail', 'a', 0],
    ['check', 'a', 0],
    ['check', 'a', 400],
  ],
  'each further failure doubles the lockout up to the most': [
    ...fails(3),
    ['check', 'a', 0],
    ...fails(1),
    ['check', 'a', 0],
    ...fails(1),
    ['check', 'a', 0],
    ...fails(4),
    ['check', 'a', 0],
  ],
  'a lockout runs out': [...fails(3), ['check', 'a', 999], ['check', 'a', 1], ['check', 'a', 5]],
  'failures are forgotten a window after the last': [...fails(2), ['fail', 'a', 60_001], ['check', 'a', 0], ...fails(2), ['check', 'a', 0]],
  'a lockout longer than the window keeps the count until it ends': [...fails(20, 'a', 0), ['check', 'a', 0], ['fail', 'a', 7_999], ['check', 'a', 0]],
  'a reset forgets the failures': [...fails(3), ['reset', 'a', 0], ['check', 'a', 0], ...fails(2), ['check', 'a', 0]],
  'keys are counted apart': [...fails(3, 'a'), ['check', 'b', 0], ...fails(2, 'b'), ['check', 'b', 0], ['check', 'a', 0]],
}

const T0 = Date.parse('2026-03-01T00:00:00Z')

async function play(make: (clock: ReturnType<typeof manualClock>) => LoginThrottle, steps: Step[], prefix: string): Promise<number[]> {
  const clock = manualClock(T0)
  const throttle = make(clock)
  const waits: number[] = []
  for (const [op, key, dt] of steps) {
    clock.advance(dt)
    if (op === 'fail') await throttle.fail(prefix + key)
    else if (op === 'reset') await throttle.reset(prefix + key)
    else waits.push(await throttle.retryAfterMs(prefix + key))
  }
  return waits
}

const pg = postgresForTests()
const redis = redisForTests()
const run = `t${process.pid}-${Date.now().toString(36)}-`
let db: FreshDatabase | null = null
let sql: SQL | null = null
const redisClients: ReturnType<typeof lazyRedis>[] = []

async function database(): Promise<SQL> {
  if (!sql) {
    db = await pg.freshDatabase('vigil_throttle')
    sql = new SQL(db.url, { max: 4 })
    await migratePostgres(sql, Date.now())
  }
  return sql
}

function redisClient() {
  const r = lazyRedis(redis.url!)
  redisClients.push(r)
  return r.client
}

afterAll(async () => {
  for (const r of redisClients) r.close()
  await sql?.close()
  await db?.drop()
}, 60_000)

type Make = (clock: ReturnType<typeof manualClock>, policy: ThrottlePolicy) => LoginThrottle
const ENGINES: { name: string; skip: string | false; make: () => Promise<Make> }[] = [
  { name: 'redis', skip: redis.url ? false : redis.skipReason, make: async () => (clock, policy) => redisThrottle(redisClient(), clock, policy, 'account') },
  {
    name: 'postgres',
    skip: pg.url ? false : pg.skipReason,
    make: async () => {
      const s = await database()
      return (clock, policy) => postgresThrottle(s, clock, policy, 'account')
    },
  },
]

describe('every shared store answers as the memory throttle does', () => {
  test('the reference itself: locked 1 s after the third failure, then 2 s, 4 s, and 8 s at most', async () => {
    const memory = (clock: ReturnType<typeof manualClock>) => loginThrottle(clock, POLICY)
    expect(await play(memory, CASES['each further failure doubles the lockout up to the most']!, '')).toEqual([1_000, 2_000, 4_000, 8_000])
    expect(await play(memory, CASES['a lockout runs out']!, '')).toEqual([1, 0, 0])
  })

  for (const engine of ENGINES) {
    for (const [name, steps] of Object.entries(CASES)) {
      test.skipIf(!!engine.skip)(
        `${engine.name}: ${name} ${engine.skip || ''}`,
        async () => {
          const make = await engine.make()
          const expected = await play((clock) => loginThrottle(clock, POLICY), steps, '')
          expect(await play((clock) => make(clock, POLICY), steps, `${run}${engine.name}:${name}:`)).toEqual(expected)
        },
        60_000,
      )
    }
  }
})

describe('two throttles on one store are two hubs counting the same failures', () => {
  for (const engine of ENGINES) {
    test.skipIf(!!engine.skip)(
      `${engine.name}: failures alternating between two hubs lock the account after as many as on one hub ${engine.skip || ''}`,
      async () => {
        const make = await engine.make()
        const clock = manualClock(T0)
        const hubs = [make(clock, ACCOUNT_POLICY), make(clock, ACCOUNT_POLICY)]
        const key = `${run}${engine.name}:email:victim@example.test`
        const waits: number[] = []
        for (let i = 0; i < ACCOUNT_POLICY.free; i++) {
          const hub = hubs[i % 2]!
          waits.push(await hub.retryAfterMs(key))
          await hub.fail(key)
        }
        // one hub alone would now refuse for 30 s: so does each of the two
        expect(waits).toEqual([0, 0, 0, 0, 0])
        expect(await hubs[0]!.retryAfterMs(key)).toBe(30_000)
        expect(await hubs[1]!.retryAfterMs(key)).toBe(30_000)
        // a success on one hub forgets the count on both
        await hubs[1]!.reset(key)
        expect(await hubs[0]!.retryAfterMs(key)).toBe(0)
      },
      60_000,
    )

    test.skipIf(!!engine.skip)(
      `${engine.name}: concurrent failures from two hubs are each counted ${engine.skip || ''}`,
      async () => {
        const make = await engine.make()
        const clock = manualClock(T0)
        const policy: ThrottlePolicy = { free: 40, baseMs: 1_000, maxMs: 60_000, windowMs: 60_000 }
        const hubs = [make(clock, policy), make(clock, policy)]
        const key = `${run}${engine.name}:concurrent`
        await Promise.all(Array.from({ length: 39 }, (_, i) => hubs[i % 2]!.fail(key)))
        expect(await hubs[0]!.retryAfterMs(key)).toBe(0)
        await hubs[1]!.fail(key)
        expect(await hubs[0]!.retryAfterMs(key)).toBe(1_000)
      },
      60_000,
    )
  }
})

describe('the PostgreSQL throttle forgets', () => {
  test.skipIf(!pg.url)(
    `rows past their window and their lockout, once a window, and keeps the others ${pg.skipReason}`,
    async () => {
      const s = await database()
      const clock = manualClock(T0)
      // a lockout (2 min) longer than the window (1 min)
      const long: ThrottlePolicy = { free: 2, baseMs: 120_000, maxMs: 120_000, windowMs: 60_000 }
      const throttle = postgresThrottle(s, clock, long, `sweep-${run}`)
      await throttle.fail('done')
      await throttle.fail('locked')
      await throttle.fail('locked')
      clock.advance(long.windowMs + 1)
      await throttle.fail('fresh')
      const keys = (await s`SELECT key FROM login_throttle WHERE key LIKE ${`sweep-${run}:%`} ORDER BY key`) as { key: string }[]
      expect(keys.map((r) => r.key)).toEqual([`sweep-${run}:fresh`, `sweep-${run}:locked`])
      expect(await throttle.retryAfterMs('locked')).toBe(120_000 - long.windowMs - 1)
    },
    60_000,
  )
})

describe('the Redis throttle forgets', () => {
  test.skipIf(!redis.url)(`a key when its window or its lockout ends, whichever is later ${redis.skipReason}`, async () => {
    const client = redisClient()
    const clock = manualClock(T0)
    const long: ThrottlePolicy = { free: 2, baseMs: 120_000, maxMs: 120_000, windowMs: 60_000 }
    const throttle = redisThrottle(client, clock, long, `expiry-${run}`)
    await throttle.fail('a')
    const ttl = async () => Number(await client.send('PTTL', [`vigil:login:expiry-${run}:a`]))
    expect(await ttl()).toBeGreaterThan(59_000)
    expect(await ttl()).toBeLessThanOrEqual(60_001)
    clock.advance(10_000)
    await throttle.fail('a')
    expect(await ttl()).toBeGreaterThan(119_000)
    expect(await ttl()).toBeLessThanOrEqual(120_001)
  })
})

describe('a shared store that is down', () => {
  const failing = (): LoginThrottle => ({
    retryAfterMs: () => Promise.reject(new Error('connect ECONNREFUSED redis://:hunter2@10.0.0.9')),
    fail: () => Promise.reject(new Error('connect ECONNREFUSED redis://:hunter2@10.0.0.9')),
    reset: () => Promise.reject(new Error('connect ECONNREFUSED redis://:hunter2@10.0.0.9')),
  })

  test('counts in the hub memory meanwhile, says so once, and once more when the store answers again', async () => {
    const clock = manualClock(T0)
    const { logger, lines } = memoryLogger()
    const { timers } = manualTimers()
    let shared = failing()
    const switching: LoginThrottle = {
      retryAfterMs: (k) => shared.retryAfterMs(k),
      fail: (k) => shared.fail(k),
      reset: (k) => shared.reset(k),
    }
    const state = { down: false, store: 'redis://:***@10.0.0.9', secret: 'hunter2', logger, timers, boundMs: 250 }
    const throttle = withLocalThrottle(switching, memoryThrottle(clock, POLICY), state)
    for (let i = 0; i < POLICY.free; i++) await throttle.fail('k')
    expect(await throttle.retryAfterMs('k')).toBe(1_000)
    const warned = lines.filter((l) => l.includes('login throttle store unreachable'))
    expect(warned).toHaveLength(1)
    expect(JSON.stringify(lines)).not.toContain('hunter2')
    // the store is back: it answers (and has counted nothing meanwhile)
    shared = loginThrottle(clock, POLICY)
    expect(await throttle.retryAfterMs('k')).toBe(0)
    expect(lines.filter((l) => l.includes('login throttle store answers again'))).toHaveLength(1)
  })

  test('a store that does not answer within the bound is down too', async () => {
    const clock = manualClock(T0)
    const { logger, lines } = memoryLogger()
    const manual = manualTimers()
    const hanging: LoginThrottle = { retryAfterMs: () => new Promise(() => {}), fail: () => new Promise(() => {}), reset: () => new Promise(() => {}) }
    const state = { down: false, store: 'postgresql', secret: undefined, logger, timers: manual.timers, boundMs: 250 }
    const throttle = withLocalThrottle(hanging, memoryThrottle(clock, POLICY), state)
    const answer = throttle.fail('k')
    expect(manual.fire()).toBe(1)
    await answer
    expect(lines.filter((l) => l.includes('login throttle store unreachable'))).toHaveLength(1)
  })

  test('a hub on SQLite keeps the throttle in memory, whatever VIGIL_REDIS_URL says', async () => {
    const { logger, lines } = memoryLogger()
    const t = selectLoginThrottles({
      pg: null,
      databaseUrl: null,
      redisUrl: 'redis://127.0.0.1:1',
      clock: manualClock(T0),
      timers: manualTimers().timers,
      logger,
    })
    for (let i = 0; i < ACCOUNT_POLICY.free; i++) await t.account.fail('k')
    expect(await t.account.retryAfterMs('k')).toBe(30_000)
    expect(lines).toHaveLength(0)
  })
})
