/**
 * The in-process ingest world the in-process benches share: the whole app on a database file
 * (no sockets), 200 devices (20 tenants × 10 keys), each posting one body per round, all of a
 * round at once so that they share group commits as under load.
 */
import type { DbHandle } from '../../src/db/connection'
import { systemClock } from '../../src/lib/clock'
import type { RateLimiter } from '../../src/http/rate-limiter'
import { testApp } from '../../test/helpers/app'
import { createKey, createTenant } from '../../test/helpers/fixtures'

export async function inprocIngestWorld(db: DbHandle, body: string, opts: { limiter?: RateLimiter; label?: string } = {}) {
  const t = testApp({
    db,
    clock: systemClock,
    ...(opts.limiter ? { limiter: opts.limiter } : {}),
    config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never,
  })
  const devices: Record<string, string>[] = []
  for (let i = 0; i < 20; i++) {
    const tenant = await createTenant(t, { maxDevices: 10 })
    for (let k = 0; k < 10; k++) {
      const key = k === 0 ? tenant.apiKey : createKey(t, tenant.clientId).key
      const reg = await t.request('POST', '/v1/clients/me/devices', {
        headers: { 'x-api-key': key },
        body: { hostname: `h${i}-${k}`, os: 'linux', os_version: '6', arch: 'x86_64', fingerprint: `fp${i}-${k}` },
      })
      if (reg.status !== 201) throw new Error(`device registration: ${reg.status} ${reg.text}`)
      devices.push({
        'x-api-key': key,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'x-device-id': reg.body.device_id,
      })
    }
  }
  const prefix = opts.label ? `${opts.label}: ` : ''
  /** every device posts the body once, all at once */
  const round = async () => {
    const answers = await Promise.all(devices.map((headers) => t.handle(new Request('http://localhost/v1/metrics/batch', { method: 'POST', headers, body }))))
    for (const a of answers) if (a.status !== 201) throw new Error(`${prefix}status ${a.status} ${await a.text()}`)
    await Promise.all(answers.map((a) => a.arrayBuffer()))
  }
  return { t, devices: devices.length, round }
}
