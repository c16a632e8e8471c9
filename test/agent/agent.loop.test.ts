import { describe, expect, test } from 'bun:test'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openQueue } from '../../src/agent/agent.queue'
import { queuedSamples } from '../../src/agent/agent.queue-files'
import { backoffCapMs, classify, createBackoff } from '../../src/agent/agent.sender'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import { freePort } from '../helpers/binary'
import { setup, tempDir } from './loop-harness'

describe('sender answers', () => {
  test('2xx sent; 429, 5xx, 408 retried; 401/403 the key refused; 404 the device gone; any other 4xx dropped', () => {
    expect([200, 201, 204].map(classify)).toEqual(['sent', 'sent', 'sent'])
    expect([429, 500, 502, 503, 408].map(classify)).toEqual(Array(5).fill('retry'))
    expect([401, 403].map(classify)).toEqual(['refused', 'refused'])
    expect(classify(404)).toBe('gone')
    expect([400, 409, 413, 422].map(classify)).toEqual(Array(4).fill('dropped'))
  })

  test("the backoff's cap: 5 minutes, or one interval when that is longer", () => {
    expect(backoffCapMs(1_000)).toBe(300_000)
    expect(backoffCapMs(10_000)).toBe(300_000)
    expect(backoffCapMs(3_600_000)).toBe(3_600_000)
  })

  test('backoff doubles up to its cap, with full jitter, and resets on success', () => {
    const b = createBackoff({ baseMs: 1000, capMs: 8000, random: () => 0.999 })
    expect([b.failed(0), b.failed(0), b.failed(0), b.failed(0), b.failed(0)]).toEqual([999, 1998, 3996, 7992, 7992])
    expect(b.ready(7991)).toBe(false)
    expect(b.ready(7992)).toBe(true)
    b.succeeded()
    expect(b.ready(0)).toBe(true)
    const half = createBackoff({ baseMs: 1000, random: () => 0.5 })
    expect(half.failed(0)).toBe(500)
  })
})

describe('the loop against a hub', () => {
  test('registers the device once, keeps its id 0600 in the state dir, and sends each sample with it', async () => {
    const { hub, tick, stateDir, agent } = setup()
    await tick()
    await tick()
    expect(hub.registrations).toEqual([{ hostname: 'box-1', os: 'linux', os_version: 'test', arch: 'x86_64', fingerprint: 'fp-box-1' }])
    expect(hub.seqs()).toEqual([1, 2])
    expect(agent.deviceId()).toBe('dev_fake')
    const kept = join(stateDir, 'device.json')
    expect(JSON.parse(readFileSync(kept, 'utf8'))).toMatchObject({ device_id: 'dev_fake', fingerprint: 'fp-box-1' })
    expect(statSync(kept).mode & 0o777).toBe(0o600)
  })

  test('hub down: samples are queued; back: the live sample first, then the queued ones oldest first, a bounded number per tick', async () => {
    const { hub, tick, agent } = setup({ replayPerTick: 2 })
    await tick() // 1 sent
    hub.answer = () => 503
    for (let i = 0; i < 5; i++) await tick() // 2..6 queued
    expect(hub.seqs()).toEqual([1])
    expect(agent.queued().count).toBe(5)
    hub.answer = () => 201
    await tick() // live 7, then 2 and 3
    await tick() // live 8, then 4 and 5
    await tick() // live 9, then 6
    expect(hub.seqs()).toEqual([1, 7, 2, 3, 8, 4, 5, 9, 6])
    expect(agent.queued().count).toBe(0)
  })

  test('hub unreachable (nothing listening): queued, with a warning once, not a line per sample', async () => {
    const port = freePort()
    const { tick, agent, lines } = setup({ hub: `http://127.0.0.1:${port}` })
    for (let i = 0; i < 3; i++) await tick()
    expect(agent.queued().count).toBe(3)
    expect(lines.filter((l) => l.includes('queueing until')).length).toBe(1)
  })

  test('while backing off, samples go straight to the queue without a request', async () => {
    const { hub, tick, agent } = setup({ random: () => 0.999 })
    await tick()
    let requests = 0
    hub.answer = () => {
      requests++
      return 503
    }
    await tick() // fails: backoff ~5 s < 10 s interval
    await tick() // tried again, fails: ~10 s
    expect(requests).toBe(2)
    // the third failure waits ~20 s: the next tick (10 s later) does not ask the hub
    await tick()
    expect(requests).toBe(3)
    await tick()
    expect(requests).toBe(3)
    expect(agent.queued().count).toBe(4)
  })

  test('a sample the hub refuses (400) is dropped with a log line, not retried; the next ones flow', async () => {
    const { hub, tick, agent, lines } = setup()
    hub.answer = (b) => (b.seq === 2 ? 400 : 201)
    await tick()
    await tick()
    await tick()
    expect(hub.seqs()).toEqual([1, 3])
    expect(agent.queued().count).toBe(0)
    expect(lines.some((l) => l.includes('refused a sample') && l.includes('"status":400'))).toBe(true)
  })

  test('a queued sample the hub refuses on replay leaves the queue; the rest replay', async () => {
    const { hub, tick, agent } = setup()
    hub.answer = () => 503
    await tick()
    await tick()
    hub.answer = (b) => (b.seq === 1 ? 422 : 201)
    await tick()
    expect(hub.seqs()).toEqual([3, 2])
    expect(agent.queued().count).toBe(0)
  })

  test('the queue survives a restart of the agent and is replayed by the next one', async () => {
    const { hub, tick, agent, start, stateDir, lines } = setup()
    hub.answer = () => 503
    await tick()
    await tick()
    await agent.stop()
    expect(queuedSamples(stateDir)).toBe(2)
    hub.answer = () => 201
    const second = start()
    expect(lines.some((l) => l.includes('earlier run') && l.includes('"queued":2'))).toBe(true)
    await tick(second)
    expect(hub.seqs()).toEqual([3, 1, 2])
    expect(hub.registrations.length).toBe(1) // the device id was remembered
  })

  test('stop: no tick after it, and the timer is cancelled', async () => {
    const { agent, m } = setup()
    expect(m.pending()).toBe(1)
    await agent.stop()
    expect(m.pending()).toBe(0)
  })
})

