import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { account, block, container } from './fixtures'

const MIN = 60_000
const at = (ms: number) => new Date(ms).toISOString()

describe('container rollups and retention', () => {
  async function setup() {
    const t = testApp()
    const acc = await account(t)
    // whole minutes, so buckets are predictable
    t.clock.set(Math.ceil(t.clock.now() / (60 * MIN)) * 60 * MIN)
    const start = t.clock.now()
    const send = (ts: number, cpu: number) =>
      t.request('POST', '/v1/metrics/batch', {
        body: { recorded_at: at(ts), containers: block([container('web', { cpu_percent: cpu })]) },
        headers: acc.collector,
      })
    const job = (name: string) => t.jobs.find((j) => j.name === name)!.run()
    const series = async (range: string) => {
      const portal = await acc.relogin()
      const list = await t.request('GET', `/v1/devices/${acc.deviceId}/containers`, { headers: portal })
      const id = list.body.items[0].container_id
      return (await t.request('GET', `/v1/devices/${acc.deviceId}/containers/${id}/series?range=${range}`, { headers: portal })).body
    }
    return { t, start, send, job, series }
  }

  test('per-minute buckets average the blocks, with the maximum; a block replayed into a rolled-up minute rolls it up again', async () => {
    const { t, start, send, job, series } = await setup()
    for (const [dt, cpu] of [
      [0, 10],
      [20_000, 30],
      [MIN, 50],
      [MIN + 20_000, 70],
    ] as const)
      expect((await send(start + dt, cpu)).status).toBe(201)
    t.clock.set(start + 3 * MIN)
    await job('containers.rollup')
    const day = await series('24h')
    expect(day.resolution).toBe('1m')
    expect(day.t).toEqual([start / 1000, (start + MIN) / 1000])
    expect(day.values.cpu_percent).toEqual([20, 60])
    expect(day.max.cpu_percent).toEqual([30, 70])
    // the queue replays a block of the first minute
    await send(start + 40_000, 80)
    t.clock.advance(MIN)
    await job('containers.rollup')
    expect((await series('24h')).values.cpu_percent).toEqual([40, 60])
  })

  test('hourly buckets from the minutes for ranges beyond 3 days', async () => {
    const { t, start, send, job, series } = await setup()
    expect((await send(start, 10)).status).toBe(201)
    t.clock.set(start + 30 * MIN)
    expect((await send(start + 30 * MIN, 30)).status).toBe(201)
    t.clock.set(start + 2 * 60 * MIN)
    await job('containers.rollup')
    const week = await series('7d')
    expect(week.resolution).toBe('1h')
    expect(week.t).toEqual([start / 1000])
    expect(week.values.cpu_percent).toEqual([20])
  })

  test('retention drops raw blocks past the raw retention, and containers gone that long', async () => {
    const { t, start, send, job, series } = await setup()
    await send(start, 10)
    t.clock.set(start + 2 * MIN)
    await job('containers.rollup')
    t.clock.set(start + 8 * 24 * 60 * MIN)
    await job('containers.retention')
    t.clock.set(start + MIN)
    const raw = await series('1h')
    expect(raw.t).toEqual([])
    // the per-minute row outlives the raw one only within its own retention (3 days): gone too
    t.clock.set(start + 30 * MIN)
    expect((await series('24h')).t).toEqual([])
  })
})
