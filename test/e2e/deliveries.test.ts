import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'
import { webhookReceiver } from '../helpers/webhook-receiver'

/**
 * The delivery core against the executable, with two accounts: receivers on 127.0.0.1
 * (VIGIL_OUTBOUND_ALLOW_LOCAL), a tarpit that accepts connections and never answers, and
 * account A doing its worst while account B's notice or webhook must still go out. The 5 s
 * below is each test's bound on waiting for B's delivery, not a measure of speed.
 */
beforeAll(() => void ensureBinary(), 60_000)

const WAIT_MS = 5_000
const stops: (() => void)[] = []
afterAll(() => {
  for (const stop of stops.splice(0)) stop()
})

/** resolves when `until` holds after a request to `r`, or rejects at the deadline */
function within(r: ReturnType<typeof webhookReceiver>, until: () => boolean, what: string) {
  let timer: Timer | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${WAIT_MS} ms`)), WAIT_MS)
  })
  return Promise.race([r.waitFor(until), deadline]).finally(() => clearTimeout(timer))
}

/** accepts every request and never answers: each holds a delivery slot until the sender's deadline */
function tarpit() {
  let arrived = 0
  let open = 0
  let mostOpen = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    fetch(req) {
      arrived++
      mostOpen = Math.max(mostOpen, ++open)
      req.signal.addEventListener('abort', () => open--) // the sender gave up (its deadline)
      return new Promise<Response>(() => {})
    },
  })
  stops.push(() => server.stop(true))
  return {
    url: (path: string) => `http://127.0.0.1:${server.port}${path}`,
    arrived: () => arrived,
    /** the most requests held open at once: what one account's share of the slots allows */
    mostOpen: () => mostOpen,
  }
}

function receiver() {
  const r = webhookReceiver()
  stops.push(r.stop)
  return r
}

async function instance() {
  const cwd = tempDir('vigil-deliveries-')
  const server = await startBinary({
    cwd,
    env: {
      VIGIL_DATA_DIR: join(cwd, 'data'),
      VIGIL_OUTBOUND_ALLOW_LOCAL: 'true',
      VIGIL_SIGNUP: 'open',
      VIGIL_RATE_LIMIT_FREE: '1000000',
      VIGIL_OWN_RATE_LIMIT: '1000000',
      VIGIL_RATE_LIMIT_ANONYMOUS: '1000000',
    },
  })
  stops.push(() => server.proc.kill())
  const account = async (email: string) => {
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(server.base + path, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any }
    }
    const creds = { email, password: 'correct horse battery' }
    expect((await call('POST', '/v1/auth/register', creds)).status).toBe(201)
    const auth = { authorization: `Bearer ${(await call('POST', '/v1/auth/login', creds)).body.access_token}` }
    const api = (method: string, path: string, body?: unknown) => call(method, path, body, auth)
    /** a device of this account reporting CPU at 97 % (trips every CPU rule) */
    const hotDevice = async () => {
      const key = (await api('POST', '/v1/auth/api-keys', { name: 'collector' })).body.api_key as string
      const device = await call(
        'POST',
        '/v1/clients/me/devices',
        { hostname: 'web-1', os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: `fp-${email}` },
        { 'x-api-key': key },
      )
      return () => call('POST', '/v1/metrics/hardware', { cpu_percent: 97 }, { 'x-api-key': key, 'x-device-id': device.body.device_id })
    }
    return { api, hotDevice }
  }
  return { account }
}

