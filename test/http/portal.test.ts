import { describe, expect, test } from 'bun:test'
import { gunzipSync } from 'node:zlib'
import { brotliDecompressSync } from 'node:zlib'
import { testApp } from '../helpers/app'
import { PORTAL_CSP, pickEncoding } from '../../src/http/portal'

const t = testApp()
const get = (path: string, headers: Record<string, string> = {}) => t.handle(new Request(`http://localhost${path}`, { headers }))

/** The files the shell loads, from its HTML. */
async function shellAssets(): Promise<string[]> {
  const html = await (await get('/dashboard')).text()
  return [...html.matchAll(/(?:src|href)="(\/app\/[^"]+)"/g)].map((m) => m[1]!)
}

describe('the portal shell', () => {
  test('every portal URL answers the shell, never cached, with the strict policy', async () => {
    const paths = [
      '/dashboard',
      '/devices/new',
      '/devices/dev_123',
      '/recommendations',
      '/alerts',
      '/alerts/alr_1/history',
      '/settings/keys',
      '/settings/members',
      '/settings/billing',
      '/settings/ai',
      '/settings/account',
      '/pricing',
      '/admin',
      '/signin',
      '/signup',
      '/invite/vit_abc',
    ]
    for (const path of paths) {
      const res = await get(path)
      expect({ path, status: res.status }).toEqual({ path, status: 200 })
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('content-security-policy')).toBe(PORTAL_CSP)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('same-origin')
      expect(await res.text()).toContain('<div id="app"></div>')
    }
  }, 60_000) // the first shell request bundles web/src (from source)

  test('the policy is the contract’s, and the shell needs nothing it forbids', async () => {
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'self'",
    ]) {
      expect(PORTAL_CSP).toContain(directive)
    }
    expect(PORTAL_CSP).not.toContain('unsafe')
    const html = await (await get('/signin')).text()
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/) // no inline script
    expect(html).not.toMatch(/<style/)
    expect(html).not.toMatch(/\sstyle=/)
    expect(html).not.toMatch(/\son[a-z]+=/) // no inline handlers
  })

  test('an unknown page gets the shell with 404 (the app shows its not-found page); the API keeps its JSON 404', async () => {
    const page = await get('/no-such-page/at/all')
    expect(page.status).toBe(404)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(await page.text()).toContain('<div id="app"></div>')
    for (const path of ['/v1/nothing-here', '/v1', '/app/missing-abc.js', '/docs/nothing', '/health/x']) {
      const res = await t.request('GET', path)
      expect({ path, status: res.status }).toEqual({ path, status: 404 })
      expect(res.headers.get('content-type')).not.toContain('text/html')
    }
    expect((await t.request('GET', '/v1/nothing-here')).body.error.code).toBe('not_found')
  })

  test('the landing page, the docs and the OpenAPI document stay where they were, and the catch-all is not an operation', async () => {
    expect((await t.request('GET', '/')).text).toContain('<h1>Vigil</h1>')
    expect((await t.request('GET', '/docs')).status).toBe(200)
    expect((await t.request('GET', '/docs/errors')).status).toBe(200)
    const doc = await t.request('GET', '/openapi.json')
    expect(doc.status).toBe(200)
    expect(Object.keys(doc.body.paths).filter((p) => p.includes('*'))).toEqual([])
  })

  test('the landing page leads to the portal', async () => {
    const page = (await t.request('GET', '/')).text
    expect(page).toContain('href="/signin"')
    expect(page).toContain('href="/dashboard"')
  })
})

describe('the portal files under /app/', () => {
  test('the shell loads a script and a stylesheet, hashed, immutable, with their types', async () => {
    const assets = await shellAssets()
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true)
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true)
    for (const path of assets) {
      expect(path).toMatch(/^\/app\/[\w-]+-[a-z0-9]{8}\.(js|css)$/)
      const res = await get(path)
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(res.headers.get('content-type')).toBe(path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('content-encoding')).toBeNull()
    }
  })

  test('brotli or gzip as the client accepts, the same bytes once decoded', async () => {
    const [script] = (await shellAssets()).filter((a) => a.endsWith('.js'))
    const plain = new Uint8Array(await (await get(script!)).arrayBuffer())
    const br = await get(script!, { 'accept-encoding': 'gzip, deflate, br' })
    expect(br.headers.get('content-encoding')).toBe('br')
    expect(br.headers.get('vary')).toBe('accept-encoding')
    const brBytes = new Uint8Array(await br.arrayBuffer())
    expect(brBytes.length).toBeLessThan(plain.length)
    expect(new Uint8Array(brotliDecompressSync(brBytes))).toEqual(plain)
    const gz = await get(script!, { 'accept-encoding': 'gzip' })
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    expect(new Uint8Array(gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toEqual(plain)
    const refused = await get(script!, { 'accept-encoding': 'br;q=0, gzip' })
    expect(refused.headers.get('content-encoding')).toBe('gzip')
  })

  test('a file that is not in the bundle is a plain 404, not cached', async () => {
    const res = await get('/app/main-00000000.js')
    expect(res.status).toBe(404)
    expect(res.headers.get('cache-control')).toBe('no-store')
  })

  test('the files are not charged to the caller’s rate limit (one page load fetches several)', async () => {
    const [script] = await shellAssets()
    const before = t.requestsAdmitted()
    await get(script!)
    expect(t.requestsAdmitted()).toBe(before)
  })
})

describe('pickEncoding', () => {
  const both = { gzip: new Blob(['g']), br: new Blob(['b']) }
  const cases: [string | null, typeof both | { gzip: Blob | null; br: Blob | null }, string | null][] = [
    [null, both, null],
    ['', both, null],
    ['gzip', both, 'gzip'],
    ['br', both, 'br'],
    ['gzip, br', both, 'br'],
    ['BR;q=1.0, GZIP', both, 'br'],
    ['br;q=0, gzip', both, 'gzip'],
    ['br;q=0, gzip;q=0', both, null],
    ['identity', both, null],
    ['br', { gzip: both.gzip, br: null }, null],
    ['br, gzip', { gzip: both.gzip, br: null }, 'gzip'],
    ['gzip', { gzip: null, br: null }, null],
  ]
  for (const [header, asset, expected] of cases) {
    test(`${JSON.stringify(header)} → ${expected}`, () => expect(pickEncoding(header, asset)).toBe(expected as 'br' | 'gzip' | null))
  }
})
