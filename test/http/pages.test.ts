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

  test('/docs/errors lists every error code with an anchor', async () => {
    const res = await testApp().request('GET', '/docs/errors')
    for (const code of Object.keys(ERROR_CODES)) expect(res.text).toContain(`id="${code}"`)
  })
})
