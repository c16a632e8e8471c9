import { describe, expect, test } from 'bun:test'
import { t as tt } from 'elysia'
import { testApp, type TestApp } from '../helpers/app'
import { createTenant, createKey, addMember } from '../helpers/fixtures'
import { AppError } from '../../src/http/errors'
import { queryInput } from '../../src/http/input'
import { Type } from '@sinclair/typebox'

const probeQuery = queryInput(tt.Object({ limit: tt.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }))

/** A throwaway app with probe routes that exercise every part of the gateway. */
function probeApp(config: Parameters<typeof testApp>[0] = {}) {
  const t = testApp(config)
  t.app
    .post('/probe/body', ({ body }) => body, {
      body: tt.Object({
        name: tt.String({ minLength: 2 }),
        count: tt.Optional(tt.Integer({ minimum: 1, maximum: 10 })),
        tags: tt.Optional(tt.Array(tt.String())),
      }),
    })
    .get('/probe/query/:id', ({ params, request }) => ({ params, query: probeQuery.read(request) }), {
      params: tt.Object({ id: tt.String({ pattern: '^[0-9]+$' }) }),
    })
    .get('/probe/owner', ({ user }) => ({ user: user.userId }), { user: { roles: ['owner'] } })
    .get('/probe/operator', () => ({ ok: true }), { user: { operator: true } })
    .post('/probe/key', ({ key }) => ({ key: key.keyId }), { key: 'metrics:write', body: tt.Object({ v: tt.Number() }) })
    .get('/probe/boom', () => {
      throw new Error('secret internals at /srv/app.ts:42')
    })
    .get('/probe/app-error', () => {
      throw new AppError('invalid_parameter', 'plan must be one of free, pro', 'plan')
    })
  return t
}

const expectErrorBody = (body: any, code: string) => {
  expect(Object.keys(body)).toEqual(['error'])
  expect(body.error.code).toBe(code)
  expect(typeof body.error.message).toBe('string')
  expect(typeof body.error.param).toBe('string')
  expect(body.error.doc_url).toBe(`http://localhost:8080/docs/errors#${code}`)
}

describe('422 validation shape', () => {
  test('body: every failing field, loc from "body", FastAPI-style types', async () => {
    const t = probeApp()
    const res = await t.request('POST', '/probe/body', { body: { name: 'x', count: 0, tags: ['a', 3] } })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      { loc: ['body', 'name'], msg: expect.any(String), type: 'string_too_short' },
      { loc: ['body', 'count'], msg: expect.any(String), type: 'greater_than_equal' },
      { loc: ['body', 'tags', 1], msg: expect.any(String), type: 'string_type' },
    ])
  })

  test('body: a missing required field is "missing" at its own loc', async () => {
    const res = await probeApp().request('POST', '/probe/body', { body: {} })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }])
  })

  test('malformed JSON', async () => {
    const res = await probeApp().request('POST', '/probe/body', { raw: '{"name": ', headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(422)
    expect(res.body.detail).toHaveLength(1)
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' })
  })

  test('a body that is not sent as application/json is 415, whatever it holds', async () => {
    const t = probeApp()
    for (const type of ['application/x-www-form-urlencoded', 'text/plain;charset=UTF-8', 'multipart/form-data; boundary=x', 'application/merge-patch+json']) {
      const res = await t.request('POST', '/probe/body', { raw: '{"name":"xy"}', headers: { 'content-type': type } })
      expect(res.status).toBe(415)
      expect(res.body.error).toMatchObject({ code: 'unsupported_media_type', param: 'content-type' })
    }
    const untyped = await t.request('POST', '/probe/body', { raw: '{"name":"xy"}' })
    expect(untyped.status).toBe(415)
    expect(untyped.body.error.message).toContain('no Content-Type')
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      expect((await t.request('POST', '/probe/body', { raw: '{"name":"xy"}', headers: { 'content-type': type } })).status).toBe(200)
    }
  })

  test('query and path', async () => {
    const t = probeApp()
    const q = await t.request('GET', '/probe/query/5?limit=1000')
    expect(q.status).toBe(422)
    expect(q.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'less_than_equal' })
    const p = await t.request('GET', '/probe/query/abc')
    expect(p.status).toBe(422)
    expect(p.body.detail[0].loc).toEqual(['path', 'id'])
    const ok = await t.request('GET', '/probe/query/5?limit=10')
    expect(ok.body).toEqual({ params: { id: '5' }, query: { limit: 10 } })
  })
})

