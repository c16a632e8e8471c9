import { describe, expect, test } from 'bun:test'
import { clientIp } from '../../src/http/request-state'
import { parseCidr, type Cidr } from '../../src/lib/cidr'

const trust = (...proxies: string[]) => ({ trustProxy: true, trustedProxies: proxies.map((p) => parseCidr(p)!) as Cidr[] })

describe('the client address', () => {
  test('without VIGIL_TRUST_PROXY: the socket peer, whatever the header says', () => {
    expect(clientIp('203.0.113.9', '198.51.100.1', { trustProxy: false, trustedProxies: [] })).toBe('198.51.100.1')
  })

  test('behind the one proxy (the peer): the right-most hop, so a client-written first hop is ignored', () => {
    expect(clientIp('1.2.3.4, 203.0.113.9', '127.0.0.1', trust())).toBe('203.0.113.9')
    expect(clientIp('5.6.7.8, 203.0.113.9', '127.0.0.1', trust())).toBe('203.0.113.9')
    expect(clientIp('203.0.113.9', '127.0.0.1', trust())).toBe('203.0.113.9')
    expect(clientIp(null, '127.0.0.1', trust())).toBe('127.0.0.1')
  })

  test('with VIGIL_TRUSTED_PROXIES: listed hops are skipped from the right; an unlisted peer is the client', () => {
    const chain = trust('10.0.0.0/8', '::1')
    expect(clientIp('6.6.6.6, 203.0.113.9, 10.1.1.1', '10.0.0.2', chain)).toBe('203.0.113.9')
    expect(clientIp('6.6.6.6, 203.0.113.9, 10.1.1.1', '::ffff:10.0.0.2', chain)).toBe('203.0.113.9')
    expect(clientIp('6.6.6.6', '::1', chain)).toBe('6.6.6.6')
    // the header of a request that did not come through a listed proxy is the client's own words
    expect(clientIp('6.6.6.6', '198.51.100.1', chain)).toBe('198.51.100.1')
    // every hop a proxy: the left-most is the nearest the client there is
    expect(clientIp('10.9.9.9, 10.1.1.1', '10.0.0.2', chain)).toBe('10.9.9.9')
  })

  test('ports and brackets are read, an overlong entry is cut', () => {
    expect(clientIp('6.6.6.6, 10.1.1.1:5678', '10.0.0.2', trust('10.0.0.0/8'))).toBe('6.6.6.6')
    expect(clientIp(`x, ${'a'.repeat(500)}`, '127.0.0.1', trust())).toHaveLength(64)
  })
})
