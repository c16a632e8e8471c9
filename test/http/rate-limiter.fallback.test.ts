import { afterAll, describe, expect, test } from 'bun:test'
import { RedisClient, type Socket, SQL } from 'bun'
import { migratePostgres } from '../../src/db/pg/migrate'
import { memoryRateLimiter, type RateLimiter } from '../../src/http/rate-limiter'
import { withLocalFallback } from '../../src/http/rate-limiter.fallback'
import { selectRateLimiter } from '../../src/http/rate-limiter.select'
import { createLogger } from '../../src/lib/logger'
import { systemTimers } from '../../src/lib/timers'
import type { TakeResult } from '../../src/lib/token-bucket'
import { freePort } from '../helpers/binary'
import { postgresForTests, redisForTests } from '../helpers/postgres'
import { manualTimers } from '../helpers/timers'

const T0 = Date.parse('2026-03-01T00:00:00Z')

function logs() {
  const lines: { level: string; msg: string; [k: string]: unknown }[] = []
  const logger = createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(JSON.parse(l)) })
  return { logger, lines, text: () => lines.map((l) => JSON.stringify(l)).join('\n') }
}

/** A shared store the test answers by hand: each take waits until the test says how it went. */
function scriptedStore() {
  const waiting: { resolve: (r: TakeResult) => void; reject: (e: Error) => void }[] = []
  const answers = memoryRateLimiter()
  const store: RateLimiter = {
    take: (key, limit, now) => new Promise<TakeResult>((resolve, reject) => waiting.push({ resolve: () => resolve(answers.take(key, limit, now)), reject })),
  }
  return {
    store,
    taken: () => waiting.length,
    answer: () => waiting.shift()!.resolve(undefined as never),
    fail: (message: string) => waiting.shift()!.reject(new Error(message)),
  }
}

function harness() {
  const s = scriptedStore()
  const t = manualTimers()
  const log = logs()
  let fallbacks = 0
  const limiter = withLocalFallback({
    shared: s.store,
    local: memoryRateLimiter(),
    timers: t.timers,
    logger: log.logger,
    store: 'redis://:***@10.0.0.9:6379',
    secret: 's3cret-pass',
    onFallback: () => fallbacks++,
  })
  return { s, t, log, limiter, fallbacks: () => fallbacks }
}

