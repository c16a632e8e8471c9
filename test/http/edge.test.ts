import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startBinary, tempDir } from '../helpers/binary'

/**
 * The HTTP edge of dist/vigil over a real socket, run as the README advises behind a proxy
 * (VIGIL_HOST=127.0.0.1 VIGIL_TRUST_PROXY=true): this test is the proxy, appending the client's
 * address to X-Forwarded-For as nginx's $proxy_add_x_forwarded_for does.
 */
let server: Awaited<ReturnType<typeof startBinary>>
beforeAll(async () => {
  const cwd = tempDir('vigil-edge-')
  server = await startBinary({
    cwd,
    env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_TRUST_PROXY: 'true', VIGIL_RATE_LIMIT_DELAY_MS: '0', VIGIL_MODE: 'own', VIGIL_SIGNUP: 'open' },
  })
}, 60_000)
afterAll(async () => {
  server.proc.kill()
  await server.proc.exited
})

/** A first hop the client made up, different every time, then the address the proxy saw. */
const spoofed = (i: number, client: string) => ({ 'x-forwarded-for': `198.51.100.${i % 250}, 10.${i % 250}.0.1, ${client}` })

describe('per-address limits behind a proxy that appends to X-Forwarded-For', () => {
  test('150 anonymous requests with a varying first hop share one bucket and get 429s', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 150; i++) statuses.push((await fetch(`${server.base}/v1/billing/plans`, { headers: spoofed(i, '203.0.113.7') })).status)
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(61)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(89)
    // another client behind the same proxy has its own bucket
    expect((await fetch(`${server.base}/v1/billing/plans`, { headers: spoofed(0, '203.0.113.70') })).status).toBe(200)
  })

  test('30 failed logins with a varying first hop and email are throttled by address', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${server.base}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...spoofed(i, '203.0.113.8') },
        body: JSON.stringify({ email: `guess${i}@example.test`, password: 'not the password' }),
      })
      statuses.push(res.status)
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true)
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true)
  }, 60_000)
})

describe('request bodies must be sent as application/json', () => {
  // a Blob without a type is sent with no Content-Type at all, as a cross-site fetch(…, { mode: 'no-cors' }) can
  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${server.base}${path}`, { method: 'POST', headers: { ...headers, 'x-forwarded-for': '203.0.113.20' }, body: new Blob([body]) })

  test('the cross-site "simple" types are refused with 415 before anything happens', async () => {
    const account = JSON.stringify({ email: 'csrf@example.test', password: 'correct horse battery' })
    const cases: [string, string, Record<string, string>][] = [
      ['/v1/auth/register', account, {}],
      ['/v1/auth/login', account, {}],
      ['/v1/enrolments/redeem', JSON.stringify({ token: 'vet_x', hostname: 'h' }), {}],
      ['/v1/auth/register', account, { 'content-type': 'text/plain;charset=UTF-8' }],
      ['/v1/auth/register', 'email=csrf%40example.test&password=x', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['/v1/auth/login', account, { 'content-type': 'multipart/form-data; boundary=x' }],
      ['/v1/enrolments/redeem', JSON.stringify({ token: 'vet_x', hostname: 'h' }), { 'content-type': 'text/plain' }],
    ]
    for (const [path, body, headers] of cases) {
      const res = await post(path, body, headers)
      expect({ path, status: res.status }).toEqual({ path, status: 415 })
      expect(((await res.json()) as any).error.code).toBe('unsupported_media_type')
    }
    // the same body as JSON gets as far as the sign-up rules (which, behind a proxy, ask for the setup token)
    const json = await post('/v1/auth/register', account, { 'content-type': 'application/json; charset=utf-8' })
    expect(((await json.json()) as any).error.code).toBe('setup_token_required')
  }, 30_000)
})

describe('security headers on every kind of answer', () => {
  test('pages, the API reference, API answers and errors', async () => {
    const expected: Record<string, string> = {
      '/': "default-src 'none'; style-src 'self'",
      '/docs/errors': "default-src 'none'; style-src 'self'",
      '/docs': "default-src 'none'; script-src 'self'",
      '/signin': "default-src 'self'; script-src 'self'",
      '/health': "default-src 'none'; frame-ancestors 'none'",
      '/openapi.json': "default-src 'none'; frame-ancestors 'none'",
      '/v1/clients/me': "default-src 'none'; frame-ancestors 'none'",
    }
    for (const [path, csp] of Object.entries(expected)) {
      const res = await fetch(`${server.base}${path}`, { headers: { 'x-forwarded-for': '203.0.113.30' } })
      await res.arrayBuffer()
      expect({ path, csp: res.headers.get('content-security-policy')?.startsWith(csp) }).toEqual({ path, csp: true })
      expect({ path, frame: res.headers.get('x-frame-options'), sniff: res.headers.get('x-content-type-options') }).toEqual({
        path,
        frame: 'DENY',
        sniff: 'nosniff',
      })
    }
    // the ingest path, served by Bun's router, too
    const ingest = await fetch(`${server.base}/v1/metrics/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'vk_nope', 'x-forwarded-for': '203.0.113.30' },
      body: '{}',
    })
    expect(ingest.status).toBe(401)
    expect(ingest.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'")
    expect(ingest.headers.get('x-frame-options')).toBe('DENY')
  })
})
