import { describe, expect, test } from 'bun:test'
import { fullAt, take } from '../../src/lib/token-bucket'
import { memoryRateLimiter } from '../../src/http/rate-limiter'

const MIN = 60_000

describe('token bucket', () => {
  test('a full bucket allows `capacity` takes, then refuses', () => {
    const b = { tokens: 3, updatedAt: 0 }
    expect(take(b, 3, MIN, 0)).toMatchObject({ allowed: true, remaining: 2 })
    expect(take(b, 3, MIN, 0)).toMatchObject({ allowed: true, remaining: 1 })
    expect(take(b, 3, MIN, 0)).toMatchObject({ allowed: true, remaining: 0 })
    const refused = take(b, 3, MIN, 0)
    expect(refused.allowed).toBe(false)
    expect(refused.retryAfterMs).toBe(20_000) // one token every 20 s at 3/min
  })

  test('refills continuously and never beyond capacity', () => {
    const b = { tokens: 0, updatedAt: 0 }
    expect(take(b, 60, MIN, 999).allowed).toBe(false) // 0.999 tokens
    expect(take(b, 60, MIN, 1_999).allowed).toBe(true) // ~1.999 tokens after the refused try
    const later = take(b, 60, MIN, 10 * MIN)
    expect(later.remaining).toBe(59)
  })

  test('reset is when the bucket is full again', () => {
    const b = { tokens: 60, updatedAt: 0 }
    const r = take(b, 60, MIN, 0)
    expect(r.resetAt).toBe(1_000)
    expect(fullAt(b, 60, MIN)).toBe(1_000)
  })
})

describe('memoryRateLimiter', () => {
  test('buckets are per key', () => {
    const l = memoryRateLimiter()
    expect(l.take('a', 1, 0).allowed).toBe(true)
    expect(l.take('a', 1, 0).allowed).toBe(false)
    expect(l.take('b', 1, 0).allowed).toBe(true)
  })

  test('a changed limit applies at once, keeping what was spent', () => {
    const l = memoryRateLimiter()
    for (let i = 0; i < 60; i++) l.take('k', 60, 0)
    expect(l.take('k', 60, 0).allowed).toBe(false)
    const upgraded = l.take('k', 600, 0)
    expect(upgraded.limit).toBe(600)
    expect(upgraded.allowed).toBe(false) // upgrading does not mint tokens out of nothing
    expect(l.take('k', 600, 1_000).allowed).toBe(true) // but it refills ten times faster
  })

  test('memory stays bounded: idle buckets are swept and a hard cap holds', () => {
    const l = memoryRateLimiter({ maxEntries: 1_000 })
    for (let i = 0; i < 5_000; i++) l.take(`ip:${i}`, 60, 0)
    expect(l.size()).toBeLessThanOrEqual(1_000)
    // A minute later every one of them is full again: new traffic sweeps them away.
    for (let i = 0; i < 200; i++) l.take(`new:${i}`, 60, MIN + i)
    expect(l.size()).toBeLessThanOrEqual(1_000)
    const l2 = memoryRateLimiter()
    for (let i = 0; i < 100; i++) l2.take(`x:${i}`, 60, 0)
    for (let i = 0; i < 20; i++) l2.take(`y:${i}`, 60, MIN + 1)
    expect(l2.size()).toBe(20)
  })
})
