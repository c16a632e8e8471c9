import { describe, expect, test } from 'bun:test'
import { newId } from '../../../src/lib/ids'
import type { Resolver } from '../../../src/lib/outbound/outbound.fetch'
import { aiTestApp } from '../../helpers/ai'
import { createTenant } from '../../helpers/fixtures'

/**
 * Where a tenant's language model may be, through the API: the outbound policy at config time
 * (the host as written) and at call time (every address the name resolves to, the connection
 * pinned to the checked one). DNS and fetch are fakes: nothing here touches the network.
 */
const OLLAMA_ANSWER = { model: 'llama3.1', message: { role: 'assistant', content: '{"ok":true}' }, done: true, prompt_eval_count: 5, eval_count: 3 }

function network(names: Record<string, string[]> = {}, answer: () => Response = () => Response.json(OLLAMA_ANSWER)) {
  const calls: { url: string; host: string | null; serverName?: string }[] = []
  const lookups: string[] = []
  const resolve: Resolver = async (name) => {
    lookups.push(name)
    const found = names[name]
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
    return found
  }
  const fetch = (async (url: string | URL, init?: BunFetchRequestInit) => {
    calls.push({ url: String(url), host: new Headers(init?.headers).get('host'), serverName: init?.tls?.serverName })
    return answer()
  }) as typeof globalThis.fetch
  return { resolve, fetch, calls, lookups }
}

async function setProvider(t: ReturnType<typeof aiTestApp>, headers: Record<string, string>, base_url: string) {
  return t.request('PATCH', '/v1/ai/config', { headers, body: { provider: 'ollama', base_url } })
}

describe("the operator's own client", () => {
  test('may use a LAN Ollama by address or by name', async () => {
    const net = network({ 'ollama.lan': ['192.168.1.20'] })
    const t = aiTestApp({ resolve: net.resolve, fetch: net.fetch })
    const op = await createTenant(t, { role: 'admin' })
    expect((await setProvider(t, op.userHeaders, 'http://192.168.1.20:11434')).status).toBe(200)
    expect((await t.request('POST', '/v1/ai/test', { headers: op.userHeaders })).body).toMatchObject({ ok: true, error: null })
    expect(net.calls.at(-1)!.url).toBe('http://192.168.1.20:11434/api/chat')
    expect((await setProvider(t, op.userHeaders, 'http://ollama.lan:11434')).status).toBe(200)
    expect((await t.request('POST', '/v1/ai/test', { headers: op.userHeaders })).body.ok).toBe(true)
    expect(net.calls.at(-1)).toEqual({ url: 'http://192.168.1.20:11434/api/chat', host: 'ollama.lan:11434', serverName: undefined })
  })

  test('an operator invited into another client does not lend it the LAN', async () => {
    const t = aiTestApp()
    const op = await createTenant(t, { role: 'admin' })
    const b = await createTenant(t)
    t.db.sqlite.run("INSERT INTO members (id, client_id, user_id, role, status, created_at, updated_at) VALUES (?, ?, ?, 'admin', 'active', 0, 0)", [
      newId('mem'),
      b.clientId,
      op.userId,
    ])
    expect((await setProvider(t, b.userHeaders, 'http://192.168.1.20:11434')).status).toBe(422)
  })

  test('the instance default from the environment may be on this host (an Ollama beside Vigil), never metadata', async () => {
    const net = network()
    const t = aiTestApp({ ai: { provider: 'ollama', baseUrl: 'http://127.0.0.1:11434' }, resolve: net.resolve, fetch: net.fetch })
    const a = await createTenant(t)
    expect((await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })).body).toMatchObject({ ok: true })
    expect(net.calls.at(-1)!.url).toBe('http://127.0.0.1:11434/api/chat')
    const meta = aiTestApp({ ai: { provider: 'ollama', baseUrl: 'http://169.254.169.254' }, resolve: net.resolve, fetch: net.fetch })
    const m = await createTenant(meta)
    expect((await meta.request('POST', '/v1/ai/test', { headers: m.userHeaders })).body).toMatchObject({
      ok: false,
      error: 'base_url points at a cloud-metadata address',
    })
    expect(net.calls).toHaveLength(1)
  })
})

