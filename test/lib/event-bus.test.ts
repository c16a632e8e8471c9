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
    expect(heard).toEqual(['x:1', 'z:2'])
    expect(bus.position('a').seq).toBe(3)
    expect(bus.listenerCount()).toBe(0)
  })

  test("each client's events are counted on their own: another client's volume leaves no gap", () => {
    const bus = createEventBus({ clock: manualClock() })
    const a = bus.publish('a', 'x', {})
    for (let i = 0; i < 50; i++) bus.publish('b', 'y', { i })
    const a2 = bus.publish('a', 'x', {})
    expect([a.seq, a2.seq]).toEqual([1, 2])
    expect(bus.position('b').seq).toBe(50)
    // and the clients' epochs differ, so a point of one is no point of the other
    expect(bus.position('a').epoch).not.toBe(bus.position('b').epoch)
    expect(bus.since('a', bus.position('b').epoch, 0)).toBeNull()
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

  test('since replays kept events after a point, and says null once some were dropped, for another epoch or a point never reached', () => {
    const bus = createEventBus({ clock: manualClock(), keep: 3 })
    // a reader is handed the epoch (a stream opened): events are kept from then on
    const { epoch } = bus.position('a')
    for (let i = 0; i < 3; i++) bus.publish('a', 'e', { i })
    bus.publish('b', 'other', {})
    expect(bus.since('a', epoch, 1)!.map((e) => e.seq)).toEqual([2, 3])
    expect(bus.since('a', epoch, 0)!.map((e) => [e.seq, e.data])).toEqual([
      [1, { i: 0 }],
      [2, { i: 1 }],
      [3, { i: 2 }],
    ])
    bus.publish('a', 'e', { i: 3 }) // seq 4 pushes seq 1 out
    expect(bus.since('a', epoch, 0)).toBeNull()
    expect(bus.since('a', epoch, 2)!.map((e) => e.seq)).toEqual([3, 4])
    expect(bus.since('a', epoch, 4)).toEqual([])
    expect(bus.since('a', epoch, 5)).toBeNull()
    expect(bus.since('a', 'another', 2)).toBeNull()
    expect(bus.since('nobody', epoch, 0)).toBeNull()
  })

  test("a client's kept events are bounded in bytes as well as in number", () => {
    const bus = createEventBus({ clock: manualClock(), keep: 500, keepBytes: 10_000 })
    bus.position('a')
    for (let i = 0; i < 100; i++) bus.publish('a', 'big', { text: 'x'.repeat(1000) })
    const kept = bus.kept()
    expect(kept.bytes).toBeLessThanOrEqual(10_000)
    expect(kept.events).toBeLessThan(10)
    const { epoch, seq } = bus.position('a')
    expect(bus.since('a', epoch, seq - 2)!.map((e) => e.seq)).toEqual([99, 100])
  })

  test('as tenants come and go, the rings and their bytes stay bounded: an idle one (no listener, nothing new) is let go', () => {
    const clock = manualClock()
    const idleMs = 10 * 60_000
    const bus = createEventBus({ clock, keep: 50, keepBytes: 20_000, idleMs, totalBytes: 2_000_000 })
    const listened = bus.subscribe('steady', () => {})
    let most = { rings: 0, bytes: 0 }
    // 5,000 tenants, 20 new ones a minute, each busy for a few minutes and then gone
    for (let minute = 0; minute < 250; minute++) {
      for (let n = 0; n < 20; n++) {
        const tenant = `t${minute * 20 + n}`
        bus.position(tenant) // each tenant's stream was opened once
        for (let i = 0; i < 30; i++) bus.publish(tenant, 'sample', { device_id: 'd', values: { cpu_percent: i, note: 'y'.repeat(300) } })
      }
      bus.publish('steady', 'sample', { minute })
      clock.advance(60_000)
      const k = bus.kept()
      most = { rings: Math.max(most.rings, k.rings), bytes: Math.max(most.bytes, k.bytes) }
    }
    // at most the tenants of the last idle window (plus the one listened to), never all 5,000
    expect(most.rings).toBeLessThanOrEqual(20 * (idleMs / 60_000 + idleMs / 4 / 60_000 + 1) + 1)
    expect(most.bytes).toBeLessThanOrEqual(2_000_000)
    // the one with a listener is kept however long it is quiet, and resumes within its epoch
    const { epoch } = bus.position('steady')
    clock.advance(idleMs * 3)
    expect(bus.kept().rings).toBe(1)
    expect(bus.since('steady', epoch, 249)!.map((e) => e.data)).toEqual([{ minute: 249 }])
    listened()
    clock.advance(idleMs)
    expect(bus.kept()).toEqual({ rings: 0, events: 0, bytes: 0 })
    // a client let go starts a new epoch: an old point is not resumed from
    expect(bus.position('steady').epoch).not.toBe(epoch)
  })

  test('past the total, the least recently used rings nobody listens to go first', () => {
    const clock = manualClock()
    const bus = createEventBus({ clock, keep: 100, keepBytes: 50_000, totalBytes: 100_000 })
    bus.subscribe('watched', () => {})
    for (let i = 0; i < 20; i++) bus.publish('watched', 'e', { text: 'w'.repeat(1000) })
    for (let c = 0; c < 20; c++) {
      clock.advance(1000)
      bus.position(`c${c}`)
      for (let i = 0; i < 10; i++) bus.publish(`c${c}`, 'e', { text: 'z'.repeat(1000) })
    }
    const k = bus.kept()
    expect(k.bytes).toBeLessThanOrEqual(100_000)
    expect(bus.since('watched', bus.position('watched').epoch, 0)!.length).toBe(20)
    expect(bus.since('c19', bus.position('c19').epoch, 0)!.length).toBe(10)
  })
})

