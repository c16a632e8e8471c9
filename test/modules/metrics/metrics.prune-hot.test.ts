import { expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../../src/db/connection'
import { runRetention } from '../../../src/modules/metrics/metrics.jobs'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const DAY = 86_400_000

/**
 * A sample pruned before it is sealed (late data past raw retention, or the disk budget) leaves
 * the in-memory rows at once, but its record stays until its segment goes: the rebuild at start
 * must not bring it back, and the records coded after it must still read back.
 */
test('a sample pruned while hot stays pruned after a restart; the samples after it in its chain read back as before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-prunehot-'))
  try {
    const file = join(dir, 'vigil.db')
    const t = testApp({ db: openDatabase(file) })
    const T0 = Date.UTC(2026, 0, 10)
    t.clock.set(T0)
    const a = await tenantWithDevices(t)
    // a replay: eight days old first (past the default 7 days of raw retention), then the newest minutes, one chain
    const old = Array.from({ length: 30 }, (_, i) => ({
      recorded_at: new Date(T0 - 8 * DAY + i * 10_000).toISOString(),
      hardware: hardwareSample(i),
      network: networkSample(i),
    }))
    const recent = Array.from({ length: 30 }, (_, i) => ({
      recorded_at: new Date(T0 - 600_000 + i * 10_000).toISOString(),
      hardware: hardwareSample(i + 3),
      network: networkSample(i + 1),
    }))
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: [...old, ...recent] }, headers: a.keyHeaders })).status).toBe(201)
    const count = (app: TestApp) => app.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
    expect(count(t)).toBe(60)
    await runRetention(t.modules.metricsJobs)
    expect(count(t)).toBe(30)
    const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
    const page = async (app: TestApp, kind: string) => (await app.request('GET', `/v1/metrics/${kind}/${a.deviceId}?limit=1000`, { headers })).text
    const before = [await page(t, 'hardware'), await page(t, 'network')]
    // the file as a killed process leaves it
    t.db.sqlite.close(false)

    const again = testApp({ db: openDatabase(file), clock: t.clock })
    expect(count(again)).toBe(30)
    expect(again.db.sqlite.query<{ t: number }, []>('SELECT min(ts) AS t FROM metric_samples').get()!.t).toBe(T0 - 600_000)
    expect([await page(again, 'hardware'), await page(again, 'network')]).toEqual(before)
    again.db.sqlite.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
