import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { redisRateLimiter } from '../../src/http/rate-limiter.redis'
import type { RateLimiter } from '../../src/http/rate-limiter'
import { freePort, startBinary, tempDir } from '../helpers/binary'
import { redisForTests } from '../helpers/postgres'

/**
 * dist/vigil with VIGIL_REDIS_URL: the client's budget lives in Redis, so it survives a restart
 * of the hub and is the one other limiters on the same Redis (other hubs) take from.
 */
const redis = redisForTests()
const procs: Bun.Subprocess[] = []
const limiters: RateLimiter[] = []
afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
  for (const l of limiters) await l.close?.()
})

const json = { 'content-type': 'application/json' }
/** the client's budget: 10 a minute, one token back every 6 s, so the test's own pace barely refills it */
const LIMIT = 10
const METRICS_TOKEN = 'metrics-token-for-the-rate-limit-test-0123456789'

async function hub(cwd: string, redisUrl: string, extra: Record<string, string> = {}) {
  const h = await startBinary({
    cwd,
    env: {
      VIGIL_DATA_DIR: join(cwd, 'data'),
      VIGIL_REDIS_URL: redisUrl,
      VIGIL_OWN_RATE_LIMIT: String(LIMIT),
      // registration and login are anonymous: not the budget under test
      VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
      VIGIL_RATE_LIMIT_DELAY_MS: '0',
      VIGIL_METRICS_TOKEN: METRICS_TOKEN,
      ...extra,
    },
  })
  procs.push(h.proc)
  let log = ''
  void (async () => {
    for await (const chunk of h.proc.stdout as ReadableStream<Uint8Array>) log += new TextDecoder().decode(chunk)
  })()
  return { ...h, log: () => log }
}

async function stop(proc: Bun.Subprocess) {
  proc.kill('SIGTERM')
  await proc.exited
}

async function operator(base: string) {
  const account = { email: 'ops@example.test', password: 'correct horse battery' }
  const user = (await (
    await fetch(`${base}/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...account, company: 'Acme' }) })
  ).json()) as {
    client_id: string
  }
  const login = (await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(account) })).json()) as {
    access_token: string
  }
  return { clientId: user.client_id, headers: { authorization: `Bearer ${login.access_token}` } }
}

describe('the rate limit in Redis, through dist/vigil', () => {
  test.skipIf(!redis.url)(
    `the budget holds across a restart of the hub, and limiters of other hubs on the same Redis take from it ${redis.skipReason}`,
    async () => {
      const cwd = tempDir('vigil-ratelimit-')
      let h = await hub(cwd, redis.url!)
      const op = await operator(h.base)
      const get = (base: string) => fetch(`${base}/v1/clients/me/devices`, { headers: op.headers })
      const remaining = (r: Response) => Number(r.headers.get('x-ratelimit-remaining'))

      let last = 0
      for (let i = 0; i < 5; i++) {
        const r = await get(h.base)
        expect(r.status).toBe(200)
        last = remaining(r)
      }
      expect(last).toBeLessThanOrEqual(LIMIT - 5)

      // a new process with an empty memory: the budget is where it was (give or take a token refilled)
      await stop(h.proc)
      h = await hub(cwd, redis.url!)
      const after = await get(h.base)
      expect(after.status).toBe(200)
      expect(after.headers.get('x-ratelimit-limit')).toBe(String(LIMIT))
      expect(remaining(after)).toBeLessThanOrEqual(last)

      // two more hubs' limiters on the same Redis spend what is left of the client's budget...
      const [a, b] = [redisRateLimiter(redis.url!), redisRateLimiter(redis.url!)]
      limiters.push(a, b)
      let taken = 0
      for (let i = 0; i < LIMIT + 2; i++) {
        if (!(await (i % 2 ? b : a).take(`c:${op.clientId}`, LIMIT, Date.now())).allowed) break
        taken++
      }
      expect(taken).toBeGreaterThan(0)
      expect(taken).toBeLessThanOrEqual(remaining(after) + 1)
      // ...and this hub refuses the client at once
      const refused = await get(h.base)
      expect(refused.status).toBe(429)
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
      expect(h.log()).toContain('"msg":"rate limit shared across hubs"')
      expect(h.log()).not.toContain('rate limit store unreachable')
    },
    60_000,
  )
})

describe('two hubs on one Redis', () => {
  test.skipIf(!redis.url)(
    `requests alternating between two dist/vigil hubs count against one budget per address ${redis.skipReason}`,
    async () => {
      // two hubs as behind a proxy on this machine: the caller's address is its X-Forwarded-For,
      // one of this run's own, so no bucket of another run or test is in the way
      const proxied = { VIGIL_TRUST_PROXY: 'true', VIGIL_RATE_LIMIT_ANONYMOUS: '20' }
      const [a, b] = [await hub(tempDir('vigil-ratelimit-a-'), redis.url!, proxied), await hub(tempDir('vigil-ratelimit-b-'), redis.url!, proxied)]
      const byte = () => 1 + Math.floor(Math.random() * 254)
      const caller = { 'x-forwarded-for': `10.${byte()}.${byte()}.${byte()}` }
      const statuses: { hub: 'a' | 'b'; status: number }[] = []
      for (let i = 0; i < 24; i++) {
        const h = i % 2 ? b : a
        const res = await fetch(`${h.base}/health`, { headers: caller })
        await res.arrayBuffer()
        statuses.push({ hub: i % 2 ? 'b' : 'a', status: res.status })
      }
      // each hub saw 12 requests, under the 20 a minute it would allow by itself; together they
      // spent the budget of 20 (a 21st only if a token came back while they ran: one every 3 s)
      const ok = statuses.filter((s) => s.status === 200).length
      expect(ok).toBeGreaterThanOrEqual(20)
      expect(ok).toBeLessThanOrEqual(21)
      expect(statuses.slice(0, 20).every((s) => s.status === 200)).toBe(true)
      expect(new Set(statuses.filter((s) => s.status === 429).map((s) => s.hub))).toEqual(new Set(['a', 'b']))
    },
    60_000,
  )
})

test('a hub whose Redis does not answer serves every request, counting alone, says so once without the password, and counts the fallbacks on /metrics', async () => {
  const cwd = tempDir('vigil-ratelimit-down-')
  const nobody = freePort() // nothing listens there
  const h = await hub(cwd, `redis://:hunter2-pass-9876@127.0.0.1:${nobody}/0`)
  const op = await operator(h.base)
  for (let i = 0; i < LIMIT; i++) expect((await fetch(`${h.base}/v1/clients/me/devices`, { headers: op.headers })).status).toBe(200)
  // the hub's own limit still holds
  expect((await fetch(`${h.base}/v1/clients/me/devices`, { headers: op.headers })).status).toBe(429)
  const metrics = await (await fetch(`${h.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
  const fallbacks = Number(/^vigil_rate_limit_fallbacks_total (\d+)$/m.exec(metrics)?.[1])
  expect(fallbacks).toBeGreaterThanOrEqual(LIMIT + 1)
  await stop(h.proc)
  const log = h.log()
  expect(log.match(/rate limit store unreachable/g)).toHaveLength(1)
  expect(log).toContain(`redis://:***@127.0.0.1:${nobody}/0`)
  expect(log).not.toContain('hunter2-pass-9876')
}, 60_000)
