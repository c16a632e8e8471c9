import { describe, expect, test } from 'bun:test'
import { metricsBudget } from '../../../src/modules/metrics/metrics.budget'
import { runRollup } from '../../../src/modules/metrics/metrics.jobs'
import type { TestApp } from '../../helpers/app'
import { insertDeviceOn } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { alertEngines } from '../alerts/engines'

/** The tiers' oldest times the storage page shows, on SQLite and on PostgreSQL: the same answers. */
const ENGINES = alertEngines()
const START = Date.parse('2026-03-02T00:00:00Z')
const MIN = 60_000
const HOUR = 3_600_000

async function post(t: TestApp, headers: Record<string, string>, path: string, body: unknown) {
  const r = await t.request('POST', path, { headers, body })
  if (r.status !== 201) throw new Error(r.text)
}

for (const engine of ENGINES) {
  describe(`the disk budget's measure on ${engine.name}`, () => {
    test.skipIf(engine.skip)(`each tier's oldest time over the whole fleet, null while a tier is empty ${engine.skipReason}`, async () => {
      const t = await engine.make()
      t.clock.set(START)
      const budget = metricsBudget(t.modules.metricsJobs)
      for (const tier of ['raw', '1m', '10m', '1h', '1d'] as const) expect(await budget.oldest(tier)).toBeNull()
      const [a, b] = [await createTenant(t), await createTenant(t)]
      const devA = await insertDeviceOn(t, a.clientId)
      const devB = await insertDeviceOn(t, b.clientId)
      // the second tenant's device reports first, and only network samples: its time is the fleet's oldest
      t.clock.set(START + 90_000)
      await post(t, { ...b.keyHeaders, 'x-device-id': devB }, '/v1/metrics/network', networkSample(0))
      for (let m = 0; m < 3 * 60; m += 7) {
        t.clock.set(START + 2 * HOUR + m * MIN)
        await post(t, { ...a.keyHeaders, 'x-device-id': devA }, '/v1/metrics/hardware', hardwareSample(m))
      }
      expect(await budget.oldest('raw')).toBe(START + 90_000)
      expect(await budget.oldest('1h')).toBeNull()
      t.clock.set(START + 6 * HOUR)
      await runRollup(t.modules.metricsJobs)
      expect(await budget.oldest('raw')).toBe(START + 90_000)
      expect(await budget.oldest('1m')).toBe(START + MIN)
      expect(await budget.oldest('10m')).toBe(START)
      expect(await budget.oldest('1h')).toBe(START)
    })
  })
}
