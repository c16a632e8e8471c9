import { describe, expect, test } from 'bun:test'
import type { AlertNotification } from '../../../src/modules/alerts/alerts.model'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import type { Attempt } from '../../../src/modules/checks/checks.attempt'
import { createUplinkWatch } from '../../../src/modules/checks/checks.uplink'
import { testApp, type TestApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'
import { insertChannel } from '../alerts/channel-rows'

const T0 = 1_800_000_000_000

describe('the uplink watch', () => {
  test('most distinct hosts failing at once, none answering: blind; a success ends it', async () => {
    const w = createUplinkWatch()
    for (const h of ['a', 'b', 'c', 'd']) w.attempt(h, { ts: T0, ok: true })
    w.attempt('a', { ts: T0 + 60_000, ok: false })
    w.attempt('b', { ts: T0 + 70_000, ok: false })
    expect(w.blind(T0 + 70_000)).toBe(false) // half is not most
    w.attempt('c', { ts: T0 + 80_000, ok: false })
    expect(w.blind(T0 + 80_000)).toBe(true)
    // still failing minutes later: still blind (the failures began at once)
    w.attempt('a', { ts: T0 + 300_000, ok: false })
    expect(w.blind(T0 + 300_000)).toBe(true)
    // a host answers: the hub has its network
    w.attempt('d', { ts: T0 + 310_000, ok: true })
    expect(w.blind(T0 + 310_000)).toBe(false)
  })

  test("failures spread over more than a minute are the targets' own; fewer than 3 hosts never count", async () => {
    const w = createUplinkWatch()
    w.attempt('a', { ts: T0, ok: false })
    w.attempt('b', { ts: T0 + 120_000, ok: false })
    expect(w.blind(T0 + 120_000)).toBe(false)
    w.attempt('c', { ts: T0 + 240_000, ok: false })
    expect(w.blind(T0 + 240_000)).toBe(false)
    const two = createUplinkWatch()
    two.attempt('a', { ts: T0, ok: false })
    two.attempt('b', { ts: T0, ok: false })
    expect(two.blind(T0)).toBe(false)
  })
})

const fail = (ts: number): Attempt => ({ ts, ok: false, response_ms: null, status_code: null, error: 'connection timed out', cert_expires_at: null })

async function setup() {
  const sent: AlertNotification[] = []
  const t = testApp({
    notify: (_clientId, channels, n) => {
      sent.push(n)
      return channels.length
    },
  })
  const a = await createTenant(t)
  const channel = insertChannel(t, a.clientId)
  const rule = await t.request('POST', '/v1/alerts/rules', {
    headers: a.userHeaders,
    body: { name: 'Down', severity: 'critical', metric: 'check:down', operator: '>=', threshold: 1, channel_ids: [channel] },
  })
  expect(rule.status).toBe(201)
  // each notice on its own, not grouped with the rule's others
  expect((await t.request('PATCH', '/v1/alerts/settings', { headers: a.userHeaders, body: { group_window_seconds: 0 } })).status).toBe(200)
  const check = async (name: string, body: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/v1/checks', {
      headers: a.userHeaders,
      body: { name, kind: 'http', settings: { url: `https://${name}.example/` }, down_after: 1, ...body },
    })
    expect(res.status).toBe(201)
    return res.body.id as string
  }
  return { t, a, sent, check }
}

const record = async (t: TestApp, id: string, place: number, a: Attempt) => {
  const change = await recordAttempt(t.modules.checks, id, place, a)
  if (change) t.modules.checks.stateChanged(change)
  // the alert runtime evaluates the change once it is its turn
  await t.modules.alerts.runtime.settled()
}

describe("hub-run checks while the hub's own uplink is down", () => {
  test('hosts failing at once: from the third on, notices are held; once the hub answers again, a check still down sends its notice', async () => {
    const { t, sent, check } = await setup()
    const ids = [await check('shop'), await check('blog'), await check('mail')]
    for (const id of ids) await record(t, id, 0, fail(t.clock.now()))
    // one or two hosts down cannot tell: their notices go out; the third failing at once is held
    const two = ['CRITICAL: shop is down (connection timed out)', 'CRITICAL: blog is down (connection timed out)']
    expect(sent.map((n) => n.title)).toEqual(two)
    t.clock.advance(60_000)
    await record(t, ids[2]!, 0, fail(t.clock.now()))
    expect(sent.map((n) => n.title)).toEqual(two)
    // the uplink comes back: blog answers; mail is still down and its next failure is news
    await record(t, ids[1]!, 0, { ...fail(t.clock.now()), ok: true, error: null, response_ms: 20, status_code: 200 })
    t.clock.advance(60_000)
    await record(t, ids[2]!, 0, fail(t.clock.now()))
    expect(sent.map((n) => n.title).filter((x) => x.includes('down'))).toEqual([...two, 'CRITICAL: mail is down (connection timed out)'])
  })

  test('with hosts answering before, a burst of failures to most of them is held', async () => {
    const { t, sent, check } = await setup()
    const ids = [await check('shop'), await check('blog'), await check('mail'), await check('wiki')]
    for (const id of ids) await record(t, id, 0, { ...fail(t.clock.now()), ok: true, error: null, response_ms: 20, status_code: 200 })
    t.clock.advance(60_000)
    for (const id of ids.slice(0, 3)) await record(t, id, 0, fail(t.clock.now()))
    // shop and blog: 2 of 4 failing is not most, so those notices went out; mail made it most: held
    expect(sent.map((n) => n.title)).toEqual(['CRITICAL: shop is down (connection timed out)', 'CRITICAL: blog is down (connection timed out)'])
    t.clock.advance(60_000)
    await record(t, ids[3]!, 0, fail(t.clock.now()))
    expect(sent).toHaveLength(2)
  })

  test("an agent's results still raise notices while the hub is blind", async () => {
    const { t, a, sent, check } = await setup()
    const device = insertDevice(t, a.clientId, { hostname: 'nas' })
    t.db.sqlite.run('UPDATE devices SET seq = 700 WHERE id = ?', [device])
    const ids = [await check('shop'), await check('blog'), await check('mail'), await check('wiki')]
    const router = await check('router', { run_on_hub: false, device_ids: [device] })
    for (const id of ids) await record(t, id, 0, { ...fail(t.clock.now()), ok: true, error: null, response_ms: 20, status_code: 200 })
    t.clock.advance(60_000)
    for (const id of ids) await record(t, id, 0, fail(t.clock.now()))
    const before = sent.length
    await record(t, router, 700, fail(t.clock.now()))
    expect(sent.slice(before).map((n) => n.title)).toEqual(['CRITICAL: router is down (connection timed out)'])
  })
})
