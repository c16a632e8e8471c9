import { describe, expect, test } from 'bun:test'
import { runRollup } from '../../../src/modules/metrics/metrics.jobs'
import { boundedMean } from '../../../src/modules/metrics/metrics.mean'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.UTC(2026, 0, 1)
const HOUR = 3_600_000

describe('a mean kept within what it averages', () => {
  test('the same value n times averages to that value exactly, where the plain quotient does not', () => {
    for (const v of [3.8, 0.1, 1.1, 23.3, 99.9, 0.7]) {
      for (let n = 1; n <= 12; n++) {
        let sum = 0
        for (let i = 0; i < n; i++) sum += v
        expect(boundedMean(sum, n, v, v)).toBe(v)
      }
    }
    // what the quotient alone gives: the reason for the bound
    expect((3.8 + 3.8 + 3.8) / 3).toBe(3.7999999999999994)
    expect((0.1 + 0.1 + 0.1 + 0.1 + 0.1 + 0.1) / 6).toBe(0.09999999999999999)
  })

  test('is the quotient wherever that lies within the values, and never outside them', () => {
    let seed = 11
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    for (let round = 0; round < 2000; round++) {
      const vals = Array.from({ length: 1 + Math.floor(rand() * 30) }, () => Math.round(rand() * 1000) / 10)
      const sum = vals.reduce((a, b) => a + b, 0)
      const lo = Math.min(...vals)
      const hi = Math.max(...vals)
      const mean = boundedMean(sum, vals.length, lo, hi)
      expect(mean >= lo && mean <= hi).toBe(true)
      const quotient = sum / vals.length
      if (quotient >= lo && quotient <= hi) expect(mean).toBe(quotient)
    }
  })
})

describe('averages of a steady reading, as a user reads them', () => {
  test('summaries at every level and charts from raw samples and every tier give the value sent, not a last digit off it', async () => {
    const t = testApp()
    t.clock.set(T0)
    const a = await tenantWithDevices(t)
    // 30 hours at 10 s of readings that never change: 3.8 % CPU, 0.1 GB of swap in use
    const items = Array.from({ length: 30 * 360 }, (_, i) => ({
      recorded_at: new Date(T0 - 30 * HOUR + i * 10_000).toISOString(),
      hardware: { ...hardwareSample(0), cpu_percent: 3.8, swap_used_gb: 0.1 },
      network: networkSample(0),
    }))
    for (let i = 0; i < items.length; i += 500) {
      const r = await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 500) }, headers: a.keyHeaders })
      expect(r.status).toBe(201)
    }
    t.clock.set(T0 + 35_000)
    await runRollup(t.modules.metricsJobs)

    for (const hours of [1, 6, 24, 30]) {
      const r = await t.request('GET', `/v1/metrics/summary/${a.deviceId}?hours=${hours}`, { headers: a.userHeaders })
      expect(r.status).toBe(200)
      const { cpu_percent, swap_used_gb } = r.body.hardware.fields
      expect([hours, r.body.resolution, cpu_percent]).toEqual([hours, r.body.resolution, { avg: 3.8, min: 3.8, max: 3.8, p95: 3.8, last: 3.8 }])
      expect([hours, swap_used_gb]).toEqual([hours, { avg: 0.1, min: 0.1, max: 0.1, p95: 0.1, last: 0.1 }])
    }
    const iso = (ms: number) => new Date(ms).toISOString()
    for (const resolution of ['raw', '1m', '10m', '1h']) {
      const q = `kind=hardware&fields=cpu_percent,swap_used_gb&resolution=${resolution}&start=${iso(T0 - 2 * HOUR - 7_000)}&end=${iso(T0)}`
      const r = await t.request('GET', `/v1/metrics/series/${a.deviceId}?${q}`, { headers: a.userHeaders })
      expect([resolution, r.status]).toEqual([resolution, 200])
      const values = (name: string) => new Set((r.body.values[name] as (number | null)[]).filter((v) => v !== null))
      expect([resolution, [...values('cpu_percent')], [...values('swap_used_gb')]]).toEqual([resolution, [3.8], [0.1]])
    }
  })
})
