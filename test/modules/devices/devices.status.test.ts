import { describe, expect, test } from 'bun:test'
import { devicePresence, type DeviceStatusChange } from '../../../src/modules/devices/devices.presence'
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
  function setup(rows: { id: string; clientId: string; lastSeenAt: number | null }[] = []) {
    const clock = manualClock()
    const changes: [string, DeviceStatusChange][] = []
    const p = devicePresence({ clock, devices: () => rows, changed: (c, ch) => changes.push([c, ch]) })
    return { clock, changes, p, rows }
  }

  test('the interval is the median of the last steps between recorded_at; replays, batch halves and repeats do not count', () => {
    const { p, clock } = setup()
    const t0 = clock.now()
    p.seen('c', 'd', t0)
    p.seen('c', 'd', t0) // the network half of the same batch
    expect(p.intervalMs('d')).toBeNull()
    p.seen('c', 'd', t0 + 10_000)
    p.seen('c', 'd', t0 + 10_500) // a retry half a second later
    p.seen('c', 'd', t0 - 3_600_000) // a replayed sample from an hour ago
    p.seen('c', 'd', t0 + 20_500)
    p.seen('c', 'd', t0 + 90_500) // one late report
    expect(p.intervalMs('d')).toBe(10_000)
    for (let i = 1; i <= 5; i++) p.seen('c', 'd', t0 + 90_500 + i * 30_000)
    expect(p.intervalMs('d')).toBe(30_000)
  })

  test('changes are told once, with the previous status and the last report; devices gone are forgotten', () => {
    const { p, clock, changes, rows } = setup([{ id: 'd1', clientId: 'c1', lastSeenAt: null }])
    expect(p.status('d1')).toBe('never')
    p.seen('c1', 'd1', clock.now())
    p.seen('c1', 'd1', clock.now())
    expect(changes).toEqual([['c1', { device_id: 'd1', status: 'online', previous: 'never', last_seen_at: '2026-01-01T00:00:00.000Z' }]])
    clock.advance(121_000)
    p.sweep()
    p.sweep()
    expect(changes.map(([, c]) => c.status)).toEqual(['online', 'stale'])
    rows.length = 0
    p.sweep()
    expect(p.status('d1')).toBeNull()
  })

  test('a device new to the sweep is taken as it is, without an event', () => {
    const { p, clock, changes, rows } = setup()
    rows.push({ id: 'd2', clientId: 'c', lastSeenAt: clock.now() - 3_600_000 })
    p.sweep()
    expect(p.status('d2')).toBe('offline')
    expect(changes).toEqual([])
  })
})
