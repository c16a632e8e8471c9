import { describe, expect, test } from 'bun:test'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import type { Attempt } from '../../../src/modules/checks/checks.attempt'
import { combine, nextPlace } from '../../../src/modules/checks/checks.state'
import { histPercentiles, percentilesOf } from '../../../src/modules/checks/checks.summaries'
import { getCheckDetail, incidentsPage, listChecks, resultsPage, series } from '../../../src/modules/checks/checks.views'
import { testApp, type TestApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createKey, createTenant } from '../../helpers/fixtures'

const ok = (ts: number, ms = 100): Attempt => ({ ts, ok: true, response_ms: ms, status_code: 200, error: null, cert_expires_at: null })
const fail = (ts: number, error = 'connection refused'): Attempt => ({ ts, ok: false, response_ms: null, status_code: null, error, cert_expires_at: null })

async function withCheck(body: Record<string, unknown> = {}) {
  const t = testApp()
  const a = await createTenant(t)
  const res = await t.request('POST', '/v1/checks', {
    headers: a.userHeaders,
    body: { name: 'db', kind: 'tcp', settings: { host: 'db.example.com', port: 5432 }, ...body },
  })
  expect(res.status).toBe(201)
  return { t, a, id: res.body.id as string }
}

const record = async (t: TestApp, id: string, attempt: Attempt, place = 0) => await recordAttempt(t.modules.checks, id, place, attempt)

describe('state machine', () => {
  test('pending until the first result; down after N failures, up after M successes', async () => {
    let p = { state: 'pending' as const, fails: 0, successes: 0 } as ReturnType<typeof nextPlace>
    p = nextPlace(p, true, 3, 2)
    expect(p.state).toBe('up')
    p = nextPlace(nextPlace(p, false, 3, 2), false, 3, 2)
    expect(p.state).toBe('up')
    p = nextPlace(p, false, 3, 2)
    expect(p.state).toBe('down')
    p = nextPlace(p, true, 3, 2)
    expect(p.state).toBe('down')
    p = nextPlace(p, true, 3, 2)
    expect(p.state).toBe('up')
  })

  test('places combine: down when all are down, degraded when some are', async () => {
    expect(combine([])).toBe('pending')
    expect(combine(['pending', 'up'])).toBe('up')
    expect(combine(['down', 'up'])).toBe('degraded')
    expect(combine(['down', 'down', 'pending'])).toBe('down')
  })
})

