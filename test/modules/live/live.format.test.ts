import { describe, expect, test } from 'bun:test'
import type { BusEvent } from '../../../src/lib/event-bus'
import { deviceOf, eventFrame, resumePoint } from '../../../src/modules/live/live.format'
import { streamSlots } from '../../../src/modules/live/live.slots'

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
  test('per user and in total; a slot given back twice counts once', () => {
    const slots = streamSlots({ perUser: 2, total: 3 })
    const a1 = slots.take('a')
    slots.take('a')
    expect(slots.take('a')).toEqual({ refused: 'user' })
    slots.take('b')
    expect(slots.take('c')).toEqual({ refused: 'total' })
    if (!('release' in a1)) throw new Error('refused')
    a1.release()
    a1.release()
    expect(slots.open()).toBe(2)
    expect('release' in slots.take('c')).toBe(true)
    expect(slots.take('d')).toEqual({ refused: 'total' })
  })
})
