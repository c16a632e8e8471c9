import { describe, expect, test } from 'bun:test'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { account, block, container } from './fixtures'

/** The containers' routes on a hub whose containers live in PostgreSQL. */
const pgApp = pgTestAppLifecycle()
const at = (ms: number) => new Date(ms).toISOString()
const TOKEN = 'metrics-token-for-the-containers-test-0123456789'

describe('containers on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(`a batch's containers are stored in PostgreSQL, listed, paged, charted and scraped ${pgApp.skipReason}`, async () => {
    const t = await pgApp.make({ config: { metricsToken: TOKEN } })
    const { portal, collector, deviceId } = await account(t)
    const other = await account(t, 'other@example.test')
    const t0 = t.clock.now()
    const send = (ts: number, items: ReturnType<typeof container>[], headers = collector) =>
      t.request('POST', '/v1/metrics/batch', { body: { hardware: { cpu_percent: 5 }, recorded_at: at(ts), containers: block(items) }, headers })
    expect((await send(t0, [container('web'), container('db')])).status).toBe(201)
    expect((await send(t0 + 10_000, [container('web', { state: 'exited', exit_code: 137, oom_killed: true, cpu_percent: null })])).status).toBe(201)
    expect((await send(t0 + 5_000, [container('web', { cpu_percent: 33 })])).status).toBe(201) // a replay: the series only
    expect((await send(t0, [container('mine')], other.collector)).status).toBe(201)
    const [{ n }] = await t.sql`SELECT count(*)::int AS n FROM containers WHERE device_id = ${deviceId}`
    expect(n).toBe(2)

    const list = await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })
    expect(list.status).toBe(200)
    expect(list.body.engine).toMatchObject({ kind: 'docker', recorded_at: at(t0 + 10_000) })
    const [web, db] = list.body.items
    expect(web).toMatchObject({ name: 'web', state: 'exited', exit_code: 137, oom_killed: true, needs_attention: true })
    expect(db).toMatchObject({ name: 'db', state: 'gone', gone_at: at(t0 + 10_000) })
    const events = await t.request('GET', `/v1/devices/${deviceId}/containers/${web.container_id}/events?limit=2`, { headers: portal })
    expect(events.body).toMatchObject({ total: 4, limit: 2 })
    expect(events.body.items.map((e: { kind: string }) => e.kind)).toEqual(['oom_killed', 'stopped'])
    const fleet = await t.request('GET', '/v1/containers?sort=name', { headers: portal })
    expect(fleet.body).toMatchObject({ total: 2, counts: { containers: 2, running: 0, needs_attention: 1 } })
    expect(fleet.body.items.map((c: { name: string }) => c.name)).toEqual(['db', 'web'])
    t.clock.advance(30_000)
    const series = await t.request('GET', `/v1/devices/${deviceId}/containers/${web.container_id}/series?range=1h`, { headers: portal })
    expect(series.body.t).toEqual([t0, t0 + 5_000, t0 + 10_000].map((x) => Math.floor(x / 1000)))
    expect(series.body.values.cpu_percent).toEqual([12.5, 33, null])
    // another account's device and container: 404, never its rows
    expect((await t.request('GET', `/v1/devices/${other.deviceId}/containers`, { headers: portal })).status).toBe(404)
    expect((await t.request('GET', `/v1/devices/${deviceId}/containers/${web.container_id}/events`, { headers: other.portal })).status).toBe(404)
    expect((await t.request('GET', '/v1/containers', { headers: other.portal })).body.items.map((c: { name: string }) => c.name)).toEqual(['mine'])
    // a malformed query is 422 with its detail
    const bad = await t.request('GET', '/v1/containers?limit=0', { headers: portal })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['query', 'limit'])
    const scrape = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(scrape.text).toContain(`name="mine"`)
  })

  test.skipIf(pgApp.skip)(`the rollup and retention jobs run on PostgreSQL's rows ${pgApp.skipReason}`, async () => {
    const t = await pgApp.make()
    const { collector } = await account(t)
    const t0 = t.clock.now()
    for (let i = 0; i < 6; i++)
      await t.request('POST', '/v1/metrics/batch', {
        body: { recorded_at: at(t0 + i * 10_000), containers: block([container('web', { cpu_percent: i })]) },
        headers: collector,
      })
    t.clock.advance(2 * 60_000)
    await t.jobs.find((j) => j.name === 'containers.rollup')!.run()
    const [{ n }] = await t.sql`SELECT count(*)::int AS n FROM container_series WHERE level = 1`
    expect(n).toBe(1)
    t.clock.advance(30 * 86_400_000)
    await t.jobs.find((j) => j.name === 'containers.retention')!.run()
    const [{ left }] = await t.sql`SELECT count(*)::int AS left FROM container_series`
    expect(left).toBe(0)
  })
})