describe('error bodies', () => {
  test('404 for an unknown route', async () => {
    const res = await probeApp().request('GET', '/v1/nothing-here')
    expect(res.status).toBe(404)
    expectErrorBody(res.body, 'not_found')
  })

  test('401 without, with a malformed and with a wrong-kind credential', async () => {
    const t = probeApp()
    const tenant = await createTenant(t)
    for (const headers of [{} as Record<string, string>, { authorization: 'Basic abc' }, { authorization: 'Bearer not.a.jwt' }, tenant.keyHeaders]) {
      const res = await t.request('GET', '/probe/owner', { headers })
      expect(res.status).toBe(401)
      expectErrorBody(res.body, 'unauthorized')
    }
    const jwtOnKeyRoute = await t.request('POST', '/probe/key', { headers: tenant.userHeaders, body: { v: 1 } })
    expect(jwtOnKeyRoute.status).toBe(401)
  })

  test('401 comes before 422: an anonymous caller learns nothing of the schema', async () => {
    const res = await probeApp().request('POST', '/probe/key', { body: { wrong: true } })
    expect(res.status).toBe(401)
  })

  test('403 for a role or scope without the right', async () => {
    const t = probeApp()
    const tenant = await createTenant(t)
    const member = await addMember(t, tenant.clientId, 'member')
    const role = await t.request('GET', '/probe/owner', { headers: member.headers })
    expect(role.status).toBe(403)
    expectErrorBody(role.body, 'forbidden')
    const op = await t.request('GET', '/probe/operator', { headers: tenant.userHeaders })
    expect(op.status).toBe(403)
    const key = createKey(t, tenant.clientId, { scopes: ['versions:read'] })
    const scope = await t.request('POST', '/probe/key', { headers: key.headers, body: { v: 1 } })
    expect(scope.status).toBe(403)
    expectErrorBody(scope.body, 'insufficient_scope')
    expect(scope.body.error.param).toBe('metrics:write')
  })

  test('an API key is accepted in x-api-key and as a bearer token', async () => {
    const t = probeApp()
    const tenant = await createTenant(t)
    for (const headers of [{ 'x-api-key': tenant.apiKey }, { authorization: `Bearer ${tenant.apiKey}` }] as Record<string, string>[]) {
      const res = await t.request('POST', '/probe/key', { headers, body: { v: 1 } })
      expect(res.status).toBe(200)
      expect(res.body.key).toBe(tenant.keyId)
    }
  })

  test('413 for a body over the limit, declared or chunked', async () => {
    const t = probeApp({ config: { maxBodyBytes: 1024 } })
    const big = JSON.stringify({ name: 'x'.repeat(2000) })
    const declared = await t.request('POST', '/probe/body', { raw: big, headers: { 'content-type': 'application/json', 'content-length': String(big.length) } })
    expect(declared.status).toBe(413)
    expectErrorBody(declared.body, 'payload_too_large')
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big))
        c.close()
      },
    })
    const res = await t.handle(new Request('http://localhost/probe/body', { method: 'POST', body: stream, headers: { 'content-type': 'application/json' } }))
    expect(res.status).toBe(413)
    expectErrorBody(await res.json(), 'payload_too_large')
  })

  test('500 carries no stack trace, logs one with the request id', async () => {
    const t = probeApp()
    const res = await t.request('GET', '/probe/boom', { headers: { 'x-request-id': 'req-123' } })
    expect(res.status).toBe(500)
    expectErrorBody(res.body, 'internal_error')
    expect(res.text).not.toContain('secret internals')
    expect(res.text).not.toContain('.ts')
    expect(res.body.error.message).toContain('req-123')
    expect(res.headers.get('x-request-id')).toBe('req-123')
    const logged = t.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed')
    expect(logged).toMatchObject({ request_id: 'req-123', level: 'error' })
    expect(logged.stack).toContain('secret internals')
  })

  test('typed errors keep their status, code and param', async () => {
    const res = await probeApp().request('GET', '/probe/app-error')
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'plan' })
  })
})

