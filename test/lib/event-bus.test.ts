import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../src/lib/clock'
import { createEventBus } from '../../src/lib/event-bus'

describe('event bus', () => {
  test('a client hears only its own events, in order, until it unsubscribes', () => {
    const bus = createEventBus({ clock: manualClock() })
    const heard: string[] = []
    const stop = bus.subscribe('a', (e) => heard.push(`${e.type}:${e.seq}`))
    bus.publish('a', 'x', {})
    bus.publish('b', 'y', {})
    bus.publish('a', 'z', {})
    stop()
    bus.publish('a', 'after', {})
    expect(heard).toEqual(['x:1', 'z:3'])
    expect(bus.position()).toBe(4)
    expect(bus.listenerCount()).toBe(0)
  })

  test('subscribeAll hears every client', () => {
    const bus = createEventBus({ clock: manualClock() })
    const heard: string[] = []
    const stop = bus.subscribeAll((e) => heard.push(e.client_id))
    bus.publish('a', 'x', {})
    bus.publish('b', 'x', {})
    stop()
    bus.publish('c', 'x', {})
    expect(heard).toEqual(['a', 'b'])
  })

  test('a throwing listener does not stop the others', () => {
    const bus = createEventBus({ clock: manualClock() })
    let heard = 0
    bus.subscribe('a', () => {
      throw new Error('boom')
    })
    bus.subscribe('a', () => heard++)
    bus.publish('a', 'x', {})
    expect(heard).toBe(1)
  })

  test('since replays kept events after a point, and says null once some were dropped', () => {
    const bus = createEventBus({ clock: manualClock(), keep: 3 })
    for (let i = 0; i < 3; i++) bus.publish('a', 'e', { i })
    bus.publish('b', 'other', {})
    expect(bus.since('a', 1)!.map((e) => e.seq)).toEqual([2, 3])
    expect(bus.since('a', 0)!.map((e) => e.seq)).toEqual([1, 2, 3])
    bus.publish('a', 'e', { i: 3 }) // seq 5 pushes seq 1 out
    expect(bus.since('a', 0)).toBeNull()
    expect(bus.since('a', 2)!.map((e) => e.seq)).toEqual([3, 5])
    expect(bus.since('a', 5)).toEqual([])
    expect(bus.since('nobody', 0)).toEqual([])
  })
})
