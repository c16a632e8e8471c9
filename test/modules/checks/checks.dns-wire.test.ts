import { afterEach, describe, expect, test } from 'bun:test'
import { createSocket } from 'node:dgram'
import { Resolver } from 'node:dns/promises'
import { directProbeDeps } from '../../../src/modules/checks/checks.outbound'
import { decodeReply, encodeQuery, type RecordType, RECORD_TYPES } from '../../../src/modules/checks/probes/probe.dns-wire'
import { answerText } from '../../../src/modules/checks/probes/probe.dns'
import { runProbe } from '../../../src/modules/checks/probes/probe.run'

/**
 * The DNS probe asks over UDP itself (probe.dns-wire.ts) instead of through node:dns: its
 * records must read as node:dns reads them. A server in the test answers every type with
 * compressed names, and both are asked the same questions.
 */
const stops: (() => unknown)[] = []
afterEach(() => {
  for (const s of stops.splice(0)) s()
})

const u16 = (n: number) => [n >> 8, n & 255]
const u32 = (n: number) => [...u16(n >>> 16), ...u16(n & 0xffff)]
const label = (s: string) => [s.length, ...new TextEncoder().encode(s)]
const name = (s: string) => [...s.split('.').flatMap(label), 0]
/** a pointer to the question's name (offset 12) */
const QNAME = [0xc0, 12]

/** Answer records for `site.test` of each type; a CNAME before the A records, as a chain reads. */
function answers(type: number): number[][] {
  const rr = (t: number, data: number[]) => [...QNAME, ...u16(t), ...u16(1), ...u32(60), ...u16(data.length), ...data]
  switch (type) {
    case RECORD_TYPES.A:
      return [rr(5, name('alias.test')), rr(1, [10, 0, 0, 7]), rr(1, [10, 0, 0, 8])]
    case RECORD_TYPES.AAAA:
      return [rr(28, [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), rr(28, [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2])]
    case RECORD_TYPES.CNAME:
      return [rr(5, [...label('www'), ...QNAME])]
    case RECORD_TYPES.NS:
      return [rr(2, name('ns1.example.net')), rr(2, [...label('ns2'), ...QNAME])]
    case RECORD_TYPES.PTR:
      return [rr(12, name('host.site.test'))]
    case RECORD_TYPES.MX:
      return [rr(15, [...u16(10), ...label('mail'), ...QNAME]), rr(15, [...u16(20), ...name('backup.example.net')])]
    case RECORD_TYPES.TXT:
      return [rr(16, [...label('v=spf1 '), ...label('-all')]), rr(16, label('hello'))]
    case RECORD_TYPES.SRV:
      return [rr(33, [...u16(1), ...u16(5), ...u16(5060), ...name('sip.site.test')])]
    case RECORD_TYPES.CAA:
      return [rr(257, [0, ...label('issue'), ...new TextEncoder().encode('letsencrypt.org')])]
    default:
      return []
  }
}

/** `site.test` answers every type; `empty.test` answers none; anything else is NXDOMAIN; `broken.test` SERVFAIL. */
async function server(opts: { truncate?: boolean } = {}) {
  const socket = createSocket('udp4')
  socket.on('message', (msg, peer) => {
    let i = 12
    const labels: string[] = []
    while (msg[i]! > 0) {
      labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString())
      i += msg[i]! + 1
    }
    const qtype = msg.readUInt16BE(i + 1)
    const host = labels.join('.')
    const rcode = host === 'site.test' || host === 'empty.test' ? 0 : host === 'broken.test' ? 2 : 3
    const rrs = host === 'site.test' ? answers(qtype) : []
    const flags = 0x8180 | rcode | (opts.truncate ? 0x0200 : 0)
    const reply = Buffer.from([...msg.subarray(0, 2), ...u16(flags), ...u16(1), ...u16(rrs.length), 0, 0, 0, 0, ...msg.subarray(12, i + 5), ...rrs.flat()])
    socket.send(reply, peer.port, peer.address)
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  stops.push(() => socket.close())
  return `127.0.0.1:${socket.address().port}`
}

describe('DNS over UDP, read as node:dns reads it', () => {
  test('every record type gives the answers node:dns gives, in the same text', async () => {
    const resolver = await server()
    const node = new Resolver({ timeout: 2000, tries: 1 })
    node.setServers([resolver])
    for (const type of Object.keys(RECORD_TYPES) as RecordType[]) {
      if (type === 'TXT') continue // below: Bun's node:dns splits one record's chunks into answers of their own
      const expected = ((await node.resolve('site.test', type)) as Parameters<typeof answerText>[0][]).map(answerText)
      const r = await runProbe({ kind: 'dns', settings: { name: 'site.test', record_type: type, resolver }, timeout_ms: 2000 }, directProbeDeps())
      expect({ type, ok: r.ok, detail: r.detail }).toEqual({ type, ok: true, detail: expected.join(', ') })
    }
    // one TXT record of two chunks is one answer, its chunks joined (as Node's resolveTxt gives [['v=spf1 ', '-all'], ['hello']])
    const txt = await runProbe(
      { kind: 'dns', settings: { name: 'site.test', record_type: 'TXT', resolver, expected: ['v=spf1 -all'] }, timeout_ms: 2000 },
      directProbeDeps(),
    )
    expect(txt).toMatchObject({ ok: true, detail: 'v=spf1 -all, hello' })
  })

  test('no such name, no records of the type, a failing server: the same errors as before', async () => {
    const resolver = await server()
    const ask = (name: string) => runProbe({ kind: 'dns', settings: { name, resolver }, timeout_ms: 2000 }, directProbeDeps())
    expect(await ask('nope.test')).toMatchObject({ ok: false, error: 'name does not exist (NXDOMAIN)' })
    expect(await ask('empty.test')).toMatchObject({ ok: false, error: 'no records of that type' })
    expect((await ask('broken.test')).error).toBe('ESERVFAIL: the server failed (SERVFAIL)')
  })

  test('a truncated answer is asked again through node:dns, which retries over TCP', async () => {
    const resolver = await server({ truncate: true })
    // the test's server has no TCP side: node:dns's retry is refused, where the UDP reading alone would have taken the partial answer
    const r = await runProbe({ kind: 'dns', settings: { name: 'site.test', resolver }, timeout_ms: 2000 }, directProbeDeps())
    expect(r.ok).toBe(false)
  })

  test('a reply with a compression loop, or cut short, is not DNS', () => {
    const query = encodeQuery(7, 'site.test', 'A')
    expect(Array.from(query.subarray(12))).toEqual([...name('site.test'), 0, 1, 0, 1])
    const header = [0, 7, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]
    const loop = Uint8Array.from([...header, ...name('site.test'), 0, 1, 0, 1, 0xc0, 27, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 1, 2, 3, 4])
    expect(decodeReply(loop, 'A')).toEqual({ id: 7, error: 'EBADRESP' })
    const cut = Uint8Array.from([...header, ...name('site.test'), 0, 1, 0, 1, ...QNAME, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 1, 2])
    expect(decodeReply(cut, 'A')).toEqual({ id: 7, error: 'EBADRESP' })
    expect(decodeReply(Uint8Array.from([0, 7, 0x81]), 'A')).toEqual({ id: -1, error: 'EBADRESP' })
  })
})