describe('a shared limiter that is down or slow never fails a request', () => {
  test('answers from the store while it answers in time, with no fallback counted', async () => {
    const h = harness()
    const p = h.limiter.take('c:1', 5, T0)
    expect(h.s.taken()).toBe(1)
    h.s.answer()
    expect(await p).toMatchObject({ allowed: true, remaining: 4 })
    expect(h.t.pending()).toBe(0) // the bound's timer is cancelled
    expect(h.fallbacks()).toBe(0)
    expect(h.log.lines).toEqual([])
  })

  test('a failed store: the hub counts alone, says so once without the password, asks again a second later, and says when it is back', async () => {
    const h = harness()
    const first = h.limiter.take('c:1', 2, T0)
    h.s.fail('connection to redis://:s3cret-pass@10.0.0.9:6379 refused')
    expect(await first).toMatchObject({ allowed: true, remaining: 1 })
    expect(h.fallbacks()).toBe(1)
    // within the retry interval the store is not asked: the local answer comes at once, not as a promise
    const second = h.limiter.take('c:1', 2, T0 + 500)
    expect(second).not.toBeInstanceOf(Promise)
    expect(second).toMatchObject({ allowed: true, remaining: 0 })
    expect((h.limiter.take('c:1', 2, T0 + 600) as TakeResult).allowed).toBe(false) // the local limit holds meanwhile
    expect(h.s.taken()).toBe(0)
    expect(h.fallbacks()).toBe(3)
    const warnings = h.log.lines.filter((l) => l.level === 'warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ msg: expect.stringContaining('rate limit store unreachable'), store: 'redis://:***@10.0.0.9:6379' })
    expect(h.log.text()).not.toContain('s3cret-pass')

    // a second on, one take asks the store again; the takes meanwhile still go local
    const probe = h.limiter.take('c:1', 2, T0 + 1_000)
    expect(h.s.taken()).toBe(1)
    expect(h.limiter.take('c:2', 2, T0 + 1_001)).not.toBeInstanceOf(Promise)
    h.s.answer()
    expect(await probe).toMatchObject({ allowed: true })
    const back = h.log.lines.filter((l) => l.level === 'info')
    expect(back).toHaveLength(1)
    expect(back[0]!.msg).toContain('answers again')
    expect(back[0]!.down_ms).toBe(1_000)
    // back to the store for every take
    void h.limiter.take('c:3', 2, T0 + 1_002)
    expect(h.s.taken()).toBe(1)
    expect(h.fallbacks()).toBe(4)
  })

  test('in a burst where one take fails and another is answered in time, the store stays down until a later take finds it back: one line each way', async () => {
    const h = harness()
    const first = h.limiter.take('c:1', 5, T0)
    const second = h.limiter.take('c:2', 5, T0)
    h.s.fail('refused')
    expect(await first).toMatchObject({ allowed: true, remaining: 4 })
    h.s.answer() // sent before the store went down: its answer says nothing of the store now
    expect(await second).toMatchObject({ allowed: true, remaining: 4 })
    expect(h.log.lines.map((l) => l.level)).toEqual(['warn'])
    expect(h.limiter.take('c:3', 5, T0 + 10)).not.toBeInstanceOf(Promise) // still counting locally
  })

  test('a store that does not answer within the bound: the take is answered locally when the bound passes', async () => {
    const h = harness()
    const p = h.limiter.take('c:1', 5, T0)
    expect(h.t.fire()).toBe(1) // the 50 ms bound
    expect(await p).toMatchObject({ allowed: true, remaining: 4 })
    expect(h.fallbacks()).toBe(1)
    expect(h.log.lines[0]).toMatchObject({ level: 'warn', reason: 'no answer within 50 ms' })
    h.s.answer() // the late answer changes nothing
    expect(h.log.lines).toHaveLength(1)
  })
})

const spawned: Bun.Subprocess[] = []
const listeners: { stop(): void }[] = []
afterAll(async () => {
  for (const p of spawned) {
    p.kill()
    await p.exited
  }
  for (const l of listeners) l.stop()
})

/** A redis-server of the test's own on a free port, without persistence. */
async function startRedis(port: number) {
  const proc = Bun.spawn(['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdout: 'pipe' })
  spawned.push(proc)
  const reader = proc.stdout.getReader()
  let out = ''
  while (!out.includes('Ready to accept connections')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`redis-server did not start: ${out}`)
    out += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return proc
}

const hasRedisServer = Bun.which('redis-server') !== null
const skipNoServer = hasRedisServer ? '' : '(skipped: redis-server is not installed)'

describe('through a real Redis that goes away', () => {
  test.skipIf(!hasRedisServer)(`the hub keeps answering while Redis is stopped, and shares the budget again once it is back ${skipNoServer}`, async () => {
    const port = freePort()
    let redis = await startRedis(port)
    const log = logs()
    let fallbacks = 0
    const limiter = selectRateLimiter({
      redisUrl: `redis://127.0.0.1:${port}`,
      databaseUrl: null,
      logger: log.logger,
      timers: systemTimers,
      onFallback: () => fallbacks++,
    })
    try {
      expect(await limiter.take('c:1', 3, T0)).toMatchObject({ allowed: true, remaining: 2 })
      expect(fallbacks).toBe(0)
      redis.kill()
      await redis.exited
      // stopped: the take is answered by the hub's own bucket (full: it never saw the first take)
      expect(await limiter.take('c:1', 3, T0 + 10)).toMatchObject({ allowed: true, remaining: 2 })
      expect(await limiter.take('c:1', 3, T0 + 20)).toMatchObject({ allowed: true, remaining: 1 })
      expect(fallbacks).toBe(2)
      expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1)

      redis = await startRedis(port)
      // each later second asks Redis again until the client has reconnected
      let now = T0 + 1_000
      let answer = await limiter.take('c:1', 3, now)
      for (let i = 0; i < 50 && !log.lines.some((l) => l.msg.includes('answers again')); i++) {
        await Bun.sleep(100) // the client reconnects in real time; the limiter's clock is the test's
        now += 1_000
        answer = await limiter.take('c:1', 3, now)
      }
      expect(log.lines.filter((l) => l.msg.includes('answers again'))).toHaveLength(1)
      // the restarted Redis starts empty (no persistence): a fresh bucket, counted there again
      expect(answer).toMatchObject({ allowed: true, remaining: 2 })
      expect(await limiter.take('c:1', 3, now)).toMatchObject({ allowed: true, remaining: 1 })
    } finally {
      await limiter.close?.()
    }
  })

  test('a server that accepts connections and never answers: each take is answered locally once the bound passes', async () => {
    const sockets: Socket[] = []
    const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { open: (s) => void sockets.push(s), data: () => {} } })
    listeners.push(silent)
    const log = logs()
    let fallbacks = 0
    const limiter = selectRateLimiter({
      redisUrl: `redis://:hunter2-secret@127.0.0.1:${silent.port}`,
      databaseUrl: null,
      logger: log.logger,
      timers: systemTimers,
      onFallback: () => fallbacks++,
    })
    try {
      expect(await limiter.take('c:1', 3, T0)).toMatchObject({ allowed: true, remaining: 2 })
      expect(await limiter.take('c:1', 3, T0 + 1)).toMatchObject({ allowed: true, remaining: 1 })
      expect(fallbacks).toBe(2)
      expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1)
      expect(log.text()).not.toContain('hunter2-secret')
      expect(log.text()).toContain(`redis://:***@127.0.0.1:${silent.port}`)
    } finally {
      await limiter.close?.()
    }
  })
})

