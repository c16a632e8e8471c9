import { readFileSync, readdirSync } from 'node:fs'
import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { createKey, createTenant } from '../../helpers/fixtures'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { EXPOSITION_CONTENT_TYPE } from '../../../src/modules/observability/observability.exposition'

const TOKEN = 'scrape-token-0123456789abcdef0123456789abcdef'
/** afterResponse hooks run on the next turn of the event loop, after the answer is out */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

async function world(t: TestApp) {
  const operator = await createTenant(t, { role: 'admin' })
  const a = await tenantWithDevices(t, 2)
  const b = await tenantWithDevices(t, 1)
  for (const [tenant, i] of [
    [a, 0],
    [b, 1],
  ] as const) {
    const r = await t.request('POST', '/v1/metrics/batch', {
      headers: tenant.keyHeaders,
      body: { device_id: tenant.deviceId, hardware: hardwareSample(i), network: networkSample(i) },
    })
    expect(r.status).toBe(201)
  }
  return { operator, a, b }
}

const scrape = (t: TestApp, headers: Record<string, string>) => t.request('GET', '/metrics', { headers })

describe('GET /metrics', () => {
  test('the operator sees the service and every device, named and scaled in base units', async () => {
    const t = testApp({ config: { metricsToken: TOKEN } })
    const { operator, a, b } = await world(t)
    expect((await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?limit=1`, { headers: a.userHeaders })).status).toBe(200)
    await nextTurn()
    const r = await scrape(t, operator.userHeaders)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe(EXPOSITION_CONTENT_TYPE)
    const text = r.text
    const labels = `{device="${a.deviceId}",hostname="h0",client="${a.clientId}"}`
    expect(text).toContain(`vigil_device_cpu_usage_ratio${labels} 0.2\n`)
    expect(text).toContain(`vigil_device_memory_total_bytes${labels} ${7.6 * 1024 ** 3}\n`)
    expect(text).toContain(`vigil_device_network_transmit_bytes_total${labels} 1000000\n`)
    expect(text).toContain(`vigil_device_latency_average_seconds${labels} 0.0123\n`)
    expect(text).toContain(`vigil_device_reporting${labels} 1\n`)
    expect(text).toContain(`vigil_device_last_sample_timestamp_seconds${labels} ${t.clock.now() / 1000}\n`)
    // a's second device has sent nothing: it is listed, not reporting, without values
    expect(text).toContain(`vigil_device_reporting{device="${a.deviceIds[1]}",hostname="h1",client="${a.clientId}"} 0\n`)
    expect(text).not.toContain(`vigil_device_cpu_usage_ratio{device="${a.deviceIds[1]}"`)
    expect(text).toContain(`client="${b.clientId}"`)
    // the service itself
    expect(text).toMatch(/^vigil_build_info\{version="[^"]+",bun_version="[^"]+"\} 1$/m)
    expect(text).toContain('vigil_ingest_samples_total{kind="hardware"} 2\n')
    expect(text).toContain('vigil_http_requests_total{method="POST",route="/v1/metrics/batch",status="201"} 2\n')
    expect(text).toContain('vigil_http_request_duration_seconds_count{method="POST",route="/v1/metrics/batch"} 2\n')
    // the route pattern, never the raw path
    expect(text).toContain('vigil_http_requests_total{method="GET",route="/v1/metrics/hardware/:device_id",status="200"} 1\n')
    expect(text).not.toContain(`${a.deviceId}",status=`)
    expect(text).toMatch(/^vigil_database_size_bytes \d+$/m)
    expect(text).toMatch(/^vigil_database_wal_size_bytes \d+$/m)
    // the process's descriptors and their limit, as /proc has them
    const open = Number(/^process_open_fds (\d+)$/m.exec(text)?.[1])
    const max = Number(/^process_max_fds (\d+)$/m.exec(text)?.[1])
    expect(open).toBeGreaterThan(2)
    expect(Math.abs(open - readdirSync('/proc/self/fd').length)).toBeLessThan(20)
    expect(max).toBe(Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))![1]))
  })

  test('the metrics token sees everything and takes no share of any rate limit', async () => {
    const t = testApp({ config: { metricsToken: TOKEN, rateLimits: { free: 60, pro: 600, enterprise: 6000, anonymous: 2 } } })
    const { a, b } = await world(t)
    for (let i = 0; i < 5; i++) {
      const r = await scrape(t, { authorization: `Bearer ${TOKEN}` })
      expect(r.status).toBe(200)
      expect(r.headers.get('x-ratelimit-limit')).toBeNull()
      expect(r.text).toContain(a.clientId)
      expect(r.text).toContain(b.clientId)
      expect(r.text).toContain('vigil_build_info')
    }
    // a wrong token is an anonymous caller: refused, and limited by its address
    const wrong = await scrape(t, { authorization: `Bearer ${TOKEN.slice(0, -1)}x` })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('x-ratelimit-limit')).toBe('2')
    // the token opens nothing else
    expect((await t.request('GET', '/v1/clients/me/devices', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(401)
  })

  test('a tenant key with metrics:read sees its own devices only, and none of the service', async () => {
    const t = testApp()
    const { a, b } = await world(t)
    const key = createKey(t, a.clientId, { scopes: ['metrics:read'] })
    const r = await scrape(t, key.headers)
    expect(r.status).toBe(200)
    expect(r.text).toContain(`vigil_device_cpu_usage_ratio{device="${a.deviceId}",hostname="h0",client="${a.clientId}"} 0.2`)
    expect(r.text).not.toContain(b.clientId)
    expect(r.text).not.toContain(b.deviceId)
    expect(r.text).not.toContain('vigil_http_requests_total')
    expect(r.text).not.toContain('vigil_build_info')
    expect(r.text).not.toContain('process_open_fds')
    // as a bearer token too
    expect((await scrape(t, { authorization: `Bearer ${key.key}` })).status).toBe(200)
  })

  test("everyone else is refused: no credential, a bad one, a key without metrics:read, a tenant's access token, the token when none is set", async () => {
    const t = testApp()
    const { a } = await world(t)
    const cases: [Record<string, string>, number, string][] = [
      [{}, 401, 'unauthorized'],
      [{ authorization: 'Bearer nonsense' }, 401, 'unauthorized'],
      [{ 'x-api-key': 'vk_nonsense' }, 401, 'unauthorized'],
      [a.keyHeaders, 403, 'insufficient_scope'],
      [a.userHeaders, 403, 'forbidden'],
      [{ authorization: `Bearer ${TOKEN}` }, 401, 'unauthorized'],
    ]
    for (const [headers, status, code] of cases) {
      const r = await scrape(t, headers)
      expect({ headers, status: r.status, code: r.body?.error?.code }).toEqual({ headers, status, code })
    }
  })

  test('rate-limit refusals are counted by bucket', async () => {
    const t = testApp({ config: { rateLimits: { free: 60, pro: 600, enterprise: 6000, anonymous: 1 } } })
    const operator = await createTenant(t, { role: 'admin' })
    await t.request('GET', '/health')
    expect((await t.request('GET', '/health')).status).toBe(429)
    await nextTurn()
    const r = await scrape(t, operator.userHeaders)
    expect(r.text).toContain('vigil_rate_limit_rejections_total{bucket="anonymous"} 1\n')
    expect(r.text).toContain('vigil_rate_limit_rejections_total{bucket="client"} 0\n')
    expect(r.text).toContain('vigil_http_requests_total{method="GET",route="/health",status="200"} 1\n')
  })

  test('a device silent for more than 15 minutes is not reporting and its old values are left out', async () => {
    const t = testApp()
    const { a } = await world(t)
    t.clock.advance(16 * 60_000)
    const operator = await createTenant(t, { role: 'admin' }) // the first one's access token has expired
    const r = await scrape(t, operator.userHeaders)
    const labels = `{device="${a.deviceId}",hostname="h0",client="${a.clientId}"}`
    expect(r.text).toContain(`vigil_device_reporting${labels} 0\n`)
    expect(r.text).toContain(`vigil_device_last_sample_timestamp_seconds${labels}`)
    expect(r.text).not.toContain(`vigil_device_cpu_usage_ratio${labels}`)
  })

  test('job runs are counted when the scheduler or a trigger runs them', async () => {
    const t = testApp()
    const operator = await createTenant(t, { role: 'admin' })
    await t.jobs.find((j) => j.name === 'metrics.rollup')!.run()
    const r = await scrape(t, operator.userHeaders)
    expect(r.text).toContain('vigil_job_runs_total{job="metrics.rollup",result="success"} 1\n')
    expect(r.text).toContain('vigil_job_duration_seconds_count{job="metrics.rollup"} 1\n')
  })
})
