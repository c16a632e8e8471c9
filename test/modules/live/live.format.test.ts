import { describe, expect, test } from 'bun:test'
import type { BusEvent } from '../../../src/lib/event-bus.event'
import { deviceOf, eventFrame, resumePoint } from '../../../src/modules/live/live.format'
import { slotLimits, streamSlots } from '../../../src/modules/live/live.slots'

const event = (data: unknown, type = 'x'): BusEvent => ({ seq: 7, client_id: 'c', type, timestamp: '2026-01-01T00:00:00.000Z', data })

describe('live stream frames', () => {
  test('one frame per event: id, type and one line of JSON, made once', () => {
    const e = event({ text: 'two\nlines' }, 'sample')
    const frame = eventFrame('b00t', e)
    expect(new TextDecoder().decode(frame)).toBe(
      'id: b00t-7\nevent: sample\ndata: {"type":"sample","timestamp":"2026-01-01T00:00:00.000Z","data":{"text":"two\\nlines"}}\n\n',
    )
    expect(eventFrame('b00t', e)).toBe(frame)
  })

  const cases: [string, ReturnType<typeof resumePoint>][] = [
    ['b00t-12', { seq: 12 }],
    [' b00t-12 ', { seq: 12 }],
    ['other-12', { reset: 'other_boot' }],
    ['b00t-', { reset: 'malformed' }],
    ['b00t-1.5', { reset: 'malformed' }],
    ['b00t--1', { reset: 'malformed' }],
    ['12', { reset: 'malformed' }],
    ['', { reset: 'malformed' }],
    [`b00t-${'9'.repeat(20)}`, { reset: 'malformed' }],
  ]
  for (const [id, want] of cases) test(`Last-Event-ID ${JSON.stringify(id)}`, () => expect(resumePoint(id, 'b00t')).toEqual(want))

  test('the device an event is about, whatever its shape', () => {
    expect(deviceOf(event({ device_id: 'd1' }))).toBe('d1')
    expect(deviceOf(event({ device: { device_id: 'd2' } }))).toBe('d2')
    expect(deviceOf(event({ alert: { device: { id: 'd3' } } }))).toBe('d3')
    expect(deviceOf(event({ alert: { device: null } }))).toBeNull()
    expect(deviceOf(event(null))).toBeNull()
    expect(deviceOf(event('text'))).toBeNull()
  })
})

describe('stream slots', () => {
  const limits = { perUser: 2, perAccount: 3, total: 8, first: 1, reserved: 2 }

  test('per user, per account and in total; a slot given back twice counts once', () => {
    const slots = streamSlots(limits)
    const a1 = slots.take('A', 'a1')
    slots.take('A', 'a1')
    expect(slots.take('A', 'a1')).toEqual({ refused: 'user' })
    slots.take('A', 'a2')
    // a third user of the same account: the account's share is used up
    expect(slots.take('A', 'a3')).toEqual({ refused: 'account' })
    if (!('release' in a1)) throw new Error('refused')
    a1.release()
    a1.release()
    expect(slots.open()).toBe(2)
    expect('release' in slots.take('A', 'a3')).toBe(true)
  })

  test("the reserve: past the shared part only an account's first streams are let in, until the total", () => {
    const slots = streamSlots(limits)
    for (const [c, u] of [
      ['A', 'a'],
      ['A', 'a'],
      ['A', 'b'],
      ['B', 'b1'],
      ['B', 'b1'],
      ['B', 'b2'],
    ])
      expect('release' in slots.take(c!, u!)).toBe(true)
    // 6 of 8 open: the last 2 are for accounts with fewer than their first stream
    expect(slots.take('C', 'c')).toMatchObject({ release: expect.any(Function) })
    expect(slots.take('C', 'c')).toEqual({ refused: 'total' })
    expect(slots.take('D', 'd')).toMatchObject({ release: expect.any(Function) })
    expect(slots.take('E', 'e')).toEqual({ refused: 'total' })
  })

  test('from the instance total: a tenth per account, 20 per user at most, a quarter kept for first streams', () => {
    expect(slotLimits(1000)).toEqual({ perUser: 20, perAccount: 100, total: 1000, first: 2, reserved: 250 })
    expect(slotLimits(40)).toEqual({ perUser: 4, perAccount: 4, total: 40, first: 2, reserved: 10 })
    expect(slotLimits(1)).toEqual({ perUser: 1, perAccount: 1, total: 1, first: 2, reserved: 0 })
  })
})
