/** In-process CPU cost of one ingest request through the whole app (no sockets): `bun scripts/bench/inproc.ts` */
import { testApp } from '../../test/helpers/app'
import { createTenant } from '../../test/helpers/fixtures'
import { hardwareSample, networkSample } from '../../test/helpers/samples'

const t = testApp({ config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never })
const tenant = await createTenant(t, { maxDevices: 10 })
const reg = await t.request('POST', '/v1/clients/me/devices', {
  headers: tenant.keyHeaders,
  body: { hostname: 'h', os: 'linux', os_version: '6', arch: 'arm64', fingerprint: 'fp' },
})
const body = JSON.stringify({ hardware: hardwareSample(1), network: networkSample(1) })
const headers = { ...tenant.keyHeaders, 'content-type': 'application/json', 'x-device-id': reg.body.device_id }
async function round(n: number) {
  const ps: Promise<Response>[] = []
  for (let i = 0; i < n; i++) ps.push(t.handle(new Request('http://localhost/v1/metrics/batch', { method: 'POST', headers, body })))
  const rs = await Promise.all(ps)
  if (rs.some((r) => r.status !== 201)) throw new Error(`status ${rs.find((r) => r.status !== 201)!.status} ${await rs[0]!.text()}`)
}
for (let i = 0; i < 20; i++) await round(100)
const t0 = performance.now()
const N = 200
for (let i = 0; i < N; i++) await round(100)
const us = ((performance.now() - t0) * 1000) / (N * 100)
console.log(`${us.toFixed(1)} µs per ingest request (${Math.round(1e6 / us)} req/s, one core)`)