describe('other tenants', () => {
  test('private addresses are refused, at config time and after DNS, unless the operator allows them', async () => {
    const net = network({ 'ollama.lan': ['192.168.1.20'] })
    const t = aiTestApp({ resolve: net.resolve, fetch: net.fetch })
    const a = await createTenant(t)
    for (const base_url of ['http://192.168.1.20:11434', 'http://10.0.0.7:8000', 'http://0xc0a80114:11434', 'http://[fd12::7]/', 'http://100.64.0.1/']) {
      const res = await setProvider(t, a.userHeaders, base_url)
      expect(res.status).toBe(422)
      expect(res.body.error).toMatchObject({ code: 'unsafe_base_url', param: 'base_url' })
      expect(res.body.error.message).toContain('private network')
    }
    expect((await setProvider(t, a.userHeaders, 'http://ollama.lan:11434')).status).toBe(200) // a name is judged when called
    const test_ = await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })
    expect(test_.body).toMatchObject({ ok: false, error: 'ollama.lan resolves to an address this server may not call' })
    expect(net.calls).toHaveLength(0)

    const open = network({ 'ollama.lan': ['192.168.1.20'] })
    const allowing = aiTestApp({ outbound: { allowPrivate: true }, resolve: open.resolve, fetch: open.fetch })
    const b = await createTenant(allowing)
    expect((await setProvider(allowing, b.userHeaders, 'http://192.168.1.20:11434')).status).toBe(200)
    expect((await allowing.request('POST', '/v1/ai/test', { headers: b.userHeaders })).body.ok).toBe(true)
    // still never this server
    expect((await setProvider(allowing, b.userHeaders, 'http://127.0.0.1:11434')).status).toBe(422)
  })

  test('a name resolving to loopback or metadata, in any family, is refused before any connection', async () => {
    const net = network({
      'a.example.com': ['127.0.0.1'],
      'b.example.com': ['169.254.169.254'],
      'c.example.com': ['::ffff:169.254.169.254'],
      'd.example.com': ['93.184.216.34', '::1'],
    })
    const t = aiTestApp({ outbound: { allowPrivate: true }, resolve: net.resolve, fetch: net.fetch })
    const a = await createTenant(t, { role: 'admin' }) // even the operator's client
    for (const name of ['a.example.com', 'b.example.com', 'c.example.com', 'd.example.com']) {
      expect((await setProvider(t, a.userHeaders, `http://${name}:11434`)).status).toBe(200)
      const res = await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })
      expect(res.body).toMatchObject({ ok: false, error: `${name} resolves to an address this server may not call` })
    }
    expect(net.calls).toHaveLength(0)
    const usage = await t.request('GET', '/v1/ai/usage', { headers: a.userHeaders })
    expect(usage.body.items.map((u: any) => u.status)).toEqual(['refused', 'refused', 'refused', 'refused'])
    // the log says which address and why, for the operator
    expect(t.logs.join('\n')).toContain('resolved: metadata')
  })
})

describe('what a call can learn', () => {
  test('the remote answer is never echoed: a status, not the body', async () => {
    const page = '<html>internal admin console: SECRET-TOKEN-123</html>'
    const net = network({ 'llm.example.com': ['93.184.216.34'] }, () => new Response(page, { status: 404 }))
    const t = aiTestApp({ resolve: net.resolve, fetch: net.fetch })
    const a = await createTenant(t)
    await setProvider(t, a.userHeaders, 'http://llm.example.com')
    const res = await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })
    expect(res.body).toMatchObject({ ok: false, error: 'the provider answered HTTP 404' })
    const usage = await t.request('GET', '/v1/ai/usage', { headers: a.userHeaders })
    for (const text of [res.text, usage.text]) expect(text).not.toContain('SECRET-TOKEN')
  })

  test('a refused connection and a timeout read the same', async () => {
    const refused = network({ 'llm.example.com': ['93.184.216.34'] }, () => {
      throw Object.assign(new TypeError('ECONNREFUSED: Unable to connect'), { code: 'ECONNREFUSED' })
    })
    const late = network({ 'llm.example.com': ['93.184.216.34'] })
    late.fetch = ((_: unknown, init?: RequestInit) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)))) as typeof fetch
    const errors: string[] = []
    for (const net of [refused, late]) {
      const t = aiTestApp({ resolve: net.resolve, fetch: net.fetch })
      const a = await createTenant(t)
      await setProvider(t, a.userHeaders, 'http://llm.example.com:11434')
      errors.push((await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })).body.error)
    }
    expect(errors[0]).toBe('could not reach the provider (the connection failed or no answer came within 200 ms)')
    expect(errors[1]).toBe(errors[0]!)
  })

  test('the connection goes to the address that was checked (DNS is asked once; https keeps the name for TLS)', async () => {
    let answers = 0
    const net = network()
    // a rebinding resolver: a public address first, loopback afterwards
    const resolve: Resolver = async (name) => {
      net.lookups.push(name)
      return answers++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']
    }
    const t = aiTestApp({ resolve, fetch: net.fetch })
    const a = await createTenant(t)
    await setProvider(t, a.userHeaders, 'https://llm.example.com:8443/ollama')
    expect((await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })).body.ok).toBe(true)
    expect(net.lookups).toEqual(['llm.example.com'])
    expect(net.calls).toEqual([{ url: 'https://93.184.216.34:8443/ollama/api/chat', host: 'llm.example.com:8443', serverName: 'llm.example.com' }])
    // the next call resolves again, and this time the answer is refused
    expect((await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })).body.ok).toBe(false)
    expect(net.calls).toHaveLength(1)
  })
})
