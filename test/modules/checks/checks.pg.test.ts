import { describe, expect, test } from 'bun:test'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { attempt } from '../../helpers/checks'
import { insertDeviceOn } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'
import { hardwareSample } from '../../helpers/samples'
import { linkedPeers } from '../../helpers/peer-links'
import { testApp } from '../../helpers/app'

/** The checks' routes, results and status pages on a hub whose checks live in PostgreSQL. */
const pgApp = pgTestAppLifecycle()

async function world() {
  const t = await pgApp.make()
  t.clock.set(Date.parse('2026-03-10T12:30:00Z'))
  const tenant = async () => {
    const a = await createTenant(t)
    // the account's row where the checks' foreign key looks for it (a no-op once accounts live in PostgreSQL too)
    await t.sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${a.clientId}, 'x', 1, 1) ON CONFLICT DO NOTHING`
    return a
  }
  return { t, a: await tenant(), b: await tenant() }
}

describe('checks on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(`a check is made, listed, read, changed and deleted; another account's is 404; bad input is 422 ${pgApp.skipReason}`, async () => {
    const { t, a, b } = await world()
    const made = await t.request('POST', '/v1/checks', {
      headers: a.userHeaders,
      body: { name: 'shop', kind: 'tcp', settings: { host: 'x.example', port: 443 }, interval_s: 30 },
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ name: 'shop', kind: 'tcp', interval_s: 30, state: 'pending', run_on_hub: true })
    // in PostgreSQL, not in the hub's SQLite file
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM checks').get()).toEqual({ n: 0 })
    expect((await t.sql`SELECT name FROM checks`).map((r: { name: string }) => r.name)).toEqual(['shop'])
    const id = made.body.id as string
    expect((await t.request('GET', '/v1/checks', { headers: a.userHeaders })).body.map((c: { id: string }) => c.id)).toEqual([id])
    expect((await t.request('GET', '/v1/checks', { headers: b.userHeaders })).body).toEqual([])
    const patched = await t.request('PATCH', `/v1/checks/${id}`, { headers: a.userHeaders, body: { name: 'Shop', paused: true } })
    expect(patched).toMatchObject({ status: 200, body: { name: 'Shop', paused: true, state: 'paused' } })
    for (const [method, path] of [
      ['GET', `/v1/checks/${id}`],
      ['PATCH', `/v1/checks/${id}`],
      ['DELETE', `/v1/checks/${id}`],
      ['GET', `/v1/checks/${id}/results`],
    ] as const)
      expect((await t.request(method, path, { headers: b.userHeaders, body: method === 'PATCH' ? { name: 'x' } : undefined })).status).toBe(404)
    expect((await t.request('POST', '/v1/checks', { headers: a.userHeaders, body: { name: 'x', kind: 'nope', settings: {} } })).status).toBe(422)
    expect((await t.request('DELETE', `/v1/checks/${id}`, { headers: a.userHeaders })).status).toBe(204)
    expect((await t.request('GET', `/v1/checks/${id}`, { headers: a.userHeaders })).status).toBe(404)
  })

  test.skipIf(pgApp.skip)(`attempts move the state, open and close an incident, and show in results, series and the detail ${pgApp.skipReason}`, async () => {
    const { t, a } = await world()
    const id = (
      await t.request('POST', '/v1/checks', {
        headers: a.userHeaders,
        body: { name: 'api', kind: 'tcp', settings: { host: 'x.example', port: 1 }, down_after: 1, up_after: 1 },
      })
    ).body.id as string
    const now = t.clock.now()
    await recordAttempt(t.modules.checks, id, 0, attempt(now - 30 * 60_000, true, 40))
    await recordAttempt(t.modules.checks, id, 0, attempt(now - 20 * 60_000, false))
    await recordAttempt(t.modules.checks, id, 0, attempt(now - 10 * 60_000, true, 60))
    const detail = await t.request('GET', `/v1/checks/${id}`, { headers: a.userHeaders })
    expect(detail.body).toMatchObject({ state: 'up', last_response_ms: 60, uptime: { '24h': 66.667 }, response_time: { '24h': { p50: 40, p99: 60 } } })
    const results = await t.request('GET', `/v1/checks/${id}/results?limit=2`, { headers: a.userHeaders })
    expect(results.body.total).toBe(3)
    expect(results.body.items.map((r: { ok: boolean }) => r.ok)).toEqual([true, false])
    const incidents = await t.request('GET', `/v1/checks/${id}/incidents`, { headers: a.userHeaders })
    expect(incidents.body).toMatchObject({ total: 1, items: [{ cause: 'connection refused', duration_s: 600 }] })
    const series = await t.request('GET', `/v1/checks/${id}/series?range=1h`, { headers: a.userHeaders })
    expect(series.body.points.filter((p: { avg_ms: number | null }) => p.avg_ms !== null).map((p: { avg_ms: number }) => p.avg_ms)).toEqual([40, 60])
    const list = await t.request('GET', '/v1/checks', { headers: a.userHeaders })
    expect(list.body[0]).toMatchObject({ id, uptime_24h: 66.667 })

    // the status page shows the check from the same database: HTML, JSON, badge
    const page = await t.request('POST', '/v1/status-pages', {
      headers: a.userHeaders,
      body: { slug: 'api', title: 'API', groups: [{ name: 'All', items: [{ type: 'check', id, key: 'api', show_name: true, show_response_times: true }] }] },
    })
    expect(page.status).toBe(201)
    const json = await t.request('GET', '/status/api.json')
    expect(json.body.groups[0].items[0]).toMatchObject({ name: 'api', state: 'up', uptime_90d: 66.67 })
    expect(json.body.groups[0].items[0].days.at(-1)).toMatchObject({ day: '2026-03-10', uptime: 0.66667, down_s: 600 })
    expect((await t.request('GET', '/status/api')).text).toContain('66.67%')
    const badge = await t.request('GET', '/status/api/badge/api/uptime.svg')
    expect(badge.status).toBe(200)
    expect(badge.text).toContain('66.67%')
    // a deleted check leaves the page before the answer to its delete
    expect((await t.request('DELETE', `/v1/checks/${id}`, { headers: a.userHeaders })).status).toBe(204)
    expect((await t.request('GET', `/v1/status-pages/${page.body.id}`, { headers: a.userHeaders })).body.groups[0].items).toEqual([])
  })

  test.skipIf(pgApp.skip)(`heartbeats and agents' results land in PostgreSQL; a replayed batch stores nothing twice ${pgApp.skipReason}`, async () => {
    const { t, a } = await world()
    const hb = await t.request('POST', '/v1/checks', { headers: a.userHeaders, body: { name: 'backup', kind: 'heartbeat', settings: { period_s: 3600 } } })
    expect(hb.status).toBe(201)
    const call = await t.request('GET', `/hb/${hb.body.heartbeat_token}`)
    expect(call).toMatchObject({ status: 200, body: { ok: true, state: 'up' } })
    expect((await t.request('GET', '/hb/hb_unknown')).status).toBe(404)

    const device = await insertDeviceOn(t, a.clientId, { hostname: 'nas' })
    await t.sql`UPDATE devices SET seq = 700 WHERE id = ${device}`
    // the hub's copy of the devices reads the changed row, as it would after another hub's change
    t.modules.devices.directory.forget(a.clientId, device)
    await t.modules.devices.directory.known?.(a.clientId, device)
    const made = await t.request('POST', '/v1/checks', {
      headers: a.userHeaders,
      body: { name: 'router', kind: 'http', settings: { url: 'http://192.168.1.1/' }, run_on_hub: false, device_ids: [device] },
    })
    expect(made.status).toBe(201)
    const listed = await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: a.keyHeaders })
    expect(listed.body.checks.map((c: { id: string }) => c.id)).toEqual([made.body.id])
    const ts = new Date(t.clock.now() - 60_000).toISOString()
    const body = {
      hardware: hardwareSample(0),
      recorded_at: ts,
      check_results: [{ check_id: made.body.id, ts, ok: true, response_ms: 12.5, status_code: 200, error: null, cert_expires_at: null }],
    }
    const send = () => t.request('POST', '/v1/metrics/batch', { headers: { ...a.keyHeaders, 'x-device-id': device }, body })
    expect((await send()).status).toBe(201)
    expect((await send()).status).toBe(201)
    const results = await t.request('GET', `/v1/checks/${made.body.id}/results`, { headers: a.userHeaders })
    expect(results.body).toMatchObject({ total: 1, items: [{ place: device, ok: true, response_ms: 13 }] })
    expect((await t.request('GET', `/v1/checks/${made.body.id}`, { headers: a.userHeaders })).body.state).toBe('up')
    expect(Number((await t.sql`SELECT count(*) AS n FROM check_results`)[0].n)).toBe(2)
  })

  test.skipIf(pgApp.skip)(`two hubs: a check made, paused or deleted on one is replanned by the other's scheduler at once ${pgApp.skipReason}`, async () => {
    const peers = linkedPeers(2)
    const t = await pgApp.make({ peers: peers.links[0] })
    const other = testApp({ pg: t.sql, peers: peers.links[1] })
    const a = await createTenant(t)
    await t.sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${a.clientId}, 'x', 1, 1) ON CONFLICT DO NOTHING`
    const made = await t.request('POST', '/v1/checks', { headers: a.userHeaders, body: { name: 'api', kind: 'tcp', settings: { host: 'x.example', port: 1 } } })
    expect(made.status).toBe(201)
    const id = made.body.id as string
    const planned = () => other.modules.checkScheduler.nextAt(id)
    // the other hub reads the check from the database as it hears of it
    await other.modules.replans()
    expect(planned()).not.toBeNull()
    await t.request('PATCH', `/v1/checks/${id}`, { headers: a.userHeaders, body: { paused: true } })
    await other.modules.replans()
    expect(planned()).toBeNull()
    await t.request('PATCH', `/v1/checks/${id}`, { headers: a.userHeaders, body: { paused: false } })
    await other.modules.replans()
    expect(planned()).not.toBeNull()
    await t.request('DELETE', `/v1/checks/${id}`, { headers: a.userHeaders })
    await other.modules.replans()
    expect(planned()).toBeNull()
  })

  test.skipIf(pgApp.skip)(
    `two hubs: a late result stored on one shows in the other's status page at its next build, not after its kept days expire ${pgApp.skipReason}`,
    async () => {
      const peers = linkedPeers(2)
      const t = await pgApp.make({ peers: peers.links[0] })
      t.clock.set(Date.parse('2026-03-10T12:30:00Z'))
      const other = testApp({ pg: t.sql, peers: peers.links[1], clock: t.clock })
      const a = await createTenant(t)
      await t.sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${a.clientId}, 'x', 1, 1) ON CONFLICT DO NOTHING`
      const id = (
        await t.request('POST', '/v1/checks', {
          headers: a.userHeaders,
          body: { name: 'api', kind: 'tcp', settings: { host: 'x.example', port: 1 }, down_after: 1, up_after: 1 },
        })
      ).body.id as string
      const yesterday = t.clock.now() - 86_400_000
      await recordAttempt(t.modules.checks, id, 0, attempt(yesterday, true))
      await t.request('POST', '/v1/status-pages', {
        headers: a.userHeaders,
        body: { slug: 'api', title: 'API', groups: [{ name: 'All', items: [{ type: 'check', id, key: 'api' }] }] },
      })
      const pastDay = async () => (await other.request('GET', '/status/api.json')).body.groups[0].items[0].days.at(-2).uptime
      expect(await pastDay()).toBe(1)
      // an agent's late failure for yesterday, stored through the first hub
      const change = await recordAttempt(t.modules.checks, id, 0, attempt(yesterday + 60_000, false))
      t.modules.checks.stateChanged(change!)
      t.clock.advance(31_000) // past the render cache, far within the kept days' re-read
      expect(await pastDay()).toBe(0.5)
    },
  )

  test.skipIf(pgApp.skip)(
    `a hub's synchronous view of the checks (GET /metrics, the dashboard's count of checks down) holds what another hub stored: read at start, then by the checks.rows job ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make()
      const a = await createTenant(t)
      await t.sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${a.clientId}, 'x', 1, 1) ON CONFLICT DO NOTHING`
      const body = { name: 'api', kind: 'tcp', settings: { host: 'x.example', port: 1 }, down_after: 1 }
      const id = (await t.request('POST', '/v1/checks', { headers: a.userHeaders, body })).body.id as string
      const other = testApp({ pg: t.sql })
      await other.modules.rowsReady
      expect(other.modules.checkRows.list(a.clientId).map((r) => r.id)).toEqual([id])
      // as the scheduler records an attempt: stored, then heard
      t.modules.checks.stateChanged((await recordAttempt(t.modules.checks, id, 0, attempt(t.clock.now(), false)))!)
      expect(t.modules.checkRows.downCount(a.clientId)).toBe(1)
      expect(other.modules.checkRows.downCount(a.clientId)).toBe(0)
      const job = other.jobs.find((j) => j.name === 'checks.rows')!
      expect(job.everyHub).toBe(true)
      await job.run()
      expect(other.modules.checkRows.downCount(a.clientId)).toBe(1)
    },
  )
})
