import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { account } from '../containers/fixtures'

const at = (ms: number) => new Date(ms).toISOString()
const disk = (over: Record<string, unknown> = {}) => ({
  name: '/dev/sda',
  model: 'Example HDD',
  serial: 'S1',
  kind: 'ata',
  capacity_bytes: 4e12,
  passed: true,
  temperature_c: 38,
  power_on_hours: 30_000,
  reallocated_sectors: 0,
  pending_sectors: 0,
  uncorrectable_sectors: 0,
  nvme_percentage_used: null,
  nvme_media_errors: null,
  ...over,
})

describe('S.M.A.R.T. reports', () => {
  async function setup() {
    const t = testApp()
    const acc = await account(t)
    const send = (ts: number, smart: Record<string, unknown>) =>
      t.request('POST', '/v1/metrics/batch', { body: { recorded_at: at(ts), disks_smart: smart }, headers: acc.collector })
    const read = async () => (await t.request('GET', `/v1/devices/${acc.deviceId}/disks`, { headers: await acc.relogin() })).body
    return { t, acc, send, read }
  }

  test('the newest report is the disk’s health; a replayed older one does not replace it; growth over 7 days', async () => {
    const { t, send, read } = await setup()
    const t0 = t.clock.now() - 3_600_000
    await send(t0, { available: true, unavailable_reason: null, devices: [disk({ reallocated_sectors: 8 })] })
    await send(t0 + 1_800_000, { available: true, unavailable_reason: null, devices: [disk({ reallocated_sectors: 12, temperature_c: 41 })] })
    await send(t0 + 900_000, { available: true, unavailable_reason: null, devices: [disk({ reallocated_sectors: 10, passed: false })] })
    const now = await read()
    expect(now).toMatchObject({ available: true, collected_at: at(t0 + 1_800_000) })
    expect(now.items).toEqual([expect.objectContaining({ name: '/dev/sda', temperature_c: 41, failing: false, reallocated_growth_7d: 4 })])
  })

  test('without smartctl: the reason, and no disks', async () => {
    const { t, send, read } = await setup()
    await send(t.clock.now() - 60_000, { available: true, unavailable_reason: null, devices: [disk()] })
    const reason = 'smartctl not found: install smartmontools'
    expect((await send(t.clock.now(), { available: false, unavailable_reason: reason, devices: [] })).status).toBe(201)
    expect(await read()).toMatchObject({ available: false, unavailable_reason: reason, items: [] })
  })

  test('retention drops readings older than raw samples are kept, but never a device’s newest report', async () => {
    const { t, send, read } = await setup()
    const readings = () => t.ctx.db.sqlite.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM disk_readings').get()!.n
    await send(t.clock.now(), { available: true, unavailable_reason: null, devices: [disk({ reallocated_sectors: 8 })] })
    t.clock.advance(8 * 86_400_000)
    await send(t.clock.now(), { available: true, unavailable_reason: null, devices: [disk({ reallocated_sectors: 9 })] })
    expect(readings()).toBe(2)
    await t.jobs.find((j) => j.name === 'containers.retention')!.run()
    expect(readings()).toBe(1)
    t.clock.advance(30 * 86_400_000)
    await t.jobs.find((j) => j.name === 'containers.retention')!.run()
    expect(readings()).toBe(1)
    expect((await read()).items).toEqual([expect.objectContaining({ reallocated_sectors: 9 })])
  })
})
