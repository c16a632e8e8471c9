/**
 * The webhook section of `bun run bench` (alone: `--webhooks-only`):
 * 1. throughput: N deliveries left pending in the outbox of a stopped dist/vigil (an alert.firing
 *    payload of ~0.7 KB each, one endpoint), then the server started: its worker claims, signs
 *    (HMAC-SHA256, Standard Webhooks headers), sends through the outbound policy and records each
 *    attempt; the rate is the receiver's, from its first arrival to its last;
 * 2. the baseline in the same run: the same receiver driven by plain unsigned POSTs of the same
 *    body from one process, as many at a time as the worker sends to one endpoint;
 * 3. latency of the fast path: test events sent one after another through the API, time from
 *    the POST to the receiver's arrival (the alerts' crossing → webhook budget is 2 s).
 * The receiver runs in its own process (scripts/bench/webhook-receiver.ts).
 */
import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { newId } from '../../src/lib/ids'
import { payloadOf } from '../../src/modules/webhooks/webhooks.events'
import { cpuMs, freePort, runJson, stop, waitReady } from './proc'

/** deliveries the worker sends to one endpoint at once (src/composition/webhooks.ts) */
const PER_ENDPOINT = 8

interface Stats {
  count: number
  unique: number
  first: number
  last: number
  arrivals: Record<string, number>
}

const alertData = (i: number) => ({
  alert: {
    id: `alr_${i}`,
    rule: { id: 'rul_disk', name: 'Disk almost full', severity: 'critical' },
    device: { id: 'dev_0190aa', name: 'web-1' },
    state: 'firing',
    value: 93.4,
    threshold: 90,
    started_at: '2026-05-01T10:00:00.000Z',
    resolved_at: null,
    acknowledged: null,
    context: { mount: '/', used_gb: 186.8, total_gb: 200, trend_gb_per_day: 3.1, message: 'disk / above 90% on web-1 for 5 minutes' },
  },
})