test('data that cannot be written as JSON does not stop the publisher: listeners still get it, a resuming reader gets null', () => {
  const bus = createEventBus({ clock: manualClock() })
  const cyclic: Record<string, unknown> = {}
  cyclic.self = cyclic
  const heard: unknown[] = []
  bus.subscribe('a', (e) => heard.push(e.data))
  expect(() => bus.publish('a', 'odd', cyclic)).not.toThrow()
  expect(heard).toEqual([cyclic])
  expect(bus.since('a', bus.position('a').epoch, 0)!.map((e) => e.data)).toEqual([null])
})

describe('events nobody can read', () => {
  test("a client's events are kept only once a reader was handed its epoch, and a lazy event's data is made only when read", () => {
    const clock = manualClock()
    const bus = createEventBus({ clock })
    let made = 0
    const make = (i: number) => () => {
      made++
      return { device_id: 'd1', i }
    }
    // a listener of every client that looks at the type only (the outbox's for samples)
    const types: string[] = []
    bus.subscribeAll((e) => types.push(e.type))
    for (let i = 1; i <= 3; i++) bus.publishLazy('a', 'sample', make(i))
    expect(types).toEqual(['sample', 'sample', 'sample'])
    expect(made).toBe(0)
    expect(bus.kept()).toEqual({ rings: 1, events: 0, bytes: 0 })
    // a stream opens: it resumes from its own point on, never from before it
    const { epoch, seq } = bus.position('a')
    expect(seq).toBe(3)
    expect(bus.since('a', epoch, 3)).toEqual([])
    expect(bus.since('a', epoch, 2)).toBeNull()
    clock.advance(1_000)
    const e = bus.publishLazy('a', 'sample', make(4))
    expect(made).toBe(1)
    expect(bus.kept().events).toBe(1)
    const [back] = bus.since('a', epoch, 3)!
    expect(back).toMatchObject({ seq: 4, type: 'sample', timestamp: new Date(clock.now()).toISOString(), data: { device_id: 'd1', i: 4 } })
    expect(back!.json).toBe(JSON.stringify({ device_id: 'd1', i: 4 }))
    // read again, the event is the same: its data made once
    expect([e.data, e.json, e.timestamp]).toEqual([{ device_id: 'd1', i: 4 }, back!.json!, back!.timestamp])
    expect(made).toBe(1)
  })

  test('a listener of the client reads a lazy event as a published one: the data, its JSON and the time it was published', () => {
    const clock = manualClock()
    const bus = createEventBus({ clock })
    const heard: { seq: number; timestamp: string; data: unknown; json?: string }[] = []
    bus.subscribe('a', (e) => heard.push({ seq: e.seq, timestamp: e.timestamp, data: e.data, json: e.json }))
    const at = new Date(clock.now()).toISOString()
    bus.publish('a', 'x', { n: 1 })
    clock.advance(5)
    bus.publishLazy('a', 'x', () => ({ n: 2 }))
    expect(heard).toEqual([
      { seq: 1, timestamp: at, data: { n: 1 }, json: '{"n":1}' },
      { seq: 2, timestamp: new Date(clock.now()).toISOString(), data: { n: 2 }, json: '{"n":2}' },
    ])
  })
})
