import { describe, expect, test } from 'bun:test'
import { addressRefusal, hostRefusal, localAddresses, TENANT_POLICY, urlProblem, type OutboundPolicy } from '../../../src/lib/outbound/outbound.policy'

const none = () => new Set<string>()
const LAN: OutboundPolicy = { allowPrivate: true, allowLocal: false }
const INSTANCE: OutboundPolicy = { allowPrivate: true, allowLocal: true }

describe('outbound policy', () => {
  test('public addresses for everyone; private only when allowed; loopback only for the instance', () => {
    expect(addressRefusal('8.8.8.8', TENANT_POLICY, none)).toBeNull()
    expect(addressRefusal('192.168.1.20', TENANT_POLICY, none)).toBe('private')
    expect(addressRefusal('192.168.1.20', LAN, none)).toBeNull()
    expect(addressRefusal('127.0.0.1', LAN, none)).toBe('loopback')
    expect(addressRefusal('::1', LAN, none)).toBe('loopback')
    expect(addressRefusal('127.0.0.1', INSTANCE, none)).toBeNull()
  })

  test('link-local, metadata, unspecified, multicast and reserved are refused whoever asks', () => {
    for (const ip of [
      '169.254.169.254',
      '::ffff:169.254.169.254',
      'fd00:ec2::254',
      '100.100.100.200',
      '169.254.1.1',
      'fe80::1',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '255.255.255.255',
      '240.0.0.1',
    ]) {
      expect(addressRefusal(ip, INSTANCE, none)).not.toBeNull()
    }
  })

  test("this host's own addresses are the instance itself", () => {
    const self = () => new Set(['192.168.1.5', '2001:db8:0:0:0:0:0:5'])
    expect(addressRefusal('192.168.1.5', LAN, self)).toBe('self')
    expect(addressRefusal('::ffff:192.168.1.5', LAN, self)).toBe('self')
    expect(addressRefusal('192.168.1.6', LAN, self)).toBeNull()
    expect(addressRefusal('192.168.1.5', INSTANCE, self)).toBeNull()
    // the interfaces of the machine running the tests include loopback
    expect(localAddresses('0.0.0.0')().has('127.0.0.1')).toBe(true)
    expect(localAddresses('10.9.8.7')().has('10.9.8.7')).toBe(true)
  })

  test('names: metadata services and localhost are refused by name; other names wait for DNS', () => {
    expect(hostRefusal('metadata.google.internal', INSTANCE, none)).toBe('metadata')
    expect(hostRefusal('METADATA.google.internal.', INSTANCE, none)).toBe('metadata')
    expect(hostRefusal('localhost', LAN, none)).toBe('loopback')
    expect(hostRefusal('app.localhost', LAN, none)).toBe('loopback')
    expect(hostRefusal('localhost', INSTANCE, none)).toBeNull()
    expect(hostRefusal('ollama.lan', TENANT_POLICY, none)).toBeNull()
  })

  test('urlProblem: syntax first, then the host as written, in every spelling', () => {
    expect(urlProblem('ftp://192.168.1.2/', LAN, none, 'base_url')).toBe('base_url must use http or https')
    expect(urlProblem('not a url', LAN, none)).toContain('absolute')
    expect(urlProblem('http://user:pw@host/', LAN, none)).toContain('credentials')
    expect(urlProblem('http://host/?x=1', LAN, none)).toContain('query')
    for (const u of ['http://2130706433:11434', 'http://0x7f000001/', 'http://127.1/', 'http://0177.0.0.1/', 'http://[::1]/', 'http://localhost:11434']) {
      expect(urlProblem(u, LAN, none)).toContain('this server')
    }
    for (const u of [
      'http://[::169.254.169.254]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[2002:a9fe:a9fe::1]/',
      'http://0xa9fea9fe/',
      'http://metadata.google.internal/',
    ]) {
      expect(urlProblem(u, INSTANCE, none)).toContain('metadata')
    }
    expect(urlProblem('http://192.168.1.20:11434', TENANT_POLICY, none)).toContain('private network')
    expect(urlProblem('http://192.168.1.20:11434', LAN, none)).toBeNull()
    expect(urlProblem('https://api.openai.com/v1', TENANT_POLICY, none)).toBeNull()
  })
})
