import { describe, expect, test } from 'bun:test'
import type { AlertNotification } from '../../../src/modules/alerts/alerts.model'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import type { Attempt } from '../../../src/modules/checks/checks.attempt'
import { testApp, type TestApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'
import { insertChannel } from '../alerts/channel-rows'

const ok = (ts: number, ms = 100, cert: number | null = null): Attempt => ({
  ts,
  ok: true,
  response_ms: ms,
  status_code: 200,
  error: null,
  cert_expires_at: cert,
})
const fail = (ts: number): Attempt => ({ ts, ok: false, response_ms: null, status_code: null, error: 'connection refused', cert_expires_at: null })

function setup() {
  const sent: { channels: string[]; n: AlertNotification }[] = []
  const t = testApp({
    notify: (_clientId, channels, n) => {
      sent.push({ channels, n })
      return channels.length
    },
  })
  return { t, sent }
}

async function rule(t: TestApp, headers: Record<string, string>, body: Record<string, unknown>) {
  const res = await t.request('POST', '/v1/alerts/rules', { headers, body: { severity: 'critical', ...body } })
  expect(res.status).toBe(201)
  return res.body as { id: string }
}

async function check(t: TestApp, headers: Record<string, string>, body: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/v1/checks', { headers, body: { name: 'shop', kind: 'tcp', settings: { host: 'shop.example', port: 443 }, ...body } })
  expect(res.status).toBe(201)
  return res.body.id as string
}

describe('alerts on checks', () => {
  test('a rule on check:down sends a notice when the check goes down and one when it is up again', async () => {
    const { t, sent } = setup()
    const a = await createTenant(t)
    const channel = insertChannel(t, a.clientId)
    await rule(t, a.userHeaders, { name: 'Check down', metric: 'check:down', operator: '>=', threshold: 1, channel_ids: [channel] })
    const id = await check(t, a.userHeaders)
    const now = () => t.clock.now()
    await recordAttempt(t.modules.checks, id, 0, ok(now()))
    for (let i = 0; i < 3; i++) {
      t.clock.advance(60_000)
      const change = (await recordAttempt(t.modules.checks, id, 0, fail(now())))!
      t.modules.checks.stateChanged(change)
      await t.modules.alerts.runtime.settled()
    }
    const firing = sent.filter((s) => s.n.event === 'firing')
    expect(firing).toHaveLength(1)
    expect(firing[0]!.channels).toEqual([channel])
    expect(firing[0]!.n.title).toContain('shop')
    const alerts = await t.request('GET', '/v1/alerts?state=firing', { headers: a.userHeaders })
    expect(alerts.body.items.map((x: { device: { id: string } }) => x.device.id)).toEqual([id])
    for (let i = 0; i < 2; i++) {
      t.clock.advance(60_000)
      t.modules.checks.stateChanged((await recordAttempt(t.modules.checks, id, 0, ok(now())))!)
      await t.modules.alerts.runtime.settled()
    }
    expect(sent.filter((s) => s.n.event === 'resolved')).toHaveLength(1)
  })

  test('slow answers and a certificate near its end trip their rules', async () => {
    const { t, sent } = setup()
    const a = await createTenant(t)
    const channel = insertChannel(t, a.clientId)
    await rule(t, a.userHeaders, { name: 'Slow', metric: 'check:slow', operator: '>=', threshold: 1, channel_ids: [channel] })
    await rule(t, a.userHeaders, { name: 'Certificate', metric: 'check:cert_days_left', operator: '<', threshold: 14, channel_ids: [channel] })
    await rule(t, a.userHeaders, { name: 'Expiring', metric: 'check:cert_expiring', operator: '>=', threshold: 1, channel_ids: [channel] })
    const id = await check(t, a.userHeaders, { kind: 'http', settings: { url: 'https://shop.example/', slow_ms: 500, cert_warn_days: 7 } })
    const soon = t.clock.now() + 5 * 86400_000
    t.modules.checks.stateChanged((await recordAttempt(t.modules.checks, id, 0, ok(t.clock.now(), 900, soon)))!)
    await t.modules.alerts.runtime.settled()
    expect(sent.map((s) => s.n.rule?.name).sort()).toEqual(['Certificate', 'Expiring', 'Slow'])
  })

  test("a check that depends on an offline device sends no notice of its own: the device's offline alert is the one", async () => {
    const { t, sent } = setup()
    const a = await createTenant(t)
    const channel = insertChannel(t, a.clientId)
    await rule(t, a.userHeaders, { name: 'Check down', metric: 'check:down', operator: '>=', threshold: 1, channel_ids: [channel] })
    const device = insertDevice(t, a.clientId, { hostname: 'nas', lastSeenAt: t.clock.now() - 3600_000 })
    t.db.sqlite.run('UPDATE devices SET seq = 901 WHERE id = ?', [device])
    await t.modules.presence.sweep()
    expect(t.modules.presence.status(device)).toBe('offline')
    const id = await check(t, a.userHeaders, { depends_on_device_id: device, down_after: 1 })
    t.modules.checks.stateChanged((await recordAttempt(t.modules.checks, id, 0, fail(t.clock.now())))!)
    await t.modules.alerts.runtime.settled()
    expect(sent).toEqual([])
    expect((await t.request('GET', `/v1/checks/${id}`, { headers: a.userHeaders })).body.state).toBe('down')
  })

  test('a rule on an unknown check field is refused; deleting a check removes its alerts', async () => {
    const { t } = setup()
    const a = await createTenant(t)
    const bad = await t.request('POST', '/v1/alerts/rules', {
      headers: a.userHeaders,
      body: { name: 'x', metric: 'check:nope', operator: '>', threshold: 1, severity: 'warning' },
    })
    expect(bad.status).toBe(422)
    await rule(t, a.userHeaders, { name: 'Check down', metric: 'check:down', operator: '>=', threshold: 1 })
    const id = await check(t, a.userHeaders, { down_after: 1 })
    t.modules.checks.stateChanged((await recordAttempt(t.modules.checks, id, 0, fail(t.clock.now())))!)
    await t.modules.alerts.runtime.settled()
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM alerts').get()).toEqual({ n: 1 })
    expect((await t.request('DELETE', `/v1/checks/${id}`, { headers: a.userHeaders })).status).toBe(204)
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM alerts').get()).toEqual({ n: 0 })
  })
})
