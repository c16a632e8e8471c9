import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { account, block, container } from './fixtures'

const at = (ms: number) => new Date(ms).toISOString()

describe('containers ingest', () => {
  test('a batch stores the inventory and the state history; a newer block records what changed', async () => {
    const t = testApp()
    const { portal, collector, deviceId } = await account(t)
    const t0 = t.clock.now()
    const first = await t.request('POST', '/v1/metrics/batch', {
      body: { hardware: { cpu_percent: 5 }, recorded_at: at(t0), containers: block([container('web'), container('db')]) },
      headers: collector,
    })
    expect(first.status).toBe(201)
    t.clock.advance(10_000)
    const second = await t.request('POST', '/v1/metrics/batch', {
      body: {
        recorded_at: at(t0 + 10_000),
        containers: block([container('web', { state: 'exited', exit_code: 137, oom_killed: true, cpu_percent: null })]),
      },
      headers: collector,
    })
    expect(second.status).toBe(201)
    const list = await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })
    expect(list.status).toBe(200)
    expect(list.body.engine).toMatchObject({ kind: 'docker', version: '27.3.1', memory_accounting: true, recorded_at: at(t0 + 10_000) })
    const [web, db] = list.body.items
    expect(web).toMatchObject({ name: 'web', state: 'exited', exit_code: 137, oom_killed: true, needs_attention: true })
    expect(db).toMatchObject({ name: 'db', state: 'gone', gone_at: at(t0 + 10_000), needs_attention: false })
    const events = await t.request('GET', `/v1/devices/${deviceId}/containers/${web.container_id}/events`, { headers: portal })
    expect(events.body.items.map((e: { kind: string }) => e.kind)).toEqual(['oom_killed', 'stopped', 'started', 'created'])
    expect(events.body.items[1]).toMatchObject({ exit_code: 137, at: at(t0 + 10_000) })
    const dbEvents = await t.request('GET', `/v1/devices/${deviceId}/containers/${db.container_id}/events`, { headers: portal })
    expect(dbEvents.body.items[0]).toMatchObject({ kind: 'gone' })
  })

  test('a replayed older block fills the series but changes no state and records no transition', async () => {
    const t = testApp()
    const { portal, collector, deviceId } = await account(t)
    const t0 = t.clock.now()
    const send = (ts: number, items: ReturnType<typeof container>[]) =>
      t.request('POST', '/v1/metrics/batch', { body: { recorded_at: at(ts), containers: block(items) }, headers: collector })
    await send(t0, [container('web')])
    await send(t0 + 20_000, [container('web', { cpu_percent: 40 })])
    // the collector's queue replays a block from between the two: the container had stopped then
    expect((await send(t0 + 10_000, [container('web', { state: 'exited', exit_code: 1, cpu_percent: 0 })])).status).toBe(201)
    // and the same block again
    expect((await send(t0 + 10_000, [container('web', { state: 'exited', exit_code: 1, cpu_percent: 0 })])).status).toBe(201)
    const list = await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })
    expect(list.body.items[0]).toMatchObject({ state: 'running', cpu_percent: 40 })
    const id = list.body.items[0].container_id
    const events = await t.request('GET', `/v1/devices/${deviceId}/containers/${id}/events`, { headers: portal })
    expect(events.body.items.map((e: { kind: string }) => e.kind)).toEqual(['started', 'created'])
    t.clock.advance(30_000)
    const series = await t.request('GET', `/v1/devices/${deviceId}/containers/${id}/series?range=1h`, { headers: portal })
    expect(series.status).toBe(200)
    expect(series.body.resolution).toBe('raw')
    expect(series.body.t).toEqual([t0, t0 + 10_000, t0 + 20_000].map((x) => Math.floor(x / 1000)))
    expect(series.body.values.cpu_percent).toEqual([12.5, 0, 40])
  })

  test('a series gives each figure as the collector sent it, not with the digits float32 storage widens it to', async () => {
    const t = testApp()
    const { portal, collector, deviceId } = await account(t)
    const t0 = t.clock.now()
    const cpu = [12.3, 0.1, 99.99, 7]
    for (const [i, cpu_percent] of cpu.entries()) {
      const r = await t.request('POST', '/v1/metrics/batch', {
        body: { recorded_at: at(t0 + i * 10_000), containers: block([container('web', { cpu_percent })]) },
        headers: collector,
      })
      expect(r.status).toBe(201)
    }
    t.clock.advance(60_000)
    const id = (await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })).body.items[0].container_id
    const raw = await t.request('GET', `/v1/devices/${deviceId}/containers/${id}/series?range=1h`, { headers: portal })
    expect(raw.body.values.cpu_percent).toEqual(cpu)
    // stored as float32, 12.3 widens to 12.300000190734863: what an answer showed before
    expect(Math.fround(12.3)).toBe(12.300000190734863)
  })

  test('without the engine (no socket) nothing is marked gone, and the reason is shown', async () => {
    const t = testApp()
    const { portal, collector, deviceId } = await account(t)
    const t0 = t.clock.now()
    await t.request('POST', '/v1/metrics/batch', { body: { recorded_at: at(t0), containers: block([container('web')]) }, headers: collector })
    const reason = 'permission denied on /var/run/docker.sock: add the vigil user to the docker group'
    await t.request('POST', '/v1/metrics/batch', {
      body: { recorded_at: at(t0 + 10_000), containers: block([], { engine: null, unavailable_reason: reason }) },
      headers: collector,
    })
    const list = await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })
    expect(list.body.engine).toMatchObject({ kind: null, unavailable_reason: reason })
    expect(list.body.items[0]).toMatchObject({ name: 'web', state: 'running', gone_at: null })
  })

  test('without memory accounting, memory reads null, never 0', async () => {
    const t = testApp()
    const { portal, collector, deviceId } = await account(t)
    await t.request('POST', '/v1/metrics/batch', {
      body: { containers: block([container('web', { memory_used_bytes: 0, memory_limit_bytes: 0 })], { memory_accounting: false }) },
      headers: collector,
    })
    const list = await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })
    expect(list.body.engine.memory_accounting).toBe(false)
    expect(list.body.items[0]).toMatchObject({ memory_used_bytes: null, memory_limit_bytes: null, memory_percent: null })
  })

  test('a restart count rising, unhealthy and healthy again are recorded', async () => {
    const t = testApp()
    const { portal, collector, deviceId } = await account(t)
    const t0 = t.clock.now()
    const send = (ts: number, c: ReturnType<typeof container>) =>
      t.request('POST', '/v1/metrics/batch', { body: { recorded_at: at(ts), containers: block([c]) }, headers: collector })
    await send(t0, container('api', { health: 'healthy' }))
    await send(t0 + 10_000, container('api', { health: 'unhealthy' }))
    await send(t0 + 20_000, container('api', { health: 'healthy', restart_count: 2 }))
    const list = await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })
    const id = list.body.items[0].container_id
    const events = await t.request('GET', `/v1/devices/${deviceId}/containers/${id}/events`, { headers: portal })
    expect(events.body.items.map((e: { kind: string }) => e.kind)).toEqual(['healthy', 'restarted', 'unhealthy', 'started', 'created'])
    expect(events.body.items[1].restart_count).toBe(2)
  })

  test('a replay through the bulk endpoint stores its containers too', async () => {
    const t = testApp()
    const { portal, collector, deviceId } = await account(t)
    const t0 = t.clock.now() - 60_000
    const res = await t.request('POST', '/v1/metrics/bulk', {
      body: {
        items: [
          { recorded_at: at(t0), hardware: { cpu_percent: 1 }, containers: block([container('web')]) },
          { recorded_at: at(t0 + 10_000), hardware: { cpu_percent: 1 }, containers: block([container('web', { state: 'exited', exit_code: 2 })]) },
        ],
      },
      headers: collector,
    })
    expect(res.status).toBe(201)
    const list = await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })
    expect(list.body.items[0]).toMatchObject({ state: 'exited', exit_code: 2 })
  })

  test('the fleet counts follow each change: a container stopping, a device deleted with its containers', async () => {
    const t = testApp()
    const { portal, collector, deviceId } = await account(t)
    const t0 = t.clock.now()
    const send = (ts: number, items: ReturnType<typeof container>[]) =>
      t.request('POST', '/v1/metrics/batch', { body: { recorded_at: at(ts), containers: block(items) }, headers: collector })
    const counts = async () => (await t.request('GET', '/v1/containers', { headers: portal })).body
    await send(t0, [container('web'), container('db')])
    expect(await counts()).toMatchObject({ total: 2, counts: { containers: 2, running: 2, needs_attention: 0 } })
    await send(t0 + 10_000, [container('web'), container('db', { state: 'exited', exit_code: 1 })])
    expect(await counts()).toMatchObject({ total: 2, counts: { containers: 2, running: 1, needs_attention: 1 } })
    expect((await t.request('DELETE', `/v1/clients/me/devices/${deviceId}`, { headers: portal })).status).toBe(204)
    expect(await counts()).toMatchObject({ total: 0, items: [], counts: { containers: 0, running: 0, needs_attention: 0 } })
  })
})

test('a device keeps at most 1,000 containers: the longest gone are forgotten first', async () => {
  const t = testApp()
  const { portal, collector, deviceId } = await account(t)
  const t0 = t.clock.now() - 60_000
  // three blocks of 500 throw-away containers each, every block replacing the one before
  for (let b = 0; b < 3; b++) {
    const items = Array.from({ length: 500 }, (_, i) => container(`job-${b}-${i}`, { id: `id-${b}-${i}` }))
    const res = await t.request('POST', '/v1/metrics/batch', { body: { recorded_at: at(t0 + b * 10_000), containers: block(items) }, headers: collector })
    expect(res.status).toBe(201)
  }
  const list = await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })
  expect(list.body.items).toHaveLength(1000)
  const names = new Set(list.body.items.map((c: { name: string }) => c.name))
  expect(names.has('job-0-0')).toBe(false)
  expect(names.has('job-1-0')).toBe(true)
  expect(names.has('job-2-499')).toBe(true)
  const page = await t.request('GET', '/v1/containers?limit=1', { headers: portal })
  expect(page.body.counts).toMatchObject({ containers: 1000, running: 500 })
})
