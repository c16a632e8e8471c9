import { describe, expect, test } from 'bun:test'
import { canonicalIp, classifyIp, parseIPv4, parseIPv6 } from '../../../src/lib/outbound/outbound.address'

/** host as typed → kind; each is checked raw and as Bun's URL normalises it. */
const TABLE: [string, ReturnType<typeof classifyIp>][] = [
  // loopback in every IPv4 spelling inet_aton and the URL standard accept
  ['127.0.0.1', 'loopback'],
  ['2130706433', 'loopback'],
  ['0x7f000001', 'loopback'],
  ['127.1', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  ['0x7f.1', 'loopback'],
  ['127.0.0.01', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['[::1]', 'loopback'],
  ['[::ffff:127.0.0.1]', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback'],
  ['[::127.0.0.1]', 'loopback'],
  ['[64:ff9b::7f00:1]', 'loopback'],
  ['[2002:7f00:1::]', 'loopback'],
  // cloud metadata
  ['169.254.169.254', 'metadata'],
  ['2852039166', 'metadata'],
  ['0xa9fea9fe', 'metadata'],
  ['0251.0376.0251.0376', 'metadata'],
  ['169.254.43518', 'metadata'],
  ['[::169.254.169.254]', 'metadata'],
  ['[::ffff:169.254.169.254]', 'metadata'],
  ['[::ffff:a9fe:a9fe]', 'metadata'],
  ['[64:ff9b::a9fe:a9fe]', 'metadata'],
  ['[64:ff9b::169.254.169.254]', 'metadata'],
  ['[64:ff9b:1::a9fe:a9fe]', 'metadata'],
  ['[2002:a9fe:a9fe::1]', 'metadata'],
  ['[2001:0:4136:e378:8000:63bf:5601:5601]', 'metadata'], // Teredo, client 169.254.169.254 inverted
  ['[fd00:ec2::254]', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['192.0.0.192', 'metadata'],
  // the rest of the always-refused kinds
  ['169.254.1.1', 'link_local'],
  ['[fe80::1]', 'link_local'],
  ['[febf::1]', 'link_local'],
  ['0.0.0.0', 'unspecified'],
  ['0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['[::]', 'unspecified'],
  ['[::ffff:0.0.0.0]', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['[ff02::1]', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['[2001:db8::1]', 'reserved'],
  ['[100::1]', 'reserved'],
  ['[4000::1]', 'reserved'],
  // private networks
  ['10.0.0.7', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.20', 'private'],
  ['0xc0a80114', 'private'],
  ['100.64.0.1', 'private'],
  ['198.18.0.5', 'private'],
  ['[fd12:3456::1]', 'private'],
  ['[fc00::1]', 'private'],
  ['[fec0::1]', 'private'],
  ['[::ffff:10.0.0.1]', 'private'],
  ['[64:ff9b:1::808:808]', 'private'], // local-use NAT64 is a private network whatever it embeds
  // public
  ['8.8.8.8', 'public'],
  ['172.32.0.1', 'public'],
  ['100.128.0.1', 'public'],
  ['[2606:4700::1111]', 'public'],
  ['[64:ff9b::808:808]', 'public'],
  ['[2002:808:808::1]', 'public'],
  ['[::ffff:8.8.8.8]', 'public'],
]

describe('address classification', () => {
  for (const [host, kind] of TABLE) {
    test(`${host} is ${kind}`, () => {
      expect(classifyIp(host)).toBe(kind)
      const normalised = new URL(`http://${host}/`).hostname
      expect(classifyIp(normalised)).toBe(kind)
    })
  }

  test('names are not addresses', () => {
    for (const name of ['localhost', 'llm.example.com', 'cafe', '1e3', '08.1.1.1', '1.2.3.4.5', '999.1.1.1', '0x1g']) expect(classifyIp(name)).toBeNull()
  })
})

describe('parsing', () => {
  test('inet_aton forms agree with the URL standard', () => {
    for (const host of ['2130706433', '0x7f000001', '127.1', '0177.0.0.1', '10.1.257', '0xc0.0xa8.1.0x14', '1.2.3.4.']) {
      const viaUrl = new URL(`http://${host}/`).hostname
      expect(canonicalIp(host)).toBe(viaUrl)
    }
    expect(parseIPv4('256.1.1.1')).toBeNull()
    expect(parseIPv4('1.2.3.256')).toBeNull() // the last part fills only the room left
    expect(parseIPv4('4294967296')).toBeNull()
    expect(parseIPv4('4294967295')).toBe(0xffffffff)
  })

  test('IPv6 groups, zone ids and brackets', () => {
    expect(parseIPv6('[fe80::1%eth0]')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1])
    expect(parseIPv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304])
    expect(parseIPv6('1:2:3:4:5:6:7:8:9')).toBeNull()
    expect(parseIPv6('1::2::3')).toBeNull()
    expect(parseIPv6('::ffff:1.2.3.999')).toBeNull()
  })

  test('one canonical spelling: mapped IPv6 is its IPv4', () => {
    expect(canonicalIp('::ffff:192.168.1.5')).toBe('192.168.1.5')
    expect(canonicalIp('[2001:DB8::0:1]')).toBe('2001:db8:0:0:0:0:0:1')
    expect(canonicalIp('example.com')).toBeNull()
  })
})
