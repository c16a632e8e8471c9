import { describe, expect, test } from 'bun:test'
import { testApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'
import { operationsOf } from '../helpers/contract'

/** The routes anyone may call without a credential. */
const PUBLIC = [
  'GET /health',
  'GET /v1/billing/plans',
  'GET /v1/ai/providers',
  'POST /v1/auth/register',
  'POST /v1/auth/login',
  'POST /v1/auth/refresh',
  'POST /v1/auth/logout',
  // the browser session: the credential is the HttpOnly cookie, which the document does not model as a scheme
  'POST /v1/auth/session',
  'POST /v1/auth/session/refresh',
  'DELETE /v1/auth/session',
  'POST /v1/billing/webhook',
  'POST /v1/enrolments/redeem',
  // heartbeat URLs: the secret token in the path is the credential
  'GET /hb/{token}',
  'POST /hb/{token}',
  'GET /hb/{token}/fail',
  'POST /hb/{token}/fail',
  // public status pages: for anyone, without a session
  'GET /status/{slug}',
  'GET /status/{slug}.json',
  'GET /status/{slug}/badge/{item}/{file}',
]

async function documentOf(t = testApp()) {
  return (await t.request('GET', '/openapi.json')).body
}

describe('/openapi.json says what can go wrong', () => {
  test('every operation but the public ones declares its credential, and answers 401 and 403 are documented for it', async () => {
    const ops = operationsOf(await documentOf())
    const open = ops.filter((o) => !o.op.security).map((o) => `${o.method} ${o.path}`)
    expect(open.sort()).toEqual([...PUBLIC].sort())
    for (const o of ops.filter((o) => o.op.security)) {
      expect({ op: `${o.method} ${o.path}`, has: ['401', '403'].every((s) => s in o.op.responses) }).toEqual({ op: `${o.method} ${o.path}`, has: true })
    }
  })

  test('every operation documents a success, 429 and 500; 422 wherever it takes parameters or a body; 404 for path parameters', async () => {
    for (const o of operationsOf(await documentOf())) {
      const label = `${o.method} ${o.path}`
      const statuses = Object.keys(o.op.responses)
      expect({ label, success: statuses.some((s) => s.startsWith('2')) }).toEqual({ label, success: true })
      expect({ label, has: ['429', '500'].every((s) => statuses.includes(s)) }).toEqual({ label, has: true })
      if (o.op.parameters?.length || o.op.requestBody) expect({ label, has422: statuses.includes('422') }).toEqual({ label, has422: true })
      if (o.path.includes('{')) expect({ label, has404: statuses.includes('404') }).toEqual({ label, has404: true })
    }
  })

  test('every operation that reads a body documents 415 for one not sent as application/json; /health its setup_token_required', async () => {
    const doc = await documentOf()
    for (const o of operationsOf(doc).filter((o) => ['post', 'put', 'patch', 'delete'].includes(o.method.toLowerCase()))) {
      expect({ op: `${o.method} ${o.path}`, has415: '415' in o.op.responses }).toEqual({ op: `${o.method} ${o.path}`, has415: true })
    }
    expect(doc.paths['/v1/auth/register'].post.responses['415'].description).toContain('application/json')
    const health = doc.paths['/health'].get.responses['200'].content['application/json'].schema
    expect(health.required).toContain('setup_token_required')
    expect(health.properties.setup_token_required.type).toBe('boolean')
  })

  test('deletes and logout document their 204; error responses refer to the two error shapes', async () => {
    const doc = await documentOf()
    for (const o of operationsOf(doc).filter((o) => o.method === 'DELETE' || o.path === '/v1/auth/logout')) expect(Object.keys(o.op.responses)).toContain('204')
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['ErrorBody', 'HTTPValidationError']))
    // /health answers 503 with its own body (the database state), by design
    const errors = operationsOf(doc)
      .filter((o) => o.path !== '/health')
      .flatMap((o) =>
        Object.entries<any>(o.op.responses)
          .filter(([s]) => Number(s) >= 400)
          .map(([, r]) => JSON.stringify(r.content)),
      )
    for (const content of errors) expect(content).toMatch(/#\/components\/schemas\/(ErrorBody|HTTPValidationError)/)
  })

  test('every operation has a unique operationId that is a valid identifier, whichever router serves it', async () => {
    const ops = operationsOf(await documentOf())
    const ids = ops.map((o) => (o.op as { operationId?: string }).operationId ?? '')
    for (const id of ids) expect(id).toMatch(/^[a-z]+[A-Za-z0-9]*$/)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toContain('deleteV1AuthApiKeysByKeyId')
    expect(ids).toContain('postV1MetricsBatch')
  })

  test('no internal extension key reaches the document', async () => {
    expect(JSON.stringify(await documentOf())).not.toContain('x-vigil-')
  })

  test('the document is the same whichever routes were served before it was first asked for', async () => {
    const before = JSON.stringify(await documentOf())
    const t = testApp()
    const a = await createTenant(t)
    for (const o of operationsOf(JSON.parse(before)).filter((o) => o.method === 'GET' && !o.path.includes('{'))) {
      await t.request('GET', o.path, { headers: a.userHeaders })
    }
    expect(JSON.stringify(await documentOf(t))).toBe(before)
  })
})