describe('rate limit', () => {
  const limited = () => probeApp({ config: { rateLimits: { free: 3, pro: 30, enterprise: 300, anonymous: 2 } } })

  test('every response carries the three headers', async () => {
    const t = limited()
    const res = await t.request('GET', '/health')
    expect(res.headers.get('x-ratelimit-limit')).toBe('2')
    expect(res.headers.get('x-ratelimit-remaining')).toBe('1')
    const reset = Number(res.headers.get('x-ratelimit-reset'))
    expect(reset).toBe(Math.ceil((t.clock.now() + 30_000) / 1000))
    const notFound = await t.request('GET', '/nope')
    expect(notFound.headers.get('x-ratelimit-remaining')).toBe('0')
  })

  test('anonymous callers past the limit get 429 with Retry-After; time refills', async () => {
    const t = limited()
    await t.request('GET', '/health')
    await t.request('GET', '/health')
    const res = await t.request('GET', '/health')
    expect(res.status).toBe(429)
    expectErrorBody(res.body, 'rate_limited')
    expect(res.headers.get('retry-after')).toBe('30')
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0')
    t.clock.advance(30_000)
    expect((await t.request('GET', '/health')).status).toBe(200)
  })

  test('credentials have their own bucket sized by the plan tier', async () => {
    const t = limited()
    const free = await createTenant(t)
    const pro = await createTenant(t, { plan: 'b2c_monthly' })
    const res = await t.request('GET', '/probe/owner', { headers: free.userHeaders })
    expect(res.headers.get('x-ratelimit-limit')).toBe('3')
    const proRes = await t.request('POST', '/probe/key', { headers: pro.keyHeaders, body: { v: 1 } })
    expect(proRes.headers.get('x-ratelimit-limit')).toBe('30')
    // The anonymous bucket of the same address is untouched by authenticated calls.
    expect((await t.request('GET', '/health')).headers.get('x-ratelimit-remaining')).toBe('1')
  })

  test('client addresses come from X-Forwarded-For only behind a trusted proxy', async () => {
    const untrusted = limited()
    await untrusted.request('GET', '/health', { headers: { 'x-forwarded-for': '10.0.0.1' } })
    await untrusted.request('GET', '/health', { headers: { 'x-forwarded-for': '10.0.0.2' } })
    expect((await untrusted.request('GET', '/health', { headers: { 'x-forwarded-for': '10.0.0.3' } })).status).toBe(429)
    const trusted = probeApp({ config: { trustProxy: true, rateLimits: { free: 3, pro: 30, enterprise: 300, anonymous: 2 } } })
    for (let i = 0; i < 5; i++) {
      expect((await trusted.request('GET', '/health', { headers: { 'x-forwarded-for': `10.0.0.${i}` } })).status).toBe(200)
    }
  })

  test('behind a proxy that appends, the address is the right-most hop: a made-up first hop changes nothing', async () => {
    const trusted = probeApp({ config: { trustProxy: true, rateLimits: { free: 3, pro: 30, enterprise: 300, anonymous: 2 } } })
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await trusted.request('GET', '/health', { headers: { 'x-forwarded-for': `10.0.0.${i}, 192.168.1.1` } })).status)
    expect(statuses).toEqual([200, 200, 429, 429])
  })
})

describe('request id and CORS', () => {
  test('a request id is made when none (or an unsafe one) is sent', async () => {
    const t = probeApp()
    const a = await t.request('GET', '/health')
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const b = await t.request('GET', '/health', { headers: { 'x-request-id': 'bad id; with spaces' } })
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('no cross-origin access unless configured', async () => {
    const closed = await probeApp().request('GET', '/health', { headers: { origin: 'https://evil.example' } })
    expect(closed.headers.get('access-control-allow-origin')).toBeNull()
    const t: TestApp = probeApp({ config: { corsOrigins: ['https://portal.example'] } })
    const open = await t.request('GET', '/health', { headers: { origin: 'https://portal.example' } })
    expect(open.headers.get('access-control-allow-origin')).toBe('https://portal.example')
    const preflight = await t.request('OPTIONS', '/v1/auth/me', { headers: { origin: 'https://portal.example', 'access-control-request-method': 'GET' } })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-api-key')
    const other = await t.request('GET', '/health', { headers: { origin: 'https://evil.example' } })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
  })
})
