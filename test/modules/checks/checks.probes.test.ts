import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer as createTlsServer } from 'node:tls'
import { hubProbeDeps } from '../../../src/modules/checks/checks.outbound'
import { directProbeDeps } from '../../../src/modules/checks/probes/probe.direct'
import { runProbe } from '../../../src/modules/checks/probes/probe.run'
import { jsonPathValue, statusAccepted } from '../../../src/modules/checks/probes/probe.http'
import { pingTime } from '../../../src/modules/checks/probes/probe.ping'
import type { ProbeDefinition } from '../../../src/modules/checks/probes/probe.types'
import { dnsServer, selfSignedCert } from '../../helpers/check-servers'

const stops: (() => unknown)[] = []
afterEach(() => {
  for (const s of stops.splice(0)) s()
})

const direct = directProbeDeps()
const def = (d: Partial<ProbeDefinition> & Pick<ProbeDefinition, 'kind' | 'settings'>): ProbeDefinition => ({ timeout_ms: 2000, ...d })

function http(fetch: (req: Request) => Response | Promise<Response>) {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch })
  stops.push(() => server.stop(true))
  return `http://127.0.0.1:${server.port}`
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  stops.push(() => server.close())
  return (server.address() as { port: number }).port
}

describe('http probe', () => {
  test('status, keyword, keyword absent and a JSON path decide, in that order', async () => {
    const url = http((req) => {
      const path = new URL(req.url).pathname
      if (path === '/json') return Response.json({ status: { db: 'ok', replicas: [3] } })
      if (path === '/down') return new Response('maintenance', { status: 503 })
      return new Response('hello world')
    })
    expect(await runProbe(def({ kind: 'http', settings: { url } }), direct)).toMatchObject({ ok: true, status_code: 200, error: null, detail: 'hello world' })
    expect(await runProbe(def({ kind: 'http', settings: { url: `${url}/down` } }), direct)).toMatchObject({
      ok: false,
      status_code: 503,
      error: 'status 503 not accepted',
    })
    expect(await runProbe(def({ kind: 'http', settings: { url: `${url}/down`, accepted_status: ['200-299', '503'] } }), direct)).toMatchObject({ ok: true })
    expect(await runProbe(def({ kind: 'http', settings: { url, keyword: 'nope' } }), direct)).toMatchObject({ ok: false, error: 'keyword absent' })
    expect(await runProbe(def({ kind: 'http', settings: { url, keyword: 'world', keyword_absent: true } }), direct)).toMatchObject({
      ok: false,
      error: 'keyword present',
    })
    const json = (json_path: string, json_expected?: string) =>
      runProbe(def({ kind: 'http', settings: { url: `${url}/json`, json_path, json_expected } }), direct)
    expect(await json('$.status.db', 'ok')).toMatchObject({ ok: true })
    expect(await json('$.status.replicas[0]', '3')).toMatchObject({ ok: true })
    expect(await json('$.status.db', 'degraded')).toMatchObject({ ok: false, error: '$.status.db is ok, expected degraded' })
    expect(await json('$.missing')).toMatchObject({ ok: false, error: '$.missing not found' })
  })

  test('at most 1 MB of the answer is read for keywords, whether it says its length, streams it or comes compressed', async () => {
    const long = `${'x'.repeat(2 * 1024 * 1024)}needle`
    const url = http((req) => {
      const path = new URL(req.url).pathname
      if (path === '/short') return new Response('a needle in a small page')
      if (path === '/sized') return new Response(long)
      if (path === '/gzip') return new Response(Bun.gzipSync(long), { headers: { 'content-encoding': 'gzip' } })
      const bytes = new TextEncoder().encode(long)
      return new Response(
        new ReadableStream({
          start(c) {
            for (let i = 0; i < bytes.length; i += 65_536) c.enqueue(bytes.subarray(i, i + 65_536))
            c.close()
          },
        }),
      )
    })
    const needle = (path: string) => runProbe(def({ kind: 'http', settings: { url: `${url}${path}`, keyword: 'needle' } }), direct)
    expect(await needle('/short')).toMatchObject({ ok: true })
    // a small compressed answer can unpack to any size: its length says nothing of what is read
    for (const path of ['/sized', '/streamed', '/gzip']) expect(await needle(path)).toMatchObject({ ok: false, error: 'keyword absent' })
  })

  test('method, headers and body are sent; redirects are followed or not as set', async () => {
    let seen: { method: string; auth: string | null; body: string } | null = null
    const url = http(async (req) => {
      const path = new URL(req.url).pathname
      if (path === '/moved') return new Response(null, { status: 302, headers: { location: '/final' } })
      if (path === '/final') return new Response('arrived')
      seen = { method: req.method, auth: req.headers.get('authorization'), body: await req.text() }
      return new Response('ok')
    })
    await runProbe(def({ kind: 'http', settings: { url: `${url}/post`, method: 'POST', headers: { authorization: 'Bearer t' }, body: '{"a":1}' } }), direct)
    expect(seen!).toEqual({ method: 'POST', auth: 'Bearer t', body: '{"a":1}' })
    expect(await runProbe(def({ kind: 'http', settings: { url: `${url}/moved` } }), direct)).toMatchObject({ ok: true, status_code: 200, detail: 'arrived' })
    expect(await runProbe(def({ kind: 'http', settings: { url: `${url}/moved`, follow_redirects: false } }), direct)).toMatchObject({
      ok: false,
      status_code: 302,
      error: 'status 302 not accepted',
    })
  })

  test('a slow answer is a timeout; a closed port is connection refused', async () => {
    const url = http(() => new Promise<Response>((resolve) => setTimeout(() => resolve(new Response('late')), 3000)))
    expect(await runProbe(def({ kind: 'http', settings: { url }, timeout_ms: 200 }), direct)).toMatchObject({ ok: false, error: 'timeout after 200 ms' })
    const port = await listen(createServer())
    stops.pop()!()
    expect(await runProbe(def({ kind: 'http', settings: { url: `http://127.0.0.1:${port}/` } }), direct)).toMatchObject({
      ok: false,
      error: 'connection refused',
    })
  })

  test('on the hub, a redirect to a refused address fails the attempt: every hop goes through the outbound policy', async () => {
    const url = http(() => new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }))
    const outbound = { fetch, resolve: async () => ['127.0.0.1'], selfAddresses: () => new Set<string>() }
    const hub = hubProbeDeps(outbound, { allowPrivate: false, allowLocal: true }, (r) => r, Date.now)
    const r = await runProbe(def({ kind: 'http', settings: { url } }), hub)
    expect(r).toMatchObject({ ok: false })
    expect(r.error).toStartWith('refused: the target is')
    // and a name that resolves to loopback is refused when loopback is not allowed
    const strict = hubProbeDeps(outbound, { allowPrivate: false, allowLocal: false }, (r) => r, Date.now)
    expect((await runProbe(def({ kind: 'tcp', settings: { host: 'db.example', port: 5432 } }), strict)).error).toBe('refused: db.example resolves to loopback')
  })

  test('statusAccepted and jsonPathValue', () => {
    expect(statusAccepted(204, ['200-299'])).toBe(true)
    expect(statusAccepted(301, ['200-299', '301'])).toBe(true)
    expect(statusAccepted(404, ['200-299'])).toBe(false)
    expect(jsonPathValue({ a: [{ b: 1 }] }, '$.a[0].b')).toBe(1)
    expect(jsonPathValue({ a: 1 }, '$.a.b')).toBeUndefined()
  })
})

