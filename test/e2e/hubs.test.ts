/**
 * Several `dist/vigil serve` hubs on one PostgreSQL database (test/helpers/hubs.ts): what one hub
 * does, the others see, and what must happen once happens once however many hubs there are.
 * Each test waits for what it looks for (a row, a log line, an event), bounded by its timeout.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { ensureBinary } from '../helpers/binary'
import { accountWithDevice, client, type Hubs, hubsSkipReason, startHubs } from '../helpers/hubs'
import { nginxSkipReason } from '../helpers/nginx'
import { sseReader } from '../helpers/sse'
import { webhookReceiver } from '../helpers/webhook-receiver'

/** true until the lead lifts the refusal in src/cli/serve.ts: the hubs cannot start on PostgreSQL before */
const skip = hubsSkipReason !== ''
const why = hubsSkipReason

const running: Hubs[] = []
const stops: (() => void)[] = []
afterEach(async () => {
  for (const s of stops.splice(0)) s()
  for (const h of running.splice(0)) await h.stop()
}, 60_000)

async function hubs(count: number, env: Record<string, string> = {}) {
  ensureBinary()
  const h = await startHubs({ count, env: { VIGIL_RATE_LIMIT_DELAY_MS: '0', ...env } })
  running.push(h)
  return h
}

/** polls `check` until it holds: each test's own timeout bounds the wait */
async function eventually<T>(check: () => Promise<T | undefined | null | false>, everyMs = 100): Promise<T> {
  for (;;) {
    const v = await check()
    if (v) return v
    await Bun.sleep(everyMs)
  }
}

/** the jobs marked everyHub (src/composition/index.ts, checks.ts, storage.jobs.ts): each hub runs them, unclaimed */
const EVERY_HUB = ['devices.status', 'ai.hub-alive', 'alerts.evaluate', 'checks.rows', 'storage.budget', 'storage.measure']

/** a hub's finished runs of one job, from its debug log */
const runsOf = (log: string, job: string) => log.split('\n').filter((l) => l.includes('"msg":"job done"') && l.includes(`"job":"${job}"`)).length

/** each hub's finished runs of each job, from its debug log */
function runsByJob(h: Hubs): Map<string, number> {
  const runs = new Map<string, number>()
  for (const hub of h.hubs) {
    for (const line of hub.log().split('\n')) {
      if (!line.includes('"msg":"job done"') && !line.includes('"msg":"job failed"')) continue
      const job = JSON.parse(line).job as string
      runs.set(job, (runs.get(job) ?? 0) + 1)
    }
  }
  return runs
}

