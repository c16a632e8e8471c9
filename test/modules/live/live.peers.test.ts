import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { createEventBus } from '../../../src/lib/event-bus'
import { openStream } from '../../../src/modules/live/live.service'
import { slotLimits, streamSlots } from '../../../src/modules/live/live.slots'
import { linkedPeers } from '../../helpers/peer-links'
import { manualTimers } from '../../helpers/timers'

/** a stream opened on hub B of two linked hubs, read frame by frame */
function streamOnB() {
  const net = linkedPeers(2)
  const clock = manualClock(Date.parse('2026-01-01T00:00:00Z'))
  const a = createEventBus({ clock, peers: net.links[0] })
  const b = createEventBus({ clock, peers: net.links[1] })
  const stream = openStream(
    {
      events: b,
      clock,
      timers: manualTimers().timers,
      slots: streamSlots(slotLimits(10)),
      devices: { exists: () => true },
      stillValid: async () => true,
    },
    {
      principal: { kind: 'user', userId: 'u1', clientId: 'c1', role: 'user', expiresAt: clock.now() + 900_000 },
      token: 't',
      deviceId: null,
      lastEventId: null,
    },
  )
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let text = ''
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      text += decoder.decode(value)
    }
  })()
  /** the frames sent so far (the opening `retry:` left out), once the reads queued have run */
  const frames = async () => {
    await new Promise((resolve) => setImmediate(resolve))
    return text
      .split('\n\n')
      .filter((f) => f.startsWith('id:'))
      .map((f) => Object.fromEntries(f.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)])))
  }
  return { net, a, b, frames, cancel: () => reader.cancel() }
}

describe('the live stream with several hubs', () => {
  test('a stream on hub B sends the samples published on hub A', async () => {
    const s = streamOnB()
    s.a.publish('c1', 'sample', { device_id: 'd1', kind: 'hardware', values: { cpu_percent: 5 } })
    s.a.publish('c2', 'sample', { device_id: 'd9', kind: 'hardware', values: {} })
    const frames = await s.frames()
    expect(frames.map((f) => f.event)).toEqual(['sample'])
    expect(JSON.parse(frames[0]!.data!).data).toEqual({ device_id: 'd1', kind: 'hardware', values: { cpu_percent: 5 } })
    await s.cancel()
  })

  test('when hub B missed events from the others, its open stream sends `reset` (missed) at the new point and goes on from there', async () => {
    const s = streamOnB()
    s.a.publish('c1', 'sample', { device_id: 'd1' })
    const [first] = await s.frames()
    s.net.miss(1, null)
    s.a.publish('c1', 'sample', { device_id: 'd1' })
    const frames = await s.frames()
    expect(frames.map((f) => f.event)).toEqual(['sample', 'reset', 'sample'])
    const point = s.b.position('c1')
    const [oldEpoch] = first!.id!.split('-')
    const [resetEpoch, resetSeq] = frames[1]!.id!.split('-')
    expect(resetEpoch).not.toBe(oldEpoch)
    expect(JSON.parse(frames[1]!.data!).data).toEqual({ reason: 'missed' })
    // resuming from the reset's id loses nothing: it is where the stream then stood
    expect(Number(resetSeq)).toBe(point.seq - 1)
    expect(frames[2]!.id).toBe(`${point.epoch}-${point.seq}`)
    await s.cancel()
  })
})
