import { describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { OutboundRedirect, OutboundRefused, OutboundUnreachable, safeFetch, type OutboundDeps } from '../../../src/lib/outbound/outbound.fetch'
import { TENANT_POLICY, type OutboundPolicy } from '../../../src/lib/outbound/outbound.policy'

const LAN: OutboundPolicy = { allowPrivate: true, allowLocal: false }

/** A resolver from a table and a fetch that records what it was asked and answers `answer`. */
function fakes(names: Record<string, string[]>, answer: (url: string) => Response | Promise<Response> = () => new Response('ok')) {
  const calls: { url: string; init: any }[] = []
  const deps: OutboundDeps = {
    resolve: async (name) => {
      const a = names[name]
      if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
      return a
    },
    fetch: (async (url: URL | string, init: any) => {
      calls.push({ url: String(url), init })
      return answer(String(url))
    }) as unknown as typeof fetch,
    selfAddresses: () => new Set(['192.168.1.5']),
  }
  return { deps, calls }
}

async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e) => e,
  )
  expect(err).toBeInstanceOf(OutboundRefused)
  return err as OutboundRefused
}

describe('safeFetch', () => {
  test('connects to the checked address: the name goes in Host and, for https, as the TLS server name', async () => {
    const { deps, calls } = fakes({ 'llm.example.com': ['93.184.216.34'] })
    await safeFetch(deps, 'https://llm.example.com:8443/v1/chat?x=1', { method: 'POST', headers: { 'x-a': '1' }, body: '{}' }, TENANT_POLICY)
    expect(calls).toHaveLength(1)
    expect(calls[0]!.url).toBe('https://93.184.216.34:8443/v1/chat?x=1')
    const headers = new Headers(calls[0]!.init.headers)
    expect(headers.get('host')).toBe('llm.example.com:8443')
    expect(headers.get('x-a')).toBe('1')
    expect(calls[0]!.init).toMatchObject({ method: 'POST', body: '{}', tls: { serverName: 'llm.example.com' }, proxy: false, redirect: 'manual' })
  })

  test('IPv6 answers are bracketed; plain http carries no TLS name; default ports stay out of Host', async () => {
    const { deps, calls } = fakes({ 'v6.example.com': ['2606:4700::1111'] })
    await safeFetch(deps, 'http://v6.example.com/x', {}, TENANT_POLICY)
    expect(calls[0]!.url).toBe('http://[2606:4700::1111]/x')
    expect(new Headers(calls[0]!.init.headers).get('host')).toBe('v6.example.com')
    expect(calls[0]!.init.tls).toBeUndefined()
  })

  test('a name resolving to loopback, metadata or a mapped metadata address is refused before any connection', async () => {
    for (const addresses of [['127.0.0.1'], ['169.254.169.254'], ['::ffff:169.254.169.254'], ['93.184.216.34', '10.0.0.1'], ['192.168.1.5']]) {
      const { deps, calls } = fakes({ 'evil.example.com': addresses })
      const err = await refusal(safeFetch(deps, 'http://evil.example.com/', {}, TENANT_POLICY))
      expect(err.stage).toBe('resolved')
      // says that it is refused, not which address or why: the name is the caller's, the answer is not
      expect(err.message).toBe('evil.example.com resolves to an address this server may not call')
      expect(calls).toHaveLength(0)
    }
  })

  test('the LAN for a policy that allows it, but never this host', async () => {
    const { deps, calls } = fakes({ 'ollama.lan': ['192.168.1.20'], 'me.lan': ['192.168.1.5'] })
    await safeFetch(deps, 'http://ollama.lan:11434/api/chat', {}, LAN)
    expect(calls[0]!.url).toBe('http://192.168.1.20:11434/api/chat')
    expect((await refusal(safeFetch(deps, 'http://me.lan/', {}, LAN))).refusal).toBe('self')
    expect((await refusal(safeFetch(deps, 'http://192.168.1.5:8080/', {}, LAN))).refusal).toBe('self')
  })

  test('literal addresses are checked as written and not resolved', async () => {
    const { deps, calls } = fakes({})
    expect((await refusal(safeFetch(deps, 'http://0x7f000001:8080/', {}, LAN))).refusal).toBe('loopback')
    expect((await refusal(safeFetch(deps, 'http://[64:ff9b::a9fe:a9fe]/', {}, LAN))).refusal).toBe('metadata')
    expect((await refusal(safeFetch(deps, 'file:///etc/passwd', {}, LAN))).refusal).toBe('scheme')
    await safeFetch(deps, 'http://8.8.8.8/', {}, TENANT_POLICY)
    expect(calls.map((c) => c.url)).toEqual(['http://8.8.8.8/'])
    expect(new Headers(calls[0]!.init.headers).get('host')).toBeNull()
  })

  test('failures are one kind whatever happened; the detail is for logs', async () => {
    const refused = fakes({ 'a.example.com': ['93.184.216.34', '93.184.216.35'] }, () => {
      throw Object.assign(new TypeError('ECONNREFUSED: Unable to connect'), { code: 'ECONNREFUSED' })
    })
    const err = await safeFetch(refused.deps, 'http://a.example.com/', {}, TENANT_POLICY).catch((e) => e)
    expect(err).toBeInstanceOf(OutboundUnreachable)
    expect(err.message).toBe('could not reach the server')
    expect(err.detail).toBe('ECONNREFUSED')
    expect(refused.calls.map((c) => c.url)).toEqual(['http://93.184.216.34/', 'http://93.184.216.35/']) // the next address after a failed connection
    const dns = await safeFetch(refused.deps, 'http://missing.example.com/', {}, TENANT_POLICY).catch((e) => e)
    expect(dns).toBeInstanceOf(OutboundUnreachable)
    expect(dns.message).toBe(err.message)
  })

  test("the caller's deadline covers the name's lookup: a resolver that never answers does not hold the call past it", async () => {
    const { deps, calls } = fakes({})
    deps.resolve = () => new Promise<string[]>(() => {})
    const err = await safeFetch(deps, 'http://slow-dns.example.com/', { signal: AbortSignal.timeout(30) }, TENANT_POLICY).catch((e) => e)
    expect(err).toBeInstanceOf(OutboundUnreachable)
    expect(err.detail).toBe('dns: timeout')
    expect(calls).toHaveLength(0)
  })

  test('redirects are an error, never followed', async () => {
    const { deps, calls } = fakes({}, () => new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/' } }))
    const err = await safeFetch(deps, 'http://8.8.8.8/', {}, TENANT_POLICY).catch((e) => e)
    expect(err).toBeInstanceOf(OutboundRedirect)
    expect(calls).toHaveLength(1)
  })
})

test('pinning over real https: Bun verifies the certificate against the name, not the address', async () => {
  const dir = `${process.env.TMPDIR ?? '/tmp'}/vigil-outbound-${process.pid}`
  const gen = Bun.spawnSync([
    'openssl',
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${dir}-key.pem`,
    '-out',
    `${dir}-cert.pem`,
    '-days',
    '1',
    '-subj',
    '/CN=llm.test',
    '-addext',
    'subjectAltName=DNS:llm.test',
  ])
  if (gen.exitCode !== 0) throw new Error('openssl is needed for this test')
  const cert = await Bun.file(`${dir}-cert.pem`).text()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    tls: { cert, key: await Bun.file(`${dir}-key.pem`).text() },
    fetch: (req) => new Response(req.headers.get('host')),
  })
  try {
    const local: OutboundPolicy = { allowPrivate: true, allowLocal: true }
    const deps = (name: string): OutboundDeps => ({ fetch, resolve: async (n) => (n === name ? ['127.0.0.1'] : []), selfAddresses: () => new Set() })
    const ok = await safeFetch(deps('llm.test'), `https://llm.test:${server.port}/`, { tls: { ca: cert } }, local)
    expect(await ok.text()).toBe(`llm.test:${server.port}`)
    // the same address under a name the certificate does not carry fails the TLS check
    const wrong = await safeFetch(deps('other.test'), `https://other.test:${server.port}/`, { tls: { ca: cert } }, local).catch((e) => e)
    expect(wrong).toBeInstanceOf(OutboundUnreachable)
    expect(wrong.detail).toBe('ERR_TLS_CERT_ALTNAME_INVALID')
  } finally {
    server.stop(true)
    for (const f of ['key', 'cert']) rmSync(`${dir}-${f}.pem`, { force: true })
  }
})
