import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { memoryLogger } from '../../src/lib/logger'
import { parseDevice, parseScan } from '../../src/agent/readers/smart/smart.parse'
import { createSmartPoller, NO_SMARTCTL, SMART_DENIED, type SmartRun } from '../../src/agent/readers/smart/smart.poller'

const FIXTURES = join(import.meta.dir, '../fixtures/smartctl')
const fixture = (name: string) => readFileSync(join(FIXTURES, `${name}.json`), 'utf8')
const json = (name: string) => JSON.parse(fixture(name))

describe('smartctl --json', () => {
  test('a SATA SSD: healthy, its temperature and hours, no bad sectors', () => {
    expect(parseDevice(json('sata-ssd'), '/dev/sda')).toEqual({
      name: '/dev/sda',
      model: 'Samsung SSD 870 EVO 1TB',
      serial: 'S6PTNM0T123456A',
      kind: 'ata',
      capacity_bytes: 1000204886016,
      passed: true,
      temperature_c: 33,
      power_on_hours: 12843,
      reallocated_sectors: 0,
      pending_sectors: null,
      uncorrectable_sectors: null,
      nvme_percentage_used: null,
      nvme_media_errors: null,
    })
  })

  test('an HDD with reallocated, pending and uncorrectable sectors (ATA 5, 197, 198), its verdict bits set in the exit status', () => {
    expect(parseDevice(json('hdd-reallocated'), '/dev/sdb')).toMatchObject({
      name: '/dev/sdb',
      model: 'WDC WD40EFRX-68N32N0',
      kind: 'ata',
      capacity_bytes: 4000787030016,
      passed: true,
      temperature_c: 39,
      power_on_hours: 47611,
      reallocated_sectors: 312,
      pending_sectors: 8,
      uncorrectable_sectors: 2,
    })
  })

  test('the ATA attributes stand in when smartctl gives no summary; 194 keeps its low byte', () => {
    const j = json('hdd-reallocated')
    delete j.temperature
    delete j.power_on_time
    expect(parseDevice(j, '/dev/sdb')).toMatchObject({ temperature_c: 39, power_on_hours: 47611 })
  })

  test('an NVMe drive: wear (percentage used) and media errors; no ATA sectors', () => {
    expect(parseDevice(json('nvme'), '/dev/nvme0')).toEqual({
      name: '/dev/nvme0',
      model: 'Samsung SSD 980 PRO 1TB',
      serial: 'S5GXNF0R123456B',
      kind: 'nvme',
      capacity_bytes: 1000204886016,
      passed: true,
      temperature_c: 41,
      power_on_hours: 8123,
      reallocated_sectors: null,
      pending_sectors: null,
      uncorrectable_sectors: null,
      nvme_percentage_used: 7,
      nvme_media_errors: 3,
    })
  })

  test('a device smartctl could not open, or that sleeps, gives no reading', () => {
    expect(parseDevice(json('open-denied'), '/dev/sda')).toBeNull()
    expect(parseDevice(json('standby'), '/dev/sdb')).toBeNull()
    expect(parseScan(json('scan-open')).map((d) => [d.name, d.type])).toEqual([
      ['/dev/sda', 'sat'],
      ['/dev/sdb', 'sat'],
      ['/dev/nvme0', 'nvme'],
    ])
  })
})

/** smartctl answering from the fixtures: each device's answer by name. */
function fakeSmartctl(scan: string, answers: Record<string, string>) {
  const calls: string[][] = []
  const run: SmartRun = async (args) => {
    calls.push(args)
    if (args[0] === '--scan-open') return { stdout: fixture(scan), code: 0 }
    const name = args.at(-1)!
    const j = JSON.parse(fixture(answers[name]!))
    return { stdout: JSON.stringify(j), code: j.smartctl.exit_status }
  }
  return { run, calls }
}

describe('the S.M.A.R.T. poller', () => {
  test('runs beside sampling at most every 30 minutes; each result rides in one sample only; sleeping disks are not woken', async () => {
    let t = 0
    const s = fakeSmartctl('scan-open', { '/dev/sda': 'sata-ssd', '/dev/sdb': 'standby', '/dev/nvme0': 'nvme' })
    const p = createSmartPoller({ run: s.run, now: () => t, log: memoryLogger().logger })
    expect(p.latest()).toBeUndefined()
    await p.settled()
    const first = p.latest()!
    expect(first.available).toBe(true)
    expect(first.devices.map((d) => d.name)).toEqual(['/dev/sda', '/dev/nvme0'])
    expect(s.calls).toContainEqual(['-a', '--json', '-n', 'standby', '-d', 'sat', '/dev/sdb'])
    for (let i = 0; i < 179; i++) {
      t += 10_000
      expect(p.latest()).toBeUndefined()
    }
    expect(s.calls.filter((c) => c[0] === '--scan-open')).toHaveLength(1)
    t += 10_000
    p.latest()
    await p.settled()
    expect(p.latest()?.devices).toHaveLength(2)
    expect(s.calls.filter((c) => c[0] === '--scan-open')).toHaveLength(2)
  })

  test('no smartctl: says why once, in the log and in one sample, then nothing further', async () => {
    const { logger, lines } = memoryLogger()
    const p = createSmartPoller({ run: null, now: () => 0, log: logger })
    expect(p.latest()).toEqual({ available: false, unavailable_reason: NO_SMARTCTL, devices: [] })
    for (let i = 0; i < 5; i++) expect(p.latest()).toBeUndefined()
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', msg: `agent: disk health not read: ${NO_SMARTCTL}` })
  })

  test('not permitted (no root, no CAP_SYS_RAWIO): a warning and one sample saying so, then smartctl never runs again', async () => {
    let t = 0
    const { logger, lines } = memoryLogger()
    const s = fakeSmartctl('scan-open-denied', {})
    const p = createSmartPoller({ run: s.run, now: () => t, log: logger })
    p.latest()
    await p.settled()
    expect(p.latest()).toEqual({ available: false, unavailable_reason: SMART_DENIED, devices: [] })
    t += 3 * 3_600_000
    expect(p.latest()).toBeUndefined()
    await p.settled()
    expect(s.calls).toHaveLength(1)
    expect(lines.filter((l) => l.includes('disk health not read'))).toHaveLength(1)

    // devices listed, but each one refuses to open
    const s2 = fakeSmartctl('scan-open', { '/dev/sda': 'open-denied', '/dev/sdb': 'open-denied', '/dev/nvme0': 'open-denied' })
    const p2 = createSmartPoller({ run: s2.run, now: () => 0, log: memoryLogger().logger })
    p2.latest()
    await p2.settled()
    expect(p2.latest()?.unavailable_reason).toBe(SMART_DENIED)
  })
})