describe('tcp probe', () => {
  test('an open port is up, a closed one is connection refused', async () => {
    const port = await listen(createServer((s) => s.end()))
    expect(await runProbe(def({ kind: 'tcp', settings: { host: '127.0.0.1', port } }), direct)).toMatchObject({ ok: true, error: null })
    const closed = await listen(createServer())
    stops.pop()!()
    expect(await runProbe(def({ kind: 'tcp', settings: { host: '127.0.0.1', port: closed } }), direct)).toMatchObject({
      ok: false,
      error: 'connection refused',
    })
  })
})

describe('dns probe (a tiny DNS server over UDP in the test)', () => {
  test('answers are compared with the expected ones; an unknown name is NXDOMAIN', async () => {
    const dns = await dnsServer({ 'app.test': { A: ['10.1.2.3', '10.1.2.4'], TXT: ['v=spf1 -all'] } })
    stops.push(dns.stop)
    const resolver = `127.0.0.1:${dns.port}`
    expect(await runProbe(def({ kind: 'dns', settings: { name: 'app.test', resolver, expected: ['10.1.2.4'] } }), direct)).toMatchObject({
      ok: true,
      detail: '10.1.2.3, 10.1.2.4',
    })
    expect(await runProbe(def({ kind: 'dns', settings: { name: 'app.test', record_type: 'TXT', resolver, expected: ['v=spf1 -all'] } }), direct)).toMatchObject(
      { ok: true },
    )
    expect(await runProbe(def({ kind: 'dns', settings: { name: 'app.test', resolver, expected: ['10.9.9.9'] } }), direct)).toMatchObject({
      ok: false,
      error: 'expected answer missing: 10.9.9.9',
    })
    expect(await runProbe(def({ kind: 'dns', settings: { name: 'nope.test', resolver } }), direct)).toMatchObject({
      ok: false,
      error: 'name does not exist (NXDOMAIN)',
    })
  })
})