describe('several hubs on one PostgreSQL database', () => {
  test.skipIf(skip)(
    `every scheduled job runs once across three hubs, counted in their logs and in job_runs ${why}`,
    async () => {
      const h = await hubs(3, { VIGIL_LOG_LEVEL: 'debug' })
      // two slots of a claimed 15-second job, each finished
      await eventually(async () => {
        const [{ n }] = await h.sql`SELECT count(*)::int AS n FROM job_runs WHERE job = 'checks.heartbeats' AND finished_at IS NOT NULL`
        return n >= 2
      }, 500)
      await h.terminate() // each hub finishes the runs it started
      const rows: { job: string; n: number }[] = await h.sql`SELECT job, count(*)::int AS n FROM job_runs GROUP BY job`
      const runs = runsByJob(h)
      expect(rows.find((r) => r.job === 'checks.heartbeats')?.n).toBeGreaterThanOrEqual(2)
      // each claim ran once, and nothing ran outside the claims (none at a hub's start either),
      // but the jobs every hub runs on its own memory
      const claimed = new Map(rows.map((r) => [r.job, r.n]))
      for (const job of new Set([...claimed.keys(), ...runs.keys()])) {
        if (EVERY_HUB.includes(job)) continue
        expect({ job, runs: runs.get(job) ?? 0 }).toEqual({ job, runs: claimed.get(job) ?? 0 })
      }
      for (const job of EVERY_HUB) expect(claimed.has(job)).toBe(false)
    },
    120_000,
  )

  test.skipIf(skip)(
    `an alert seen by two hubs notifies once ${why}`,
    async () => {
      const h = await hubs(2, { VIGIL_OUTBOUND_ALLOW_LOCAL: 'true', VIGIL_LOG_LEVEL: 'debug' })
      const receiver = webhookReceiver()
      stops.push(receiver.stop)
      const a = await accountWithDevice(h.hubs[0]!.base, 'ops@example.test')
      const api = client(h.hubs[0]!.base, a.auth)
      const channel = await api('POST', '/v1/channels', { name: 'hook', kind: 'webhook', config: { url: receiver.url } })
      expect(channel.status).toBe(201)
      const rule = await api('POST', '/v1/alerts/rules', {
        name: 'cpu',
        metric: 'cpu_percent',
        operator: '>',
        threshold: 90,
        for_seconds: 0,
        channel_ids: [channel.body.id],
      })
      expect(rule.status).toBe(201)
      const collector = { 'x-api-key': a.key, 'x-device-id': a.deviceId }
      // both hubs store a hot sample of the device, and both evaluate rules
      for (const hub of h.hubs) expect((await client(hub.base, collector)('POST', '/v1/metrics/hardware', { cpu_percent: 97 })).status).toBe(201)
      await eventually(async () => receiver.requests.length >= 1)
      // two more evaluations on each hub after the notice (every hub evaluates; one transition wins)
      const before = h.hubs.map((hub) => runsOf(hub.log(), 'alerts.evaluate'))
      await eventually(async () => h.hubs.every((hub, i) => runsOf(hub.log(), 'alerts.evaluate') >= before[i]! + 2), 500)
      const firing = receiver.requests.filter((r) => JSON.parse(r.body).event === 'firing')
      expect(firing).toHaveLength(1)
    },
    120_000,
  )

  test.skipIf(skip)(
    `a session signed out on one hub is refused by the other at once ${why}`,
    async () => {
      const h = await hubs(2)
      const a = await accountWithDevice(h.hubs[0]!.base, 'ops@example.test')
      const [one, two] = [client(h.hubs[0]!.base, a.auth), client(h.hubs[1]!.base, a.auth)]
      expect((await two('GET', '/v1/auth/me')).status).toBe(200) // verified, and cached, there
      expect((await one('POST', '/v1/auth/logout', { refresh_token: a.login.refresh_token })).status).toBe(204)
      // the hub link carries the revocation: well before the 5-second re-read of the database
      const started = performance.now()
      await eventually(async () => (await two('GET', '/v1/auth/me')).status === 401, 20)
      expect(performance.now() - started).toBeLessThan(5_000)
      expect((await one('GET', '/v1/auth/me')).status).toBe(401)
    },
    60_000,
  )

  test.skipIf(skip)(
    `a client's rate limit holds across the hubs, in PostgreSQL without Redis; another client keeps its own ${why}`,
    async () => {
      const LIMIT = 10
      const METRICS_TOKEN = 'm'.repeat(40)
      const h = await hubs(2, {
        VIGIL_MODE: 'own',
        VIGIL_SIGNUP: 'open',
        VIGIL_OWN_RATE_LIMIT: String(LIMIT),
        VIGIL_RATE_LIMIT_ANONYMOUS: '1000',
        VIGIL_METRICS_TOKEN: METRICS_TOKEN,
      })
      /** the checks a hub answered alone because PostgreSQL did not answer within the bound (a loaded machine) */
      const fallbacks = async () => {
        let n = 0
        for (const hub of h.hubs) {
          const text = await (await fetch(`${hub.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
          n += Number(/^vigil_rate_limit_fallbacks_total (\d+)$/m.exec(text)?.[1])
        }
        return n
      }
      const b = await accountWithDevice(h.hubs[1]!.base, 'other@example.test')
      // twice an account's budget at once, over both hubs in turn; a round in which a hub answered a
      // check alone (counted on /metrics, as documented) is played again with a fresh account
      let shared = false
      for (let round = 0; round < 3 && !shared; round++) {
        const a = await accountWithDevice(h.hubs[0]!.base, `ops${round}@example.test`)
        const collector = { 'x-api-key': a.key, 'x-device-id': a.deviceId }
        const before = await fallbacks()
        const answers: { hub: number; status: number }[] = []
        for (let i = 0; i < 2 * LIMIT; i++) {
          const hub = i % 2
          answers.push({ hub, status: (await client(h.hubs[hub]!.base, collector)('POST', '/v1/metrics/hardware', { cpu_percent: 1 })).status })
        }
        if ((await fallbacks()) !== before) continue
        shared = true
        const allowed = answers.filter((x) => x.status === 201).length
        // at most the budget (and a token or two refilled while the requests went on)
        expect(allowed).toBeLessThanOrEqual(LIMIT + 2)
        for (const hub of [0, 1]) expect(answers.some((x) => x.hub === hub && x.status === 429)).toBe(true)
      }
      expect(shared).toBe(true)
      expect(h.hubs.every((hub) => hub.log().includes('rate limit shared across hubs'))).toBe(true)
      // the other account's budget is its own, on either hub
      const other = { 'x-api-key': b.key, 'x-device-id': b.deviceId }
      for (const hub of h.hubs) expect((await client(hub.base, other)('POST', '/v1/metrics/hardware', { cpu_percent: 1 })).status).toBe(201)
    },
    60_000,
  )

  test.skipIf(skip)(
    `the live stream of a user on one hub (through nginx when installed) shows the samples posted to each hub ${why}`,
    async () => {
      ensureBinary()
      const h = await startHubs({ count: 2, nginx: nginxSkipReason === '' })
      running.push(h)
      // through the proxy headers of nginx the registration may come from anywhere: it takes the setup token
      const a = await accountWithDevice(h.hubs[0]!.base, 'ops@example.test', h.setupToken())
      // through nginx the stream lands on either hub: a sample posted to each, one of them is another hub's
      const streamBase = nginxSkipReason === '' ? h.base : h.hubs[1]!.base
      const stream = await fetch(`${streamBase}/v1/events`, { headers: { ...a.auth, accept: 'text/event-stream' } })
      expect(stream.status).toBe(200)
      const reader = sseReader(stream)
      const values = [41.5, 42.5]
      for (const [i, hub] of h.hubs.entries()) {
        const posted = await client(hub.base, { 'x-api-key': a.key, 'x-device-id': a.deviceId })('POST', '/v1/metrics/hardware', { cpu_percent: values[i] })
        expect(posted.status).toBe(201)
      }
      const seen: number[] = []
      while (seen.length < values.length) {
        const frame = await reader.event()
        if (frame === null) throw new Error('the stream ended')
        if (frame.event !== 'sample') continue
        expect(frame.data.data).toMatchObject({ device_id: a.deviceId, kind: 'hardware' })
        seen.push(frame.data.data.values.cpu_percent)
      }
      expect(seen.sort()).toEqual(values)
      await reader.cancel()
    },
    60_000,
  )
})
