import { beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { jsonClient } from '../helpers/json-client'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'
import { hardwareSample, networkSample } from '../helpers/samples'

/**
 * History pages over a real socket, located from the indexes: three hours of one device's
 * samples (some carrying one part only) replayed with their times, paged at offsets from the
 * newest to past the end, with and without a date range. Each page holds the samples stepping
 * through them newest first would give, and answers the same bytes once the hub, started again,
 * has sealed the two older hours into blocks (the newest hour stays hot: pages cross the boundary).
 */
beforeAll(() => void ensureBinary(), 120_000)

const HOUR = 3_600_000
const STEP = 10_000

test('history pages at any offset hold the samples stepping finds, the same bytes before and after sealing', async () => {
  const cwd = tempDir('vigil-history-')
  const dataDir = join(cwd, 'data')
  const env = { VIGIL_DATA_DIR: dataDir, VIGIL_RATE_LIMIT_FREE: '1000000', VIGIL_RATE_LIMIT_ANONYMOUS: '1000000' }
  let hub = await startBinary({ cwd, env })
  let call = jsonClient(hub.base)
  expect((await call('POST', '/v1/auth/register', { email: 'op@example.test', password: 'correct horse battery' })).status).toBe(201)
  const login = async () => {
    const r = await call('POST', '/v1/auth/login', { email: 'op@example.test', password: 'correct horse battery' })
    expect(r.status).toBe(200)
    return { authorization: `Bearer ${r.body.access_token}` }
  }
  let auth = await login()
  const key = await call('POST', '/v1/auth/api-keys', { name: 'collector' }, auth)
  const keyHeaders = { 'x-api-key': key.body.api_key }
  const device = await call('POST', '/v1/clients/me/devices', { hostname: 'pi', os: 'linux', os_version: '6', arch: 'arm64', fingerprint: 'fp-pi' }, keyHeaders)
  expect(device.status).toBe(201)
  const deviceId: string = device.body.device_id

  // three hours up to a minute ago; every 13th sample without its network part, every 17th without its hardware part
  const end = Math.floor(Date.now() / STEP) * STEP - 60_000
  const times: number[] = []
  for (let ts = end - 3 * HOUR; ts <= end; ts += STEP) times.push(ts)
  const items = times.map((ts, i) => ({
    recorded_at: new Date(ts).toISOString(),
    hardware: i % 17 === 5 ? null : hardwareSample(i),
    network: i % 13 === 7 ? null : networkSample(i),
  }))
  for (let i = 0; i < items.length; i += 500) {
    const r = await call('POST', '/v1/metrics/bulk', { device_id: deviceId, items: items.slice(i, i + 500) }, keyHeaders)
    expect(r.status).toBe(201)
  }

  const newestFirst = { hardware: items.filter((x) => x.hardware).reverse(), network: items.filter((x) => x.network).reverse() }
  const from = new Date(end - 150 * 60_000).toISOString()
  const to = new Date(end - 20 * 60_000).toISOString()
  const pages: { path: string; kind: 'hardware' | 'network'; offset: number; limit: number; ranged: boolean }[] = []
  for (const kind of ['hardware', 'network'] as const) {
    const n = newestFirst[kind].length
    for (const offset of [0, 1, 119, 350, 360, 361, 700, n - 3, n, n + 50]) {
      pages.push({ path: `/v1/metrics/${kind}/${deviceId}?limit=120&offset=${offset}`, kind, offset, limit: 120, ranged: false })
      pages.push({ path: `/v1/metrics/${kind}/${deviceId}?limit=9&offset=${offset}&start_date=${from}&end_date=${to}`, kind, offset, limit: 9, ranged: true })
    }
  }
  const read = async () => {
    const texts: string[] = []
    for (const p of pages) {
      const r = await call('GET', p.path, undefined, auth)
      expect([p.path, r.status]).toEqual([p.path, 200])
      const inRange = newestFirst[p.kind].filter((x) => !p.ranged || (x.recorded_at >= from && x.recorded_at <= to))
      const want = inRange.slice(p.offset, p.offset + p.limit)
      const got = r.body.items as Record<string, unknown>[]
      expect([p.path, got.map((x) => x.recorded_at)]).toEqual([p.path, want.map((x) => x.recorded_at)])
      for (const [i, item] of got.entries()) expect(item).toMatchObject(want[i]![p.kind]!)
      expect([p.path, r.body.total]).toEqual([p.path, inRange.length])
      texts.push(r.text)
    }
    return texts
  }
  const hot = await read()
  hub.proc.kill('SIGTERM')
  await hub.proc.exited

  // started again, the hub seals the samples over an hour old at once
  hub = await startBinary({ cwd, env })
  call = jsonClient(hub.base)
  while ((await call('GET', '/health')).body.storage.converting_devices !== 0) await Bun.sleep(100) // waiting for the job, not for time
  auth = await login()
  const db = new Database(join(dataDir, 'vigil.db'), { readonly: true })
  expect(db.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_block_index').get()!.n).toBeGreaterThanOrEqual(12)
  db.close()
  expect(await read()).toEqual(hot)
  hub.proc.kill('SIGTERM')
  await hub.proc.exited
}, 120_000)
