import { describe, expect, test } from 'bun:test'
import { decodePack, encodePack, type PackedAttempt } from '../../../src/modules/checks/checks.pack'

const HOUR = 3_600_000

/** a small seeded generator (mulberry32), so a failure can be replayed */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ERRORS = ['connection refused', 'timeout after 10000 ms', 'status 503 not accepted', 'TLS: certificate has expired — «ü»', 'x'.repeat(500), '']

/** attempts of one hour: random times (distinct), outcomes, status codes, response times and errors */
function randomHour(rand: () => number, hour: number): PackedAttempt[] {
  const n = Math.floor(rand() * 400)
  const times = new Set<number>()
  while (times.size < n) times.add(hour * HOUR + Math.floor(rand() * HOUR))
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!
  return [...times].map((ts) => {
    const ok = rand() < 0.8 ? 1 : 0
    return {
      ts,
      ok,
      response_ms: rand() < 0.1 ? null : pick([0, 1, 127, 128, Math.floor(rand() * 2000), 3_600_000]),
      status_code: rand() < 0.3 ? null : pick([0, 200, 204, 301, 404, 503, 999]),
      error: ok ? null : pick([...ERRORS, null]),
    }
  })
}

const byTime = (xs: PackedAttempt[]) => xs.toSorted((a, b) => a.ts - b.ts)

describe('packed attempts', () => {
  test('decoding gives back every attempt as it was, over many random hours', () => {
    const rand = random(29)
    for (let i = 0; i < 300; i++) {
      const hour = 490_000 + Math.floor(rand() * 1000)
      const attempts = randomHour(rand, hour)
      expect(decodePack(hour, encodePack(hour, attempts))).toEqual(byTime(attempts))
    }
  })

  test('the edges: no attempt, one, the first and last ms of the hour, a time before 1970, the largest times', () => {
    const one = (ts: number): PackedAttempt => ({ ts, ok: 1, response_ms: 5, status_code: 200, error: null })
    for (const [hour, attempts] of [
      [400_000, []],
      [400_000, [one(400_000 * HOUR)]],
      [400_000, [one(400_000 * HOUR), one(400_001 * HOUR - 1)]],
      [-1, [one(-HOUR), one(-1)]],
      [2_000_000_000, [one(2_000_000_000 * HOUR + 17), one(2_000_000_000 * HOUR + 3_599_999)]],
    ] as [number, PackedAttempt[]][])
      expect(decodePack(hour, encodePack(hour, attempts))).toEqual(attempts)
  })

  test('an hour of a healthy check at 60 s takes under 3 bytes an attempt; an outage with its errors a little more', () => {
    const rand = random(7)
    const hour = 495_000
    // on schedule within a few ms, 20 to 220 ms, status 200
    const healthy = Array.from({ length: 60 }, (_, i) => ({
      ts: hour * HOUR + 12_345 + i * 60_000 + Math.floor(rand() * 40),
      ok: 1,
      response_ms: 20 + Math.floor(rand() * 200),
      status_code: 200,
      error: null,
    }))
    expect(encodePack(hour, healthy).length).toBeLessThan(3 * 60)
    const outage = healthy.map((a, i) => (i % 3 ? a : { ...a, ok: 0, response_ms: null, status_code: null, error: 'timeout after 10000 ms' }))
    expect(encodePack(hour, outage).length).toBeLessThan(4 * 60)
    expect(decodePack(hour, encodePack(hour, outage))).toEqual(outage)
  })

  test('a negative or fractional number is refused rather than packed wrong', () => {
    expect(() => encodePack(1, [{ ts: HOUR, ok: 1, response_ms: -1, status_code: null, error: null }])).toThrow('cannot pack -1')
    expect(() => encodePack(1, [{ ts: HOUR, ok: 1, response_ms: 1.5, status_code: null, error: null }])).toThrow('cannot pack 1.5')
    expect(() => encodePack(1, [{ ts: HOUR, ok: 1, response_ms: 1, status_code: -1, error: null }])).toThrow('cannot pack -1')
  })

  test('a damaged blob is an error, never attempts made up', () => {
    const data = encodePack(1, [{ ts: HOUR, ok: 1, response_ms: 5, status_code: 200, error: null }])
    expect(() => decodePack(1, data.subarray(0, 3))).toThrow()
    expect(() => decodePack(1, Uint8Array.of(9, 0))).toThrow('unknown form')
  })
})
