import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'
import { webhookReceiver, verify, type Received } from '../helpers/webhook-receiver'

/**
 * Webhooks end to end with the executable: receivers on 127.0.0.1 (VIGIL_OUTBOUND_ALLOW_LOCAL,
 * as an operator with a receiver beside Vigil would set it) that verify every delivery with
 * the reference implementation, an alert rule tripped by metrics posted through the API, a
 * receiver that fails once, and a kill -9 with deliveries in
 * flight and queued: after the restart every one arrives, and none is processed twice by a
 * receiver that deduplicates on webhook-id.
 */
beforeAll(() => void ensureBinary(), 60_000)

const cwd = tempDir('vigil-webhooks-')
const env = { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_OUTBOUND_ALLOW_LOCAL: 'true', VIGIL_RATE_LIMIT_FREE: '1000000', VIGIL_RATE_LIMIT_ANONYMOUS: '1000000' }
const stops: (() => void)[] = []
afterAll(() => {
  for (const stop of stops) stop()
})

async function session(base: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json().catch(() => null)) as any }
  }
  const creds = { email: 'op@example.test', password: 'correct horse battery' }
  await call('POST', '/v1/auth/register', creds)
  const login = await call('POST', '/v1/auth/login', creds)
  const auth = { authorization: `Bearer ${login.body.access_token}` }
  return { call: (method: string, path: string, body?: unknown) => call(method, path, body, auth) }
}

function receiver(answer?: (r: Received, n: number) => Response | Promise<Response>) {
  const r = webhookReceiver(answer)
  stops.push(r.stop)
  return r
}

test('signed deliveries, a rule tripped by metrics, a retry after a 500, and kill -9 with deliveries pending: all arrive, none processed twice', async () => {
  let server = await startBinary({ cwd, env })
  const api = await session(server.base)

  // 1. a test event, verified with standardwebhooks
  const plain = receiver()
  const ep = await api.call('POST', '/v1/webhooks/endpoints', { url: plain.url, event_types: ['device.registered'] })
  expect(ep.status).toBe(201)
  const sent = await api.call('POST', `/v1/webhooks/endpoints/${ep.body.id}/test`)
  expect(sent.status).toBe(202)
  await plain.waitFor(() => plain.requests.length === 1)
  expect(verify(ep.body.secret, plain.requests[0]!)).toMatchObject({ type: 'webhook.test', version: 1, data: { endpoint_id: ep.body.id } })
  expect(plain.requests[0]!.id).toBe(sent.body.message_id)

  // 2. 500, then 200 on the retry (about 5 s later)
  const flaky = receiver((_, n) => new Response('', { status: n === 1 ? 500 : 200 }))
  const flakyEp = await api.call('POST', '/v1/webhooks/endpoints', { url: flaky.url, event_types: ['device.registered'] })
  const retried = await api.call('POST', `/v1/webhooks/endpoints/${flakyEp.body.id}/test`)
  await flaky.waitFor(() => flaky.requests.length === 2)
  expect(flaky.requests.map((r) => r.id)).toEqual([retried.body.message_id, retried.body.message_id])
  expect(verify(flakyEp.body.secret, flaky.requests[1]!).type).toBe('webhook.test')
  for (let i = 0; i < 50; i++) {
    const d = await api.call('GET', `/v1/webhooks/deliveries/${retried.body.id}`)
    if (d.body.status === 'succeeded') break
    await Bun.sleep(20)
  }
  const detail = await api.call('GET', `/v1/webhooks/deliveries/${retried.body.id}`)
  expect(detail.body).toMatchObject({ status: 'succeeded', attempts: 2 })
  expect(detail.body.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200])

  // 3. metrics posted through the API trip a rule: alert.firing arrives signed; the device's
  // registration reached the first endpoint as device.registered
  const alerts = receiver()
  const alertsEp = await api.call('POST', '/v1/webhooks/endpoints', { url: alerts.url, event_types: ['alert.firing'] })
  const rule = await api.call('POST', '/v1/alerts/rules', { name: 'CPU hot', metric: 'cpu_percent', operator: '>', threshold: 90, for_seconds: 0 })
  expect(rule.status).toBe(201)
  const key = await api.call('POST', '/v1/auth/api-keys', { name: 'collector' })
  const collector = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    (
      await fetch(server.base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key.body.api_key, ...headers },
        body: JSON.stringify(body),
      })
    ).json() as Promise<any>
  const device = await collector('/v1/clients/me/devices', { hostname: 'web-1', os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: 'fp-web-1' })
  await collector('/v1/metrics/hardware', { cpu_percent: 97 }, { 'x-device-id': device.device_id })
  await alerts.waitFor(() => alerts.requests.length >= 1)
  const firing = verify(alertsEp.body.secret, alerts.requests[0]!)
  expect(firing.type).toBe('alert.firing')
  expect(firing.data.alert).toMatchObject({ rule: { id: rule.body.id, name: 'CPU hot' }, device: { id: device.device_id }, state: 'firing', value: 97 })
  await plain.waitFor(() => plain.requests.length === 2)
  expect(verify(ep.body.secret, plain.requests[1]!)).toMatchObject({ type: 'device.registered', data: { device: { device_id: device.device_id } } })

  // 4. a receiver that processes each request on arrival (deduplicating on webhook-id) but
  // answers nothing until the restart: deliveries in flight and queued when the kill lands
  const arrivals = new Map<string, number>()
  const applied: string[] = []
  let answering = false
  const slow = receiver(async (r) => {
    arrivals.set(r.id, (arrivals.get(r.id) ?? 0) + 1)
    if (!applied.includes(r.id)) applied.push(r.id) // the receiver's idempotency check
    while (!answering) await Bun.sleep(10)
    return new Response('ok')
  })
  const slowEp = await api.call('POST', '/v1/webhooks/endpoints', { url: slow.url, event_types: ['device.registered'] })
  const ids: string[] = []
  // 24 of the account's 30 test sends a minute; 8 at a time to one endpoint, the rest queued behind them
  for (let i = 0; i < 24; i++) ids.push((await api.call('POST', `/v1/webhooks/endpoints/${slowEp.body.id}/test`)).body.message_id)
  while (slow.requests.length < 8) await Bun.sleep(10) // (the receiver answers none of them yet)
  const beforeKill = slow.requests.length
  server.proc.kill('SIGKILL')
  await server.proc.exited
  expect(beforeKill).toBeLessThan(ids.length) // some were still queued

  answering = true
  server = await startBinary({ cwd, env })
  stops.push(() => server.proc.kill())
  await slow.waitFor(() => ids.every((id) => arrivals.has(id)))
  expect(applied.toSorted()).toEqual(ids.toSorted())
  // at least once: the ones in flight at the kill (never answered) come again after the
  // restart with the same webhook-id, and only those; the idempotency check applied them once
  const repeats = [...arrivals.values()].filter((n) => n > 1).length
  expect(repeats).toBeGreaterThan(0)
  expect(repeats).toBeLessThanOrEqual(beforeKill)
  for (const r of slow.requests) expect(verify(slowEp.body.secret, r).type).toBe('webhook.test')
  server.proc.kill()
  await server.proc.exited
}, 60_000)
