import { expect, test } from 'bun:test'
import type { DeviceStatus } from '../../../src/modules/devices/devices.status'
import { statusOf } from '../../../src/modules/overview/overview.status'

const NOW = Date.parse('2026-01-01T12:00:00Z')
const S = 1000

/** [case, seconds since last seen (null: never), interval (s, null: unknown), status] at an injected now */
const cases: [string, number | null, number | null, DeviceStatus][] = [
  ['never sent a sample', null, null, 'never'],
  ['10 s device, just seen', 0, 10, 'online'],
  ['10 s device, 2 intervals: still online', 20, 10, 'online'],
  ['10 s device, just past 2 intervals: stale', 21, 10, 'stale'],
  ['10 s device, 5 intervals: still stale', 50, 10, 'stale'],
  ['10 s device, past 5 intervals: offline', 51, 10, 'offline'],
  ['5 min device, 8 minutes silent: online by its own rhythm', 480, 300, 'online'],
  ['5 min device, 20 minutes silent: stale', 1200, 300, 'stale'],
  ['5 min device, an hour silent: offline', 3600, 300, 'offline'],
  ['one sample so far: judged at 60 s', 15, null, 'online'],
  ['one sample so far, two minutes ago', 120, null, 'online'],
  ['one sample so far, just past two minutes', 121, null, 'stale'],
  ['one sample so far, past five minutes', 301, null, 'offline'],
  ['a zero interval (replayed burst) counts as unknown', 15, 0, 'online'],
  ['seen "in the future" (clock skew): online', -5, 10, 'online'],
]

for (const [name, ago, interval, want] of cases) {
  test(name, () => expect(statusOf(ago === null ? null : NOW - ago * S, interval === null ? null : interval * S, NOW)).toBe(want))
}
