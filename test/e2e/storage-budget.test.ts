import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { jsonClient } from '../helpers/json-client'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'
import { rng } from '../../scripts/bench/storage-samples'
import { hardwareSample, networkSample } from '../helpers/samples'

/**
 * The storage budget against the executable: a hub on a small budget is filled with ten hours of
 * one device's samples (replayed with their times, as a collector back from an outage sends
 * them, the newest two hours old), which its sealing job moves into their long-lived form within
 * a minute; then it is told to apply its budget now, as its every-minute job would.
 */
beforeAll(() => void ensureBinary(), 120_000)

const HOUR = 3_600_000
const STEP = 10_000
const HOURS = 10
const BUDGET = 2_000_000

type Started = Awaited<ReturnType<typeof startBinary>>

async function operatorOf(base: string) {
  const call = jsonClient(base)
  await call('POST', '/v1/auth/register', { email: 'op@example.test', password: 'correct horse battery' })
  const login = await call('POST', '/v1/auth/login', { email: 'op@example.test', password: 'correct horse battery' })
  const auth = { authorization: `Bearer ${login.body.access_token}` }
  return { call, auth }
}

describe('storage budget (dist/vigil)', () => {
  let hub: Started
  let log = ''
  afterAll(async () => {
    hub?.proc.kill('SIGTERM')
    await hub?.proc.exited
  })

  test('passing the budget: the oldest raw samples go first, the newest stay, and /metrics shows the space per tier', async () => {
    const cwd = tempDir('vigil-budget-')
    hub = await startBinary({
      cwd,
      env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_STORAGE_BUDGET: '2MB', VIGIL_RATE_LIMIT_FREE: '1000000', VIGIL_RATE_LIMIT_ANONYMOUS: '1000000' },
    })
    const { call, auth } = await operatorOf(hub.base)
    const key = await call('POST', '/v1/auth/api-keys', { name: 'collector' }, auth)
    const keyHeaders = { 'x-api-key': key.body.api_key }
    const device = await call(
      'POST',
      '/v1/clients/me/devices',
      { hostname: 'pi', os: 'linux', os_version: '6', arch: 'arm64', fingerprint: 'fp-pi' },
      keyHeaders,
    )
    expect(device.status).toBe(201)
    const deviceId: string = device.body.device_id

    // the log as it comes: the sealing job says when it has run
    const decoder = new TextDecoder()
    const reading = (async () => {
      for await (const chunk of hub.proc.stdout as ReadableStream<Uint8Array>) log += decoder.decode(chunk)
    })()
    // ten hours up to two hours before now, every 10 s, in replays of 200
    const end = Math.floor(Date.now() / 1000) * 1000 - 2 * HOUR
    const start = end - HOURS * HOUR
    const rand = rng(27)
    const times: number[] = []
    for (let ts = start; ts <= end; ts += STEP) times.push(ts)
    for (let i = 0; i < times.length; i += 200) {
      const items = times.slice(i, i + 200).map((ts, j) => ({
        // readings that do not compress away: the raw samples are most of the data, as on a real hub
        hardware: { ...hardwareSample(i + j), vendor_extra: Array.from({ length: 32 }, () => rand()) },
        network: networkSample(i + j),
        recorded_at: new Date(ts).toISOString(),
      }))
      const r = await call('POST', '/v1/metrics/bulk', { device_id: deviceId, items }, keyHeaders)
      expect(r.status).toBe(201)
    }

    const ratio = (text: string) => Number(/^vigil_storage_budget_used_ratio (\S+)$/m.exec(text)?.[1])
    expect(ratio((await call('GET', '/metrics', undefined, auth)).text)).toBeGreaterThan(0.5)
    // sealed by the job's next run (each minute), their compact records emptied with their segment;
    // the budget's own job (each minute too) may apply the budget before the call below does
    // (a block written to in the last 20 s waits for the run after)
    const converting = async () => (await call('GET', '/health')).body.storage.converting_devices
    while (!log.includes('"msg":"metrics sealed"') || (await converting()) !== 0) await Bun.sleep(200) // waiting for the hub's job, not for time to pass

    const enforced = await call('POST', '/v1/admin/storage/enforce', undefined, auth)
    expect(enforced.status).toBe(200)
    const report = enforced.body
    expect(report.budget).toMatchObject({ setting: '2MB', bytes: BUDGET, short_bytes: 0 })
    expect(report.database_bytes).toBeLessThanOrEqual(BUDGET)
    expect(report.last_prune.tiers).toEqual(['raw'])
    expect(report.last_prune.deleted_rows).toBeGreaterThan(0)
    const raw = report.tiers.find((t: { tier: string }) => t.tier === 'raw')
    expect(Date.parse(raw.oldest_at)).toBeGreaterThan(start)
    expect(raw.bytes).toBeGreaterThan(0)
    expect(report.rest_bytes).toBeGreaterThan(0)
    expect(report.budget.raw_days_held).toBeGreaterThan(0)

    // the newest sample is still served; the first hour is gone
    const newest = await call('GET', `/v1/metrics/hardware/${deviceId}?limit=1`, undefined, auth)
    expect(Date.parse(newest.body.items[0].recorded_at)).toBe(end)
    const firstHour = await call(
      'GET',
      `/v1/metrics/hardware/${deviceId}?limit=5&start_date=${new Date(start).toISOString()}&end_date=${new Date(start + HOUR).toISOString()}`,
      undefined,
      auth,
    )
    expect(firstHour.status).toBe(200)
    expect(firstHour.body.items).toEqual([])

    const after = await call('GET', '/metrics', undefined, auth)
    expect(ratio(after.text)).toBeLessThanOrEqual(1)
    expect(after.text).toMatch(/^vigil_storage_tier_bytes\{tier="raw"\} [1-9]\d*$/m)
    expect(after.text).toMatch(/^vigil_storage_tier_bytes\{tier="rest"\} [1-9]\d*$/m)
    expect(after.text).toMatch(/^vigil_storage_disk_free_ratio 0\.\d+$/m)
    expect(after.text).toMatch(/^vigil_storage_raw_days_held \S+$/m)
    const health = await call('GET', '/health')
    expect(health.body.storage).toEqual({ warning: null, converting_devices: 0 })

    hub.proc.kill('SIGTERM')
    await hub.proc.exited
    await reading
    const removed = log.split('\n').find((l) => l.includes('storage budget: oldest data removed'))
    expect(JSON.parse(removed!).used_bytes_before).toBeGreaterThan(BUDGET)
    // the measure ran on its own thread in the executable (an entry point of the build), not on the event loop
    expect(log).not.toContain('storage measure thread failed')
  }, 180_000)
})

test('a disk fuller than VIGIL_STORAGE_DISK_WARN: a warning in the log, once, and on /health', async () => {
  const cwd = tempDir('vigil-diskwarn-')
  // any disk this test runs on is more than 0.01% used
  const hub = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_STORAGE_DISK_WARN: '0.01%' } })
  try {
    const { call, auth } = await operatorOf(hub.base)
    expect((await call('POST', '/v1/admin/storage/enforce', undefined, auth)).status).toBe(200)
    expect((await call('POST', '/v1/admin/storage/enforce', undefined, auth)).status).toBe(200)
    const health = await call('GET', '/health')
    expect(health.body.storage.warning).toMatch(/^the disk holding the data dir is \d+% full \(VIGIL_STORAGE_DISK_WARN is 0\.01%\)/)
    const page = await call('GET', '/v1/admin/storage', undefined, auth)
    expect(page.body.warning).toBe(health.body.storage.warning)
    expect(page.body.disk.warn_ratio).toBe(0.0001)
  } finally {
    hub.proc.kill('SIGTERM')
    await hub.proc.exited
  }
  const log = await new Response(hub.proc.stdout).text()
  expect(log.split('\n').filter((l) => l.includes('the disk holding the data dir is')).length).toBe(1)
}, 60_000)