describe('queue bounds', () => {
  test('past the size bound the oldest go first, with a log line', () => {
    const clock = manualClock()
    const { logger, lines } = memoryLogger()
    const q = openQueue(tempDir(), { clock, log: logger, limits: { maxBytes: 1000, maxAgeMs: 3_600_000 } })
    for (let i = 0; i < 15; i++) q.push(JSON.stringify({ i, pad: 'x'.repeat(90) }), clock.now())
    expect(q.size().bytes).toBeLessThanOrEqual(1000)
    const left = q.oldest(100).map((s) => JSON.parse(s.body).i)
    expect(left).toEqual(Array.from({ length: left.length }, (_, k) => 15 - left.length + k))
    expect(left.at(-1)).toBe(14)
    expect(lines.some((l) => l.includes('full, dropped the oldest'))).toBe(true)
    q.close()
  })

  test('samples older than the age bound are dropped, with a log line', () => {
    const clock = manualClock()
    const { logger, lines } = memoryLogger()
    const q = openQueue(tempDir(), { clock, log: logger, limits: { maxBytes: 1e9, maxAgeMs: 60_000 } })
    q.push('{"a":1}', clock.now())
    clock.advance(30_000)
    q.push('{"a":2}', clock.now())
    clock.advance(40_000)
    q.push('{"a":3}', clock.now())
    expect(q.oldest(10).map((s) => s.body)).toEqual(['{"a":2}', '{"a":3}'])
    expect(lines.some((l) => l.includes('older than the age limit') && l.includes('"dropped":1'))).toBe(true)
    q.close()
  })
})

describe('replay in bulk', () => {
  test('queued samples go to POST /v1/metrics/bulk, oldest first, after the live one; refused items leave the queue', async () => {
    const { hub, tick, agent, lines } = setup()
    hub.bulk = true
    hub.answer = () => 503
    for (let i = 0; i < 6; i++) await tick() // 1..6 queued
    expect(agent.queued().count).toBe(6)
    hub.answer = (b) => (b.seq === 3 ? 400 : 201)
    await tick() // live 7, then 1..6 in one request; 3 refused for good
    expect(hub.seqs()).toEqual([7, 1, 2, 4, 5, 6])
    expect(hub.bulks).toEqual([6])
    expect(agent.queued().count).toBe(0)
    expect(lines.some((l) => l.includes('refused queued samples'))).toBe(true)
  })

  test('a hub without /bulk gets the same samples one by one', async () => {
    const { hub, tick, agent } = setup()
    hub.answer = () => 503
    for (let i = 0; i < 3; i++) await tick()
    hub.answer = () => 201
    await tick()
    expect(hub.seqs()).toEqual([4, 1, 2, 3])
    expect(agent.queued().count).toBe(0)
  })

  test('a 429 on the bulk keeps the samples and waits at least its Retry-After', async () => {
    const { hub, tick, agent, clock } = setup()
    hub.bulk = true
    hub.answer = () => 503
    for (let i = 0; i < 3; i++) await tick()
    clock.advance(600_000) // past any backoff
    hub.answer = () => 201
    hub.bulkAnswer = () => ({ status: 429, headers: { 'retry-after': '45' } })
    await tick() // live 4 taken, the bulk refused for now
    expect(hub.seqs()).toEqual([4])
    expect(agent.queued().count).toBe(3)
    hub.bulkAnswer = () => ({ status: 201 })
    // 10, 20 and 30 s later the backoff (at least 45 s) still holds: samples queue without a request
    for (let i = 0; i < 3; i++) await tick()
    expect(hub.seqs()).toEqual([4])
    expect(agent.queued().count).toBe(6)
    await tick() // 40 s
    await tick() // 50 s: past 45 s
    expect(hub.seqs()).toEqual([4, 9, 1, 2, 3, 5, 6, 7, 8])
    expect(agent.queued().count).toBe(0)
  })
})
