import { describe, expect, test } from 'bun:test'
import { testApp } from '../helpers/app'
import { ERROR_CODES } from '../../src/http/errors'

describe('public pages', () => {
  test('GET / is the HTML landing page', async () => {
    const res = await testApp().request('GET', '/')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(res.text).toContain('<h1>Vigil</h1>')
  })

  test('/docs loads its assets from this server only', async () => {
    const t = testApp()
    const page = await t.request('GET', '/docs')
    expect(page.status).toBe(200)
    const srcs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(srcs.length).toBeGreaterThan(0)
    for (const src of srcs) {
      expect(src.startsWith('/')).toBe(true)
      expect((await t.request('GET', src)).status).toBe(200)
    }
  })

  test('/openapi.json is an OpenAPI 3 document of the routes', async () => {
    const res = await testApp().request('GET', '/openapi.json')
    expect(res.status).toBe(200)
    expect(res.body.openapi).toMatch(/^3\./)
    expect(res.body.info.title).toBe('Vigil API')
    expect(res.body.paths['/health']).toBeDefined()
  })

  test('every request body is documented as JSON with its schema', async () => {
    const res = await testApp().request('GET', '/openapi.json')
    const bodies = Object.values(res.body.paths as Record<string, Record<string, any>>)
      .flatMap((ops) => Object.values(ops))
      .filter((op) => op.requestBody)
    expect(bodies.length).toBeGreaterThan(5)
    for (const op of bodies) expect(op.requestBody.content['application/json'].schema).toBeDefined()
  })

  test('every page and every API answer carries a CSP suited to it, X-Frame-Options DENY and nosniff', async () => {
    const t = testApp()
    const csp: Record<string, RegExp> = {
      '/': /^default-src 'none'; style-src 'self';/,
      '/docs/errors': /^default-src 'none'; style-src 'self';/,
      '/docs': /^default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';/,
      '/health': /^default-src 'none'; frame-ancestors 'none'$/,
      '/openapi.json': /^default-src 'none'; frame-ancestors 'none'$/,
      '/v1/auth/me': /^default-src 'none'; frame-ancestors 'none'$/,
      '/v1/no-such-route': /^default-src 'none'; frame-ancestors 'none'$/,
    }
    for (const [path, policy] of Object.entries(csp)) {
      const res = await t.request('GET', path)
      expect(res.headers.get('content-security-policy')).toMatch(policy)
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  test('/docs has no inline script or style and names no other origin', async () => {
    const page = await testApp().request('GET', '/docs')
    expect(page.text).not.toMatch(/<script>|<style|style="|https?:\/\//)
    expect(page.text).toContain('/docs/assets/docs.js')
  })

  test('/docs/errors lists every error code with an anchor', async () => {
    const res = await testApp().request('GET', '/docs/errors')
    for (const code of Object.keys(ERROR_CODES)) expect(res.text).toContain(`id="${code}"`)
  })
})