describe('recording attempts', () => {
  test('an outage opens an incident with its cause; recovery closes it', async () => {
    const { t, a, id } = await withCheck()
    const t0 = t.clock.now()
    await record(t, id, ok(t0))
    await record(t, id, fail(t0 + 60_000))
    await record(t, id, fail(t0 + 120_000))
    const change = await record(t, id, fail(t0 + 180_000, 'timeout after 10000 ms'))
    expect(change).toMatchObject({ from: 'up', to: 'down' })
    await record(t, id, ok(t0 + 240_000))
    expect(await record(t, id, ok(t0 + 300_000))).toMatchObject({ from: 'down', to: 'up' })
    const page = await incidentsPage(t.modules.checks, a.clientId, id, 10, 0)
    expect(page.items).toEqual([
      {
        id: expect.any(String),
        started_at: new Date(t0 + 180_000).toISOString(),
        ended_at: new Date(t0 + 300_000).toISOString(),
        cause: 'timeout after 10000 ms',
        duration_s: 120,
      },
    ])
  })

  test('the dashboard overview counts the checks down now (not paused ones)', async () => {
    const { t, a, id } = await withCheck({ down_after: 1 })
    const fleet = async () => (await t.request('GET', '/v1/clients/me/fleet', { headers: a.userHeaders })).body.checks_down
    expect(await fleet()).toBe(0)
    await record(t, id, fail(t.clock.now()))
    expect(await fleet()).toBe(1)
    await t.request('PATCH', `/v1/checks/${id}`, { headers: a.userHeaders, body: { paused: true } })
    expect(await fleet()).toBe(0)
  })

  test("GET /metrics shows each check's state and response time; a tenant's scrape sees only its own", async () => {
    const { t, a, id } = await withCheck()
    await record(t, id, ok(t.clock.now(), 250))
    const reader = createKey(t, a.clientId, { scopes: ['metrics:read'] })
    const text = (await t.request('GET', '/metrics', { headers: reader.headers })).text
    expect(text).toContain(`vigil_check_status{check="${id}",name="db",kind="tcp",client="${a.clientId}",state="up"} 1`)
    expect(text).toContain(`vigil_check_status{check="${id}",name="db",kind="tcp",client="${a.clientId}",state="down"} 0`)
    expect(text).toContain(`vigil_check_response_seconds{check="${id}",name="db",kind="tcp",client="${a.clientId}"} 0.25`)
    const b = await createTenant(t, { scopes: ['metrics:read'] })
    expect((await t.request('GET', '/metrics', { headers: b.keyHeaders })).text).not.toContain(id)
  })

  test('a replayed attempt is stored once; an older one is kept but moves no state', async () => {
    const { t, a, id } = await withCheck({ down_after: 1 })
    const t0 = t.clock.now()
    expect(await record(t, id, ok(t0))).not.toBeNull()
    expect(await record(t, id, ok(t0))).toBeNull()
    await record(t, id, ok(t0 + 60_000))
    expect(await record(t, id, fail(t0 + 30_000))).toMatchObject({ from: 'up', to: 'up' })
    expect((await resultsPage(t.modules.checks, a.clientId, id, { limit: 10, offset: 0 })).total).toBe(3)
    expect((await getCheckDetail(t.modules.checks, a.clientId, id)).state).toBe('up')
  })

  test('uptime, percentiles, series and the list read the stored tiers', async () => {
    const { t, a, id } = await withCheck()
    t.clock.set(Date.parse('2026-01-10T12:00:00Z'))
    const now = t.clock.now()
    // 100 attempts over the last 100 minutes: 90 ok (10..900 ms), 10 failed
    for (let i = 0; i < 100; i++) await record(t, id, i % 10 === 9 ? fail(now - (100 - i) * 60_000) : ok(now - (100 - i) * 60_000, (i + 1) * 10))
    const detail = await getCheckDetail(t.modules.checks, a.clientId, id)
    expect(detail.uptime).toEqual({ '24h': 90, '7d': 90, '30d': 90, '365d': 90 })
    expect(detail.response_time['24h'].p50).toBe(490)
    expect(detail.response_time['24h'].p99).toBe(990)
    // the day histogram rounds up to its bucket's bound
    expect(detail.response_time['30d'].p50).toBe(500)
    const s = await series(t.modules.checks, a.clientId, id, '6h')
    expect(s.step_s).toBe(300)
    expect(s.points).toHaveLength(72)
    expect(s.points.at(-1)!.t).toBe(new Date(now - (now % 300_000)).toISOString())
    expect(s.points.filter((p) => p.avg_ms !== null).length).toBeGreaterThanOrEqual(20)
    expect((await series(t.modules.checks, a.clientId, id, '365d')).points).toHaveLength(365)
    const [item] = await listChecks(t.modules.checks, a.clientId)
    expect(item!.uptime_24h).toBe(90)
    expect(item!.sparkline.filter((x) => x !== null).length).toBeGreaterThanOrEqual(4)
  })

  test('a check run from the hub and a device reports each place; one place down is degraded, both down is down', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const device = { id: insertDevice(t, a.clientId, { hostname: 'nas' }) }
    t.db.sqlite.run('UPDATE devices SET seq = 900 WHERE id = ?', [device.id])
    const res = await t.request('POST', '/v1/checks', {
      headers: a.userHeaders,
      body: { name: 'intranet', kind: 'tcp', settings: { host: 'intranet.example', port: 80 }, run_on_hub: true, device_ids: [device.id], down_after: 1 },
    })
    const id = res.body.id as string
    const seq = t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(device.id)!.seq
    const t0 = t.clock.now()
    await record(t, id, ok(t0))
    await record(t, id, ok(t0), seq)
    expect(await record(t, id, fail(t0 + 60_000), seq)).toMatchObject({ to: 'degraded' })
    expect(await record(t, id, fail(t0 + 60_000))).toMatchObject({ to: 'down' })
    const view = await getCheckDetail(t.modules.checks, a.clientId, id)
    expect(view.places.map((p) => [p.place, p.state])).toEqual([
      ['hub', 'down'],
      [device.id, 'down'],
    ])
    const page = await resultsPage(t.modules.checks, a.clientId, id, { limit: 10, offset: 0, place: device.id })
    expect(page.items.map((r) => [r.place, r.ok])).toEqual([
      [device.id, false],
      [device.id, true],
    ])
  })

  test('percentile helpers', async () => {
    expect(percentilesOf([])).toEqual({ p50: null, p95: null, p99: null })
    expect(percentilesOf([1, 2, 3, 4])).toEqual({ p50: 2, p95: 4, p99: 4 })
    expect(histPercentiles([0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 40_000)).toEqual({ p50: 100, p95: 40_000, p99: 40_000 })
  })
})
