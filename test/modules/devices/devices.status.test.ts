import { describe, expect, test } from 'bun:test'
import { devicePresence, type DeviceStatusChange, type PresenceRow } from '../../../src/modules/devices/devices.presence'
import { deviceStatus } from '../../../src/modules/devices/devices.status'
import { manualClock } from '../../../src/lib/clock'

describe('deviceStatus', () => {
  const now = 1_000_000_000
  const cases: [string, number | null, number | null, string][] = [
    ['never reported', null, 10_000, 'never'],
    ['just now', now, 10_000, 'online'],
    ['2 intervals ago', now - 20_000, 10_000, 'online'],
    ['just over 2 intervals', now - 20_001, 10_000, 'stale'],
    ['5 intervals ago', now - 50_000, 10_000, 'stale'],
    ['just over 5 intervals', now - 50_001, 10_000, 'offline'],
    ['unknown interval: 60 s assumed, 2 minutes', now - 120_000, null, 'online'],
    ['unknown interval, 5 minutes', now - 300_000, null, 'stale'],
    ['unknown interval, past 5 minutes', now - 300_001, null, 'offline'],
    ['a zero interval counts as unknown', now - 100_000, 0, 'online'],
    ['a slow reporter (5 min) between reports', now - 400_000, 300_000, 'online'],
    ['a report from the future (clock skew)', now + 5_000, 10_000, 'online'],
  ]
  for (const [why, lastSeen, interval, want] of cases) test(why, () => expect(deviceStatus(lastSeen, interval, now)).toBe(want as never))
})

describe('devicePresence', () => {
  async function setup(rows: PresenceRow[] = [], intervals = new Map<number, number | null>()) {
    const clock = manualClock()
    const changes: [string, DeviceStatusChange][] = []
    const asked: number[][] = []
    const p = devicePresence({
      clock,
      devices: async () => rows,
      intervals: (seqs) => {
        asked.push(seqs)
        return intervals
      },
      changed: (c, ch) => changes.push([c, ch]),
    })
    await p.ready()
    return { clock, changes, p, rows, intervals, asked }
  }

  test('changes are told once, with the previous status and the last report; devices gone are forgotten', async () => {
    const { p, clock, changes, rows } = await setup([{ id: 'd1', clientId: 'c1', seq: 1, lastSeenAt: null }])
    expect(p.status('d1')).toBe('never')
    p.seen('c1', 'd1')
    p.seen('c1', 'd1')
    expect(changes).toEqual([['c1', { device_id: 'd1', status: 'online', previous: 'never', last_seen_at: '2026-01-01T00:00:00.000Z' }]])
    clock.advance(121_000) // no interval measured: 60 s assumed
    await p.sweep()
    await p.sweep()
    expect(changes.map(([, c]) => c.status)).toEqual(['online', 'stale'])
    rows.length = 0
    await p.sweep()
    expect(p.status('d1')).toBeNull()
  })

  test('the status is judged by the interval measured from the stored samples, asked for every device with samples', async () => {
    const { p, clock, changes, intervals, asked } = await setup(
      [
        { id: 'd1', clientId: 'c', seq: 7, lastSeenAt: null },
        { id: 'd2', clientId: 'c', seq: null, lastSeenAt: null },
      ],
      new Map([[7, 300_000]]),
    )
    p.seen('c', 'd1')
    clock.advance(500_000) // under 2 × 5 minutes
    await p.sweep()
    expect(asked).toEqual([[7]])
    expect(p.intervalMs('d1')).toBe(300_000)
    expect(p.status('d1')).toBe('online')
    intervals.set(7, 10_000)
    await p.sweep()
    expect(changes.map(([, c]) => c.status)).toEqual(['online', 'offline'])
  })

  test('a later stored last_seen_at (another writer) counts; an earlier one does not move it back', async () => {
    const { p, clock, rows } = await setup([{ id: 'd1', clientId: 'c', seq: 1, lastSeenAt: null }])
    p.seen('c', 'd1')
    clock.advance(200_000)
    rows[0]!.lastSeenAt = clock.now() - 1000
    await p.sweep()
    expect(p.status('d1')).toBe('online')
    rows[0]!.lastSeenAt = clock.now() - 500_000
    clock.advance(1000)
    await p.sweep()
    expect(p.status('d1')).toBe('online')
  })

  test('a device new to the sweep is taken as it is, without an event', async () => {
    const { p, clock, changes, rows } = await setup()
    rows.push({ id: 'd2', clientId: 'c', seq: 2, lastSeenAt: clock.now() - 3_600_000 })
    await p.sweep()
    expect(p.status('d2')).toBe('offline')
    expect(changes).toEqual([])
  })

  test('a database that cannot be read at start is read again on next use, and the ingest path never throws', async () => {
    let broken = true
    const clock = manualClock()
    const p = devicePresence({
      clock,
      devices: async () => {
        if (broken) throw new Error('database disk image is malformed')
        return [{ id: 'd1', clientId: 'c', seq: 1, lastSeenAt: clock.now() }]
      },
      intervals: () => new Map(),
      changed: () => {},
    })
    await p.ready()
    expect(() => p.seen('c', 'dx')).not.toThrow()
    await expect(p.sweep()).rejects.toThrow('malformed')
    broken = false
    p.registered('c', 'd9')
    await p.ready()
    expect(p.status('d1')).toBe('online')
  })
  test('a sample that arrives while the stored statuses are still being read stands; the read fills in the other devices', async () => {
    const clock = manualClock()
    let answer: (rows: PresenceRow[]) => void = () => {}
    const changes: DeviceStatusChange[] = []
    const p = devicePresence({
      clock,
      devices: () => new Promise((resolve) => (answer = resolve)),
      intervals: () => new Map(),
      changed: (_c, ch) => changes.push(ch),
    })
    p.seen('c', 'd1')
    answer([
      { id: 'd1', clientId: 'c', seq: 1, lastSeenAt: clock.now() - 3_600_000 },
      { id: 'd2', clientId: 'c', seq: 2, lastSeenAt: clock.now() - 3_600_000 },
    ])
    await p.ready()
    expect(p.status('d1')).toBe('online')
    expect(p.status('d2')).toBe('offline')
    expect(changes.map((c) => [c.device_id, c.previous, c.status])).toEqual([['d1', 'never', 'online']])
  })
})
