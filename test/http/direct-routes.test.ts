import { afterEach, describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../helpers/app'
import { tenantWithDevices } from '../helpers/metrics'
import { hardwareSample, networkSample } from '../helpers/samples'

/**
 * The ingest endpoints are served by Bun's router (src/http/direct-routes.ts), not Elysia's.
 * The metrics tests cover their behaviour through `handle`; these check that over a real
 * socket the server dispatches the same way, and that the pipeline's cross-cutting parts
 * (headers, CORS, limits, error bodies) are there exactly as on Elysia's routes.
 */
let servers: { stop(force?: boolean): unknown }[] = []
afterEach(() => {
  for (const s of servers) s.stop(true)
  servers = []
})

function listen(t: TestApp): string {
  t.app.listen({ port: 0, hostname: '127.0.0.1' })
  servers.push(t.app.server!)
  return `http://127.0.0.1:${t.app.server!.port}`
}

describe('direct (hot path) routes over a real socket', () => {
  test('201 with the same headers as any route; other methods and paths fall through to Elysia', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const base = listen(t)
    const res = await fetch(`${base}/v1/metrics/batch`, {
      method: 'POST',
      headers: { ...a.keyHeaders, 'content-type': 'application/json', 'x-request-id': 'collector-1' },
      body: JSON.stringify({ hardware: hardwareSample(), network: networkSample() }),
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(res.headers.get('x-request-id')).toBe('collector-1')
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0)
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull()
    expect(res.headers.get('x-ratelimit-reset')).not.toBeNull()
    const body = (await res.json()) as { device_id: string; hardware: { id: number }; network: { id: number } }
    expect(body.device_id).toBe(a.deviceId)
    expect(body.hardware.id).toBe(body.network.id)

    const get = await fetch(`${base}/v1/metrics/batch`, { headers: a.keyHeaders })
    expect(get.status).toBe(404)
    expect(((await get.json()) as { error: { code: string } }).error.code).toBe('not_found')
    // the portal's read of the same module is still Elysia's
    const latest = await fetch(`${base}/v1/metrics/hardware/${a.deviceId}/latest`, { headers: a.userHeaders })
    expect(latest.status).toBe(200)
  })

  test('errors carry the spec bodies and the rate-limit headers', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const base = listen(t)
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${base}/v1/metrics/hardware`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

    const anon = await post({}, '{not json')
    expect(anon.status).toBe(401) // the credential is checked before the body is read
    expect(((await anon.json()) as { error: { code: string } }).error.code).toBe('unauthorized')

    const bad = await post(a.keyHeaders, '{not json')
    expect(bad.status).toBe(422)
    expect(((await bad.json()) as { detail: { loc: string[]; type: string }[] }).detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' })
    expect(bad.headers.get('x-ratelimit-limit')).not.toBeNull()

    const typed = await post(a.keyHeaders, JSON.stringify({ cpu_percent: 'high' }))
    expect(typed.status).toBe(422)
    expect(((await typed.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['body', 'cpu_percent'])

    const xml = await fetch(`${base}/v1/metrics/hardware`, { method: 'POST', headers: { ...a.keyHeaders, 'content-type': 'application/xml' }, body: '<a/>' })
    expect(xml.status).toBe(415)
    expect(((await xml.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type')
    // the collector's own type, with its charset, is JSON; a body with no type at all is not
    const charset = await post({ ...a.keyHeaders, 'content-type': 'application/json; charset=utf-8' }, JSON.stringify({ cpu_percent: 1 }))
    expect(charset.status).toBe(201)
    const untyped = await fetch(`${base}/v1/metrics/hardware`, { method: 'POST', headers: a.keyHeaders, body: new Blob([JSON.stringify({ cpu_percent: 1 })]) })
    expect(untyped.status).toBe(415)
  })

  test('rate limit, body cap and CORS apply on the hot path too', async () => {
    const t = testApp({
      config: { rateLimits: { anonymous: 60, free: 3, pro: 3, enterprise: 3 }, maxBodyBytes: 2048, corsOrigins: ['https://portal.example'] },
    })
    const a = await tenantWithDevices(t)
    const base = listen(t)
    const send = (body: string) =>
      fetch(`${base}/v1/metrics/network`, {
        method: 'POST',
        headers: { ...a.keyHeaders, 'content-type': 'application/json', origin: 'https://portal.example' },
        body,
      })

    // the key's bucket of 3 a minute: one went on registering the device
    const big = await send(JSON.stringify({ hostname: 'x'.repeat(4096) }))
    expect(big.status).toBe(413)
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('payload_too_large')
    expect(big.headers.get('access-control-allow-origin')).toBe('https://portal.example')

    const ok = await send('{}')
    expect(ok.status).toBe(201)
    const limited = await send('{}')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
  })

  test('/openapi.json documents them with their body and answer schemas', async () => {
    const t = testApp()
    const doc = (await t.request('GET', '/openapi.json')).body
    for (const path of ['/v1/metrics/hardware', '/v1/metrics/network', '/v1/metrics/batch']) {
      const op = doc.paths[path].post
      expect(op.security).toEqual([{ apiKey: [] }, { bearer: [] }])
      expect(op.requestBody.content['application/json'].schema.type).toBe('object')
      expect(op.responses['201'].content['application/json'].schema.required).toContain('device_id')
    }
  })
})
