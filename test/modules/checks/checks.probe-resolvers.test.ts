import { describe, expect, test } from 'bun:test'
import { RESOLVER_MAX_AGE_MS, resolverCache } from '../../../src/modules/checks/probes/probe.resolvers'

/** a cache whose resolvers are numbered in the order they were made */
function numbered(limits?: { maxAgeMs: number; kept: number }) {
  const made: [number, string | null][] = []
  const cache = resolverCache((timeout, server) => {
    made.push([timeout, server])
    return made.length
  }, limits)
  return { cache, made }
}

describe('the DNS checks share their resolvers', () => {
  test('checks asking the same server with the same timeout get one resolver until it is a minute old', () => {
    const { cache, made } = numbered()
    expect(cache.get(5000, '127.0.0.1:5353', 0)).toBe(1)
    expect(cache.get(5000, '127.0.0.1:5353', RESOLVER_MAX_AGE_MS - 1)).toBe(1)
    // the system's settings are read again: a changed /etc/resolv.conf is followed
    expect(cache.get(5000, '127.0.0.1:5353', RESOLVER_MAX_AGE_MS)).toBe(2)
    expect(cache.get(5000, '127.0.0.1:5353', RESOLVER_MAX_AGE_MS + 10)).toBe(2)
    expect(made).toEqual([
      [5000, '127.0.0.1:5353'],
      [5000, '127.0.0.1:5353'],
    ])
  })

  test('another server, the system resolver or another timeout is another resolver', () => {
    const { cache, made } = numbered()
    const got = [
      cache.get(5000, '127.0.0.1:53', 0),
      cache.get(5000, '[::1]:53', 0),
      cache.get(5000, null, 0),
      cache.get(2000, null, 0),
      cache.get(5000, null, 1),
    ]
    expect(got).toEqual([1, 2, 3, 4, 3])
    expect(made).toEqual([
      [5000, '127.0.0.1:53'],
      [5000, '[::1]:53'],
      [5000, null],
      [2000, null],
    ])
  })

  test('at most `kept` resolvers are kept: the oldest made is let go first', () => {
    const { cache } = numbered({ maxAgeMs: 60_000, kept: 2 })
    cache.get(1000, 'a', 0)
    cache.get(1000, 'b', 0)
    cache.get(1000, 'c', 0)
    expect(cache.size()).toBe(2)
    expect(cache.get(1000, 'b', 1)).toBe(2)
    expect(cache.get(1000, 'c', 1)).toBe(3)
    expect(cache.get(1000, 'a', 1)).toBe(4)
    expect(cache.size()).toBe(2)
  })
})
