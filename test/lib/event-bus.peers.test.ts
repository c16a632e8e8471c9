import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../src/lib/clock'
import { createEventBus, type StreamPoint } from '../../src/lib/event-bus'
import type { BusEvent } from '../../src/lib/event-bus.event'
import { isShared, SHARED_EVENTS } from '../../src/lib/event-bus.shared'
import { linkedPeers } from '../helpers/peer-links'

function twoHubs() {
  const net = linkedPeers(2)
  const clock = manualClock()
  const a = createEventBus({ clock, peers: net.links[0] })
  const b = createEventBus({ clock, peers: net.links[1] })
  return { net, a, b }
}

const seen = (events: BusEvent[]) => events.map((e) => `${e.type}:${(e.data as { i?: number }).i ?? ''}`)

describe('event bus across hubs', () => {
  test("a shared event published on one hub reaches the other's subscribers, in order, with the other's own seq", () => {
    const { a, b } = twoHubs()
    const onB: BusEvent[] = []
    b.publish('c1', 'sample', { device_id: 'd1', i: 0 })
    b.subscribe('c1', (e) => onB.push(e))
    for (let i = 1; i <= 3; i++) a.publish('c1', 'sample', { device_id: 'd1', i })
    expect(seen(onB)).toEqual(['sample:1', 'sample:2', 'sample:3'])
    // B counts the client's events itself: its own first, then those heard
    expect(onB.map((e) => e.seq)).toEqual([2, 3, 4])
    // kept for resuming readers on B like its own
    expect(b.since('c1', b.position('c1').epoch, 2)!.map((e) => (e.data as { i: number }).i)).toEqual([2, 3])
  })

  test('a hub does not hear its own events back, and what it heard is not sent on', () => {
    const { net, a, b } = twoHubs()
    const onA: BusEvent[] = []
    a.subscribe('c1', (e) => onA.push(e))
    a.publish('c1', 'alert.firing', { alert: { id: 'x' } })
    expect(onA.length).toBe(1)
    // B heard it, and sent nothing back
    expect(net.sent.map((s) => s.from)).toEqual(['hub0'])
    expect(b.position('c1').seq).toBe(1)
  })

  test('only the listed types are shared: device.status stays on its hub', () => {
    const { net, a, b } = twoHubs()
    a.publish('c1', 'device.status', { device_id: 'd1', status: 'online' })
    a.publish('c1', 'sample', { device_id: 'd1' })
    expect(net.sent.map((s) => (s.body as { t: string }).t)).toEqual(['sample'])
    expect(b.position('c1').seq).toBe(1)
    expect(isShared('device.status')).toBe(false)
    for (const type of Object.keys(SHARED_EVENTS)) expect(isShared(type)).toBe(true)
  })

  test("events heard from another hub go to the clients' listeners and to subscribePeers, not to subscribeAll (its hub already told its own)", () => {
    const { a, b } = twoHubs()
    const all: string[] = []
    const peers: string[] = []
    b.subscribeAll((e) => all.push(e.type))
    b.subscribePeers((clientId, type) => peers.push(`${clientId}:${type}`))
    a.publish('c1', 'endpoint.disabled', {})
    b.publish('c1', 'recommendation.created', {})
    expect(all).toEqual(['recommendation.created'])
    expect(peers).toEqual(['c1:endpoint.disabled'])
  })

  test('a type a hub would not send is not taken from the link', () => {
    const { net, b } = twoHubs()
    // as if another program wrote on the channel
    net.links[0]!.send('bus', 'c1', JSON.stringify({ t: 'device.status', ts: '2026-01-01T00:00:00.000Z', d: {} }))
    net.links[0]!.send('bus', '', JSON.stringify({ t: 'sample', ts: '2026-01-01T00:00:00.000Z', d: {} }))
    expect(b.position('c1').seq).toBe(0)
    expect(b.kept().events).toBe(0)
  })

  test("when a hub may have missed events, the client's stream starts anew: a new epoch, kept events let go, each reader told", () => {
    const { net, a, b } = twoHubs()
    const restarts: StreamPoint[] = []
    b.subscribe(
      'c1',
      () => {},
      (p) => restarts.push(p),
    )
    a.publish('c1', 'sample', { device_id: 'd1' })
    a.publish('c2', 'sample', { device_id: 'd2' })
    const before = b.position('c1')
    const c2 = b.position('c2')
    net.miss(1, 'c1')
    const after = b.position('c1')
    expect(after.epoch).not.toBe(before.epoch)
    expect(restarts).toEqual([after])
    // a reader of the old epoch cannot resume: it reloads
    expect(b.since('c1', before.epoch, 0)).toBeNull()
    expect(b.since('c1', after.epoch, after.seq)).toEqual([])
    // another client's stream is untouched
    expect(b.position('c2')).toEqual(c2)
    // any client: every stream starts anew
    net.miss(1, null)
    expect(b.position('c2').epoch).not.toBe(c2.epoch)
    expect(restarts.length).toBe(2)
    expect(b.kept().events).toBe(0)
  })
})

test('a lazy shared event is made at once and sent to the other hubs as a published one is', () => {
  const { net, a, b } = twoHubs()
  const onB: BusEvent[] = []
  b.subscribe('c1', (e) => onB.push(e))
  a.publish('c1', 'sample', { device_id: 'd1', i: 1 })
  a.publishLazy('c1', 'sample', () => ({ device_id: 'd1', i: 2 }))
  expect(seen(onB)).toEqual(['sample:1', 'sample:2'])
  const [first, second] = net.sent.map((s) => JSON.stringify(s.body))
  expect(second).toBe(first!.replace('"i":1', '"i":2'))
})