describe('which store the hub uses', () => {
  const pg = postgresForTests()
  const redis = redisForTests()
  const choose = (redisUrl: string | null, databaseUrl: string | null) =>
    selectRateLimiter({ redisUrl, databaseUrl, logger: logs().logger, timers: systemTimers, onFallback: () => {} })

  test('neither VIGIL_REDIS_URL nor PostgreSQL: this process, answering at once', () => {
    expect(choose(null, null).take('c:1', 5, T0)).toMatchObject({ allowed: true, remaining: 4 })
  })

  test.skipIf(!pg.url || !redis.url)(
    `VIGIL_REDIS_URL wins over PostgreSQL; PostgreSQL alone keeps the buckets in its table ${pg.skipReason}${redis.skipReason}`,
    async () => {
      const db = await pg.freshDatabase()
      const sql = new SQL(db.url, { max: 1 })
      const raw = new RedisClient(redis.url!)
      const both = choose(redis.url!, db.url)
      const pgOnly = choose(null, db.url)
      try {
        await migratePostgres(sql, T0)
        const key = `select-${process.pid}-${Date.now()}`
        await both.take(`${key}-both`, 5, T0)
        await pgOnly.take(`${key}-pg`, 5, T0)
        expect(Number(await raw.send('EXISTS', [`vigil:rl:${key}-both`]))).toBe(1)
        const rows = await sql`SELECT key FROM rate_limit_buckets ORDER BY key`
        expect(rows.map((r: { key: string }) => r.key)).toEqual([`${key}-pg`])
      } finally {
        await both.close?.()
        await pgOnly.close?.()
        raw.close()
        await sql.close()
        await db.drop()
      }
    },
    30_000,
  )
})