test("an endpoint deleted while its delivery is in flight does not stop another account's webhooks", async () => {
  const { account } = await instance()
  const a = await account('a@example.test')
  const b = await account('b@example.test')
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  let arrived = () => {}
  const inFlight = new Promise<void>((resolve) => (arrived = resolve))
  const slow = webhookReceiver(async () => {
    arrived()
    await held
    return new Response('ok')
  })
  stops.push(slow.stop)
  const ep = await a.api('POST', '/v1/webhooks/endpoints', { url: slow.url, event_types: ['device.registered'] })
  expect((await a.api('POST', `/v1/webhooks/endpoints/${ep.body.id}/test`)).status).toBe(202)
  await inFlight
  expect((await a.api('DELETE', `/v1/webhooks/endpoints/${ep.body.id}`)).status).toBe(204)
  release() // the attempt ends after its delivery is gone

  const other = receiver()
  const epB = await b.api('POST', '/v1/webhooks/endpoints', { url: other.url, event_types: ['device.registered'] })
  const sent = await b.api('POST', `/v1/webhooks/endpoints/${epB.body.id}/test`)
  await within(other, () => other.requests.length === 1, "account B's test delivery")
  expect(other.requests[0]!.id).toBe(sent.body.message_id)
}, 30_000)

test("one account's thousand test sends at a tarpit leave another account's test delivery its way out", async () => {
  const { account } = await instance()
  const a = await account('a@example.test')
  const b = await account('b@example.test')
  const pit = tarpit()
  const endpoints: string[] = []
  for (let i = 0; i < 5; i++)
    endpoints.push((await a.api('POST', '/v1/webhooks/endpoints', { url: pit.url(`/e${i}`), event_types: ['device.registered'] })).body.id)
  const answers: { status: number; headers: Headers; body: any }[] = []
  for (let i = 0; i < 1000; i += 50) {
    answers.push(...(await Promise.all(Array.from({ length: 50 }, (_, j) => a.api('POST', `/v1/webhooks/endpoints/${endpoints[(i + j) % 5]}/test`)))))
  }
  const accepted = answers.filter((r) => r.status === 202).length
  expect(accepted).toBe(30) // the per-account limit of test sends and resends per minute
  const refused = answers.find((r) => r.status === 429)!
  expect(refused.body.error).toMatchObject({ code: 'rate_limited', param: '', doc_url: expect.stringContaining('rate_limited') })
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
  while (pit.arrived() < 16) await Bun.sleep(10) // A's share of the slots is taken and held

  const other = receiver()
  const epB = await b.api('POST', '/v1/webhooks/endpoints', { url: other.url, event_types: ['device.registered'] })
  expect((await b.api('POST', `/v1/webhooks/endpoints/${epB.body.id}/test`)).status).toBe(202)
  await within(other, () => other.requests.length === 1, "account B's test delivery")
  expect(pit.mostOpen()).toBe(16) // the per-account cap: A's other deliveries wait for its own slots
}, 60_000)

test("one account's 400 notices to channels at a tarpit leave another account's notice its way out", async () => {
  const { account } = await instance()
  const a = await account('a@example.test')
  const b = await account('b@example.test')
  const pit = tarpit()
  const channels: string[] = []
  for (let i = 0; i < 10; i++) {
    const c = await a.api('POST', '/v1/channels', { name: `pit ${i}`, kind: 'webhook', config: { url: pit.url(`/c${i}`) } })
    expect(c.status).toBe(201)
    channels.push(c.body.id)
  }
  for (let i = 0; i < 40; i++) {
    const rule = await a.api('POST', '/v1/alerts/rules', {
      name: `cpu ${i}`,
      metric: 'cpu_percent',
      operator: '>',
      threshold: 90,
      for_seconds: 0,
      channel_ids: channels,
    })
    expect(rule.status).toBe(201)
  }
  const postA = await a.hotDevice()
  await postA()
  while (pit.arrived() < 8) await Bun.sleep(10) // A's share of the channel slots is taken and held

  const other = receiver()
  const mine = await b.api('POST', '/v1/channels', { name: 'mine', kind: 'webhook', config: { url: other.url } })
  await b.api('POST', '/v1/alerts/rules', { name: 'cpu', metric: 'cpu_percent', operator: '>', threshold: 90, for_seconds: 0, channel_ids: [mine.body.id] })
  const postB = await b.hotDevice()
  await postB()
  await within(other, () => other.requests.length >= 1, "account B's notice")
  expect(JSON.parse(other.requests[0]!.body)).toMatchObject({ event: 'firing' })
  expect(pit.mostOpen()).toBe(8) // the per-account cap
}, 60_000)
