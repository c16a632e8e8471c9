import { describe, expect, test } from 'bun:test'
import { deviceStatus } from '../../src/modules/devices/devices.status'
import { nowFor, presenceStatus } from '../../web/src/devices/presence'

describe('presenceStatus: the hub’s rule, from one clock', () => {
  const t0 = Date.parse('2026-11-27T10:00:00.000Z')
  const iso = (ms: number) => new Date(ms).toISOString()

  test('gives the hub’s answer for every age and interval (the bundle keeps its own copy of the rule)', () => {
    for (const interval of [null, 0, 1, 2, 5, 10, 60, 300]) {
      for (const age of [0, 500, 1_000, 3_999, 4_000, 4_001, 9_999, 10_000, 10_001, 20_000, 119_000, 120_001, 300_000, 600_001, 1_500_001, 86_400_000]) {
        const want = deviceStatus(t0 - age, interval === null ? null : interval * 1000, t0)
        expect({ interval, age, status: presenceStatus(iso(t0 - age), interval, t0) }).toEqual({ interval, age, status: want })
      }
    }
    expect(presenceStatus(null, 10, t0)).toBe(deviceStatus(null, 10_000, t0))
  })

  test('a 2 s device seen just now is online, whatever the last tick of the clock', () => {
    // the sample arrived after the clock's last tick: measured from the sample, it is online and "just now"
    const seen = iso(t0 + 3_000)
    expect(nowFor(t0, seen)).toBe(t0 + 3_000)
    expect(presenceStatus(seen, 2, nowFor(t0, seen))).toBe('online')
  })

  test('a 2 s device quiet for 6 s is stale, and the clock says so for both', () => {
    expect(presenceStatus(iso(t0 - 6_000), 2, nowFor(t0, iso(t0 - 6_000)))).toBe('stale')
  })

  test('an unreadable time is never seen', () => {
    expect(presenceStatus('not a time', 2, t0)).toBe('never')
    expect(nowFor(t0, 'not a time')).toBe(t0)
  })
})
