import { afterEach, describe, expect, test } from 'bun:test'
import { startCheckRunner, withCheckResults } from '../../../src/agent/checks/agent.checks'
import { manualClock } from '../../../src/lib/clock'
import { memoryLogger } from '../../../src/lib/logger'
import type { Timers } from '../../../src/lib/timers'

const stops: (() => void)[] = []
afterEach(() => {
  for (const s of stops.splice(0)) s()
})

/** Timers on the manual clock: `fire()` runs those whose time has come. */
function clockTimers(clock: { now(): number }) {
  const pending = new Set<{ at: number; fn: () => void }>()
  const timers: Timers = {
    after(ms, fn) {
      const t = { at: clock.now() + ms, fn }
      pending.add(t)
      return () => pending.delete(t)
    },
  }
  return {
    timers,
    fire() {
      for (const t of [...pending]) {
        if (t.at > clock.now()) continue
        pending.delete(t)
        t.fn()
      }
    },
  }
}

const settle = () => new Promise((r) => setTimeout(r, 20))

describe('agent check runner', () => {
  test('polls its checks (304 while unchanged), runs each on its interval and hands the results to the next batch', async () => {
    const target = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('up') })
    stops.push(() => target.stop(true))
    const clock = manualClock(Date.parse('2026-05-01T00:00:00Z'))
    const t = clockTimers(clock)
    const asked: { url: string; etag: string | null }[] = []
    const checks = [{ id: 'chk_1', name: 'intranet', kind: 'http', settings: { url: `http://127.0.0.1:${target.port}/` }, interval_s: 30, timeout_ms: 2000 }]
    const fetch = async (url: string, init: RequestInit) => {
      const etag = new Headers(init.headers).get('if-none-match')
      asked.push({ url, etag })
      if (etag === '"v1"') return new Response(null, { status: 304 })
      return Response.json({ checks, etag: '"v1"' })
    }
    const runner = startCheckRunner(
      { hub: 'http://hub.test', key: 'vk_key' },
      { clock, timers: t.timers, fetch, log: memoryLogger().logger, deviceId: () => 'dev_1', random: () => 0.5 },
    )
    stops.push(runner.stop)
    t.fire()
    await settle()
    expect(asked).toEqual([{ url: 'http://hub.test/v1/agent/checks?device_id=dev_1', etag: null }])
    expect(runner.planned()).toEqual([{ id: 'chk_1', nextAt: clock.now() + 15_000, running: false }])
    expect(runner.drain()).toBeNull()
    clock.advance(15_000)
    t.fire()
    await settle()
    const [result] = runner.drain()!
    expect(result).toMatchObject({ check_id: 'chk_1', ts: new Date(clock.now()).toISOString(), ok: true, status_code: 200, error: null })
    expect(runner.drain()).toBeNull()
    clock.advance(60_000)
    t.fire()
    await settle()
    expect(asked.at(-1)!.etag).toBe('"v1"')
    expect(withCheckResults({ recorded_at: 'x' }, null)).toEqual({ recorded_at: 'x' })
    expect(withCheckResults({ recorded_at: 'x' }, [result!])).toEqual({ recorded_at: 'x', check_results: [result!] })
  })

  test('a check removed from the list stops; nothing is asked before the device is known', async () => {
    const clock = manualClock()
    const t = clockTimers(clock)
    let device: string | null = null
    let list = [{ id: 'chk_1', name: 'a', kind: 'tcp', settings: { host: '127.0.0.1', port: 1 }, interval_s: 60, timeout_ms: 1000 }]
    let calls = 0
    const runner = startCheckRunner(
      { hub: 'http://hub.test', key: 'k' },
      {
        clock,
        timers: t.timers,
        fetch: async () => {
          calls++
          return Response.json({ checks: list, etag: `"${calls}"` })
        },
        log: memoryLogger().logger,
        deviceId: () => device,
      },
    )
    stops.push(runner.stop)
    t.fire()
    await settle()
    expect(calls).toBe(0)
    device = 'dev_1'
    clock.advance(1000)
    t.fire()
    await settle()
    expect(runner.planned().map((p) => p.id)).toEqual(['chk_1'])
    list = []
    clock.advance(60_000)
    t.fire()
    await settle()
    expect(runner.planned()).toEqual([])
  })

  test('it sleeps until a check is due or the list is to be asked for again: without checks it wakes once a minute, not every second', async () => {
    const clock = manualClock()
    const t = clockTimers(clock)
    const waits: number[] = []
    const timers: Timers = {
      after(ms, fn) {
        waits.push(ms)
        return t.timers.after(ms, fn)
      },
    }
    let list: { id: string; name: string; kind: string; settings: Record<string, unknown>; interval_s: number; timeout_ms: number }[] = []
    let calls = 0
    const runner = startCheckRunner(
      { hub: 'http://hub.test', key: 'k' },
      {
        clock,
        timers,
        fetch: async () => {
          calls++
          return Response.json({ checks: list, etag: `"${calls}"` })
        },
        log: memoryLogger().logger,
        deviceId: () => 'dev_1',
        random: () => 0.25,
        // a probe that answers at once: the test is about when the runner wakes
        probes: { addresses: async () => ['127.0.0.1'], fetch: async () => new Response('ok'), elapsed: () => clock.now(), now: () => clock.now() },
      },
    )
    stops.push(runner.stop)
    t.fire()
    await settle()
    expect(calls).toBe(1)
    // nothing to run: the next wake-up is the next poll, a minute on
    expect(waits.at(-1)).toBe(60_000)
    waits.length = 0
    for (let s = 0; s < 59; s++) {
      clock.advance(1000)
      t.fire()
    }
    expect(waits).toEqual([])
    // a check appears at the next poll: the runner wakes when it is due (a quarter of its 20 s), then every 20 s
    list = [{ id: 'chk_1', name: 'a', kind: 'http', settings: { url: 'http://127.0.0.1:1/' }, interval_s: 20, timeout_ms: 1000 }]
    clock.advance(1000)
    t.fire()
    await settle()
    expect(calls).toBe(2)
    expect(waits.at(-1)).toBe(5_000)
    clock.advance(5_000)
    t.fire()
    await settle()
    expect(runner.drain()).toHaveLength(1)
    expect(waits.at(-1)).toBe(20_000)
  })
})