describe('tls probe (certificates made with openssl)', () => {
  async function tlsServer(days: number) {
    const { cert, key, notAfter } = selfSignedCert(days)
    const port = await listen(createTlsServer({ cert, key }, (s) => s.end()) as unknown as Server)
    return { port, notAfter }
  }

  test("reads the certificate's expiry; an untrusted one fails unless verification is off; an expired one fails", async () => {
    const { port, notAfter } = await tlsServer(20)
    const unverified = await runProbe(def({ kind: 'tls', settings: { host: '127.0.0.1', port, verify_tls: false } }), direct)
    expect(unverified).toMatchObject({ ok: true, cert_expires_at: notAfter.toISOString() })
    const verified = await runProbe(def({ kind: 'tls', settings: { host: '127.0.0.1', port } }), direct)
    expect(verified.ok).toBe(false)
    expect(verified.error).toStartWith('TLS certificate not trusted')
    const expired = await tlsServer(-3)
    const r = await runProbe(def({ kind: 'tls', settings: { host: '127.0.0.1', port: expired.port, verify_tls: false } }), direct)
    expect(r).toMatchObject({ ok: false, cert_expires_at: expired.notAfter.toISOString() })
    expect(r.error).toStartWith('certificate expired at')
  })

  test('an https check reads the certificate expiry beside the answer', async () => {
    const { cert, key, notAfter } = selfSignedCert(10)
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', tls: { cert, key }, fetch: () => new Response('secure') })
    stops.push(() => server.stop(true))
    const r = await runProbe(def({ kind: 'http', settings: { url: `https://127.0.0.1:${server.port}/`, verify_tls: false, cert_warn_days: 14 } }), direct)
    expect(r).toMatchObject({ ok: true, status_code: 200, cert_expires_at: notAfter.toISOString() })
  })
})

describe('ping probe (iputils-ping as a child process)', () => {
  const hasPing = Bun.which('ping') !== null
  test.skipIf(!hasPing)('127.0.0.1 answers with a round-trip time', async () => {
    const r = await runProbe(def({ kind: 'ping', settings: { host: '127.0.0.1' } }), direct)
    expect(r).toMatchObject({ ok: true, error: null })
    expect(r.response_ms).toBeGreaterThanOrEqual(0)
  })

  test("the attempt's timeout covers the name's lookup and the reply: a later reply is a timeout", async () => {
    const stalled = { ...direct, addresses: () => new Promise<string[]>(() => {}) }
    expect(await runProbe(def({ kind: 'ping', settings: { host: 'slow.example' }, timeout_ms: 50 }), stalled)).toMatchObject({
      ok: false,
      error: 'timeout after 50 ms',
    })
    // a ping whose reply took 1,450 ms (within its whole-second wait, -W 2): past a 1,200 ms timeout, within 1,500 ms
    const fake = join(mkdtempSync(join(tmpdir(), 'vigil-ping-')), 'ping')
    writeFileSync(fake, "#!/bin/sh\necho '64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=1450 ms'\n", { mode: 0o755 })
    const saved = process.env.VIGIL_PING_PATH
    process.env.VIGIL_PING_PATH = fake
    try {
      expect(await runProbe(def({ kind: 'ping', settings: { host: '127.0.0.1' }, timeout_ms: 1200 }), direct)).toMatchObject({
        ok: false,
        error: 'timeout after 1200 ms',
      })
      expect(await runProbe(def({ kind: 'ping', settings: { host: '127.0.0.1' }, timeout_ms: 1500 }), direct)).toMatchObject({ ok: true, response_ms: 1450 })
    } finally {
      if (saved === undefined) delete process.env.VIGIL_PING_PATH
      else process.env.VIGIL_PING_PATH = saved
    }
  })

  test('the time is read from the reply line', () => {
    expect(pingTime('64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.045 ms')).toBe(0.045)
    expect(pingTime('1 packets transmitted, 0 received')).toBeNull()
  })
})