export async function webhooksBench(opts: { root: string; tmp: string; quick: boolean; log: (m: string) => void }) {
  const n = opts.quick ? 3_000 : 20_000
  const dir = join(opts.tmp, 'webhooks')
  mkdirSync(dir, { recursive: true })
  const receiverPort = freePort()
  const receiver = Bun.spawn([process.execPath, join(opts.root, 'scripts/bench/webhook-receiver.ts'), String(receiverPort)], {
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const hook = `http://127.0.0.1:${receiverPort}`
  const start = () => {
    const port = freePort()
    const server = Bun.spawn([join(opts.root, 'dist/vigil'), 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], {
      env: {
        ...process.env,
        VIGIL_JWT_SECRET: 'bench-secret-bench-secret-bench-secret!',
        VIGIL_OUTBOUND_ALLOW_LOCAL: 'true',
        // hashing the ~120 MB executable 30 s after start would land in the latency phase
        VIGIL_PUBLISH_SELF: 'off',
        VIGIL_RATE_LIMIT_FREE: '10000000',
        VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
        VIGIL_LOG_LEVEL: 'warn',
        VIGIL_LOG_FORMAT: 'json',
      },
      stdout: 'inherit',
      stderr: 'inherit',
    })
    return { server, base: `http://127.0.0.1:${port}` }
  }
  const stats = async (arrivals = false) => (await (await fetch(`${hook}/stats${arrivals ? '?arrivals' : ''}`)).json()) as Stats
  const reset = () => fetch(`${hook}/reset`, { method: 'POST' })
  let vigil = start()
  try {
    await waitReady(`${hook}/stats`, receiver)
    await waitReady(`${vigil.base}/health`, vigil.server)
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(vigil.base + path, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return (await res.json()) as any
    }
    await call('POST', '/v1/auth/register', { email: 'bench@example.test', password: 'correct horse battery' })
    const login = await call('POST', '/v1/auth/login', { email: 'bench@example.test', password: 'correct horse battery' })
    const auth = { authorization: `Bearer ${login.access_token}` }
    const endpoint = await call('POST', '/v1/webhooks/endpoints', { url: `${hook}/hook`, event_types: ['alert.firing'] }, auth)
    if (!endpoint.id) throw new Error(`endpoint: ${JSON.stringify(endpoint)}`)
    await stop(vigil.server)

    // 1. the backlog, written as the bus listener writes it, while the server is down
    opts.log(`webhooks: ${n} deliveries pending, then dist/vigil started`)
    const db = new Database(join(dir, 'vigil.db'))
    const insert = db.query(
      "INSERT INTO webhook_deliveries (id, client_id, endpoint_id, message_id, event_type, payload, status, next_attempt_at, created_at) VALUES (?, ?, ?, ?, 'alert.firing', ?, 'pending', ?, ?)",
    )
    const clientId = db.query<{ client_id: string }, [string]>('SELECT client_id FROM webhook_endpoints WHERE id = ?').get(endpoint.id)!.client_id
    const now = Date.now()
    db.transaction(() => {
      for (let i = 0; i < n; i++)
        insert.run(newId('whd'), clientId, endpoint.id, newId('msg'), payloadOf('alert.firing', new Date(now).toISOString(), alertData(i)), now, now)
    })()
    db.close()
    const body = payloadOf('alert.firing', new Date(now).toISOString(), alertData(0))
    await reset()
    vigil = start()
    await waitReady(`${vigil.base}/health`, vigil.server)
    const cpu0 = cpuMs(vigil.server.pid) ?? 0
    for (let s = await stats(); s.unique < n; s = await stats()) await Bun.sleep(250)
    const cpu = (cpuMs(vigil.server.pid) ?? cpu0) - cpu0
    const signed = await stats()
    const signedRate = (signed.unique - 1) / ((signed.last - signed.first) / 1000)
    const check = new Database(join(dir, 'vigil.db'), { readonly: true })
    for (let i = 0; i < 50; i++) {
      const left = check.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status != 'succeeded'").get()!.n
      if (!left) break
      await Bun.sleep(100)
    }
    const recorded = check.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded'").get()!.n
    check.close()

    // 2. the baseline: the same receiver, plain POSTs from one process
    opts.log('webhooks: baseline, plain unsigned POSTs')
    await reset()
    const plainRun = await runJson<{ ok: number; failed: number }>(
      join(opts.root, 'scripts/bench/webhook-plain.ts'),
      { url: `${hook}/hook`, body, n, concurrency: PER_ENDPOINT },
      300_000,
    )
    const plain = await stats()
    const plainRate = (plain.count - 1) / ((plain.last - plain.first) / 1000)

    // 3. the fast path: one test event at a time, API call to arrival
    opts.log('webhooks: latency of single events')
    await reset()
    const wall = () => performance.timeOrigin + performance.now()
    const sentAt = new Map<string, number>()
    const login2 = await call('POST', '/v1/auth/login', { email: 'bench@example.test', password: 'correct horse battery' })
    const auth2 = { authorization: `Bearer ${login2.access_token}` }
    // within one account's 30 test sends a minute (src/modules/deliveries/deliveries.limit.ts)
    const singles = 30
    for (let i = 0; i < singles; i++) {
      const t = wall()
      const d = await call('POST', `/v1/webhooks/endpoints/${endpoint.id}/test`, undefined, auth2)
      sentAt.set(d.message_id, t)
      await Bun.sleep(10)
    }
    let lat = await stats(true)
    for (let i = 0; i < 50 && lat.unique < singles; i++, lat = await stats(true)) await Bun.sleep(100)
    const latencies = [...sentAt].map(([id, t]) => (lat.arrivals[id] ?? Number.POSITIVE_INFINITY) - t).sort((a, b) => a - b)
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!
    return {
      n,
      signedRate,
      cpuUsPerDelivery: (cpu * 1000) / n,
      recorded,
      plainRate,
      plainOk: plainRun.ok,
      singles,
      p50: pct(50),
      p99: pct(99),
    }
  } finally {
    await stop(vigil.server)
    await stop(receiver)
  }
}

export function webhookRows(w: Awaited<ReturnType<typeof webhooksBench>>): [string, string, string][] {
  const ms = (x: number) => `${x.toFixed(1)} ms`
  return [
    [
      `webhook delivery, signed (dist/vigil, ${w.n} pending at start, 1 endpoint)`,
      `${Math.round(w.signedRate)} deliveries/s`,
      `HMAC-SHA256 per Standard Webhooks, outbound policy, each attempt recorded (${w.recorded} succeeded in the outbox); server CPU ${w.cpuUsPerDelivery.toFixed(0)} µs/delivery`,
    ],
    [
      'webhook baseline: plain unsigned POSTs, one process',
      `${Math.round(w.plainRate)} POSTs/s`,
      `the same receiver and body, ${PER_ENDPOINT} at a time (the worker's per-endpoint limit), nothing stored; ${w.plainOk} answered`,
    ],
    ['webhook ratio signed / plain', (w.signedRate / w.plainRate).toFixed(2), ''],
    [`webhook latency, API test event → receiver (${w.singles} one at a time)`, `p50 ${ms(w.p50)}`, `p99 ${ms(w.p99)}`],
  ]
}
