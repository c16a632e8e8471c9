import { describe, expect, test } from 'bun:test'
import type { AlertNotification } from '../../../src/modules/alerts/alerts.model'
import { sweepHeartbeats } from '../../../src/modules/checks/checks.heartbeat'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import type { Attempt } from '../../../src/modules/checks/checks.attempt'
import { testApp, type TestApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'
import { insertChannel } from '../alerts/channel-rows'

const attempt = (ts: number, over: Partial<Attempt>): Attempt => ({
  ts,
  ok: true,
  response_ms: 100,
  status_code: 200,
  error: null,
  cert_expires_at: null,
  ...over,
})

async function setup(metric: string, threshold: number, operator = '>=') {
  const sent: AlertNotification[] = []
  const t = testApp({
    notify: (_clientId, channels, n) => {
      sent.push(n)
      return channels.length
    },
  })
  const a = await createTenant(t)
  const channel = insertChannel(t, a.clientId)
  const res = await t.request('POST', '/v1/alerts/rules', {
    headers: a.userHeaders,
    body: { name: 'Rule', severity: 'critical', metric, operator, threshold, channel_ids: [channel] },
  })
  expect(res.status).toBe(201)
  return { t, a, sent }
}

async function check(t: TestApp, headers: Record<string, string>, body: Record<string, unknown>) {
  const res = await t.request('POST', '/v1/checks', { headers, body })
  expect(res.status).toBe(201)
  return res.body as { id: string; heartbeat_token: string | null }
}

const record = async (t: TestApp, id: string, a: Attempt) => {
  const change = await recordAttempt(t.modules.checks, id, 0, a)
  if (change) t.modules.checks.stateChanged(change)
  // the alert runtime evaluates the change once it is its turn
  await t.modules.alerts.runtime.settled()
}

describe('check notices read as sentences about the check', () => {
  test('"shop is down (HTTP 503)", then "shop is up again"', async () => {
    const { t, a, sent } = await setup('check:down', 1)
    const { id } = await check(t, a.userHeaders, { name: 'shop', kind: 'http', settings: { url: 'https://shop.example/' }, down_after: 1, up_after: 1 })
    await record(t, id, attempt(t.clock.now(), {}))
    t.clock.advance(60_000)
    await record(t, id, attempt(t.clock.now(), { ok: false, response_ms: null, status_code: 503, error: 'HTTP 503' }))
    expect(sent.map((n) => n.title)).toEqual(['CRITICAL: shop is down (HTTP 503)'])
    expect(sent[0]!.body).toContain('\nshop is down (HTTP 503); firing since')
    t.clock.advance(60_000)
    await record(t, id, attempt(t.clock.now(), {}))
    expect(sent.map((n) => n.title)).toEqual(['CRITICAL: shop is down (HTTP 503)', 'RESOLVED: shop is up again'])
  })

  test('a failure without a status quotes its error', async () => {
    const { t, a, sent } = await setup('check:down', 1)
    const { id } = await check(t, a.userHeaders, { name: 'db', kind: 'tcp', settings: { host: 'db.example', port: 5432 }, down_after: 1 })
    await record(t, id, attempt(t.clock.now(), { ok: false, response_ms: null, status_code: null, error: 'connection refused' }))
    expect(sent.map((n) => n.title)).toEqual(['CRITICAL: db is down (connection refused)'])
  })

  test('"shop answers slowly (2.3 s)"', async () => {
    const { t, a, sent } = await setup('check:slow', 1)
    const { id } = await check(t, a.userHeaders, { name: 'shop', kind: 'http', settings: { url: 'https://shop.example/', slow_ms: 1000 } })
    await record(t, id, attempt(t.clock.now(), { response_ms: 2304 }))
    expect(sent.map((n) => n.title)).toEqual(['CRITICAL: shop answers slowly (2.3 s)'])
  })

  test('"shop\'s certificate expires in 5 days"', async () => {
    const { t, a, sent } = await setup('check:cert_days_left', 14, '<')
    const { id } = await check(t, a.userHeaders, { name: 'shop', kind: 'http', settings: { url: 'https://shop.example/' } })
    await record(t, id, attempt(t.clock.now(), { cert_expires_at: t.clock.now() + 5 * 86_400_000 + 3_600_000 }))
    expect(sent.map((n) => n.title)).toEqual(["CRITICAL: shop's certificate expires in 5 days"])
  })

  test('"backup heartbeat missed (last call 26 h ago)"', async () => {
    const { t, a, sent } = await setup('check:heartbeat_missed', 1)
    const hb = await check(t, a.userHeaders, { name: 'backup', kind: 'heartbeat', settings: { period_s: 86_400, grace_s: 7_200 }, down_after: 1 })
    expect((await t.request('POST', `/hb/${hb.heartbeat_token}`)).status).toBe(200)
    t.clock.advance(26 * 3_600_000 + 60_000)
    expect(await sweepHeartbeats(t.modules.checks)).toBe(1)
    await t.modules.alerts.runtime.settled()
    expect(sent.map((n) => n.title)).toEqual(['CRITICAL: backup heartbeat missed (last call 26 h ago)'])
  })
})
