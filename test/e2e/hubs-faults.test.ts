/**
 * Faults under load with two `dist/vigil serve` hubs on one PostgreSQL database
 * (test/helpers/hubs.ts): a hub killed with SIGKILL, and the database unreachable for a while
 * (a TCP proxy between the hubs and the test server, stopped and started again: the shared
 * server itself is never touched).
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { ensureBinary } from '../helpers/binary'
import { accountWithDevice, client, type Hubs, hubsSkipReason, startHubs } from '../helpers/hubs'
import { tcpProxy } from '../helpers/tcp-proxy'

/** true until the lead lifts the refusal in src/cli/serve.ts: the hubs cannot start on PostgreSQL before */
const skip = hubsSkipReason !== ''
const why = hubsSkipReason
const UNTHROTTLED = { VIGIL_MODE: 'own', VIGIL_OWN_RATE_LIMIT: '10000000', VIGIL_RATE_LIMIT_ANONYMOUS: '10000000', VIGIL_RATE_LIMIT_DELAY_MS: '0' }

const running: Hubs[] = []
const undo: (() => void)[] = []
afterEach(async () => {
  for (const u of undo.splice(0)) u()
  for (const h of running.splice(0)) await h.stop()
}, 60_000)

async function eventually<T>(check: () => Promise<T | undefined | null | false>, everyMs = 100): Promise<T> {
  for (;;) {
    const v = await check()
    if (v) return v
    await Bun.sleep(everyMs)
  }
}

/** every hardware sample of a device, read back page by page through one hub */
async function storedHardwareIds(base: string, auth: Record<string, string>, deviceId: string): Promise<Set<string>> {
  const ids = new Set<string>()
  const read = client(base, auth)
  for (let offset = 0; ; offset += 1000) {
    const page = await read('GET', `/v1/metrics/hardware/${deviceId}?limit=1000&offset=${offset}`)
    expect(page.status).toBe(200)
    const rows = (Array.isArray(page.body) ? page.body : page.body.items) as { id: string | number }[]
    for (const r of rows) ids.add(String(r.id))
    if (rows.length < 1000) return ids
  }
}

describe('two hubs on one PostgreSQL database, under faults', () => {
  test.skipIf(skip)(
    `one hub killed with SIGKILL under ingest: the other keeps serving and no acknowledged sample is lost ${why}`,
    async () => {
      ensureBinary()
      const h = await startHubs({ count: 2, env: UNTHROTTLED })
      running.push(h)
      const a = await accountWithDevice(h.hubs[0]!.base, 'ops@example.test')
      const collector = { 'x-api-key': a.key, 'x-device-id': a.deviceId }
      const acked: { hub: number; id: string }[] = []
      let killed = false
      let stop = false
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const hub = (w + i) % 2
          if (hub === 0 && killed) continue
          try {
            const res = await client(h.hubs[hub]!.base, collector)('POST', '/v1/metrics/hardware', { cpu_percent: i % 100 })
            if (res.status === 201) acked.push({ hub, id: String(res.body.id) })
          } catch {
            // the killed hub: its request was not acknowledged
          }
        }
      })
      await eventually(async () => acked.length >= 300, 20)
      killed = true
      await h.kill(0)
      const atKill = acked.length
      await eventually(async () => acked.length >= atKill + 300, 20) // the other hub goes on
      stop = true
      await Promise.all(writers)
      expect(acked.filter((x) => x.hub === 1).length).toBeGreaterThan(300)
      const stored = await storedHardwareIds(h.hubs[1]!.base, a.auth, a.deviceId)
      expect(acked.filter((x) => !stored.has(x.id))).toEqual([])
    },
    120_000,
  )

  test.skipIf(skip)(
    `PostgreSQL unreachable under load: both hubs answer /health 503 with the reason meanwhile, and recover without a restart ${why}`,
    async () => {
      ensureBinary()
      const server = new URL(process.env.VIGIL_TEST_PG_URL!)
      const proxy = await tcpProxy({ host: server.hostname, port: Number(server.port || 5432) })
      undo.push(() => proxy.stop())
      const throughProxy = (url: string) => {
        const u = new URL(url)
        u.hostname = '127.0.0.1'
        u.port = String(proxy.port)
        return u.toString()
      }
      const h = await startHubs({ count: 2, env: UNTHROTTLED, databaseUrl: throughProxy })
      running.push(h)
      const a = await accountWithDevice(h.hubs[0]!.base, 'ops@example.test')
      const collector = { 'x-api-key': a.key, 'x-device-id': a.deviceId }
      const statuses: number[] = []
      let stop = false
      const writers = h.hubs.map(async (hub) => {
        while (!stop) {
          try {
            statuses.push((await client(hub.base, collector)('POST', '/v1/metrics/hardware', { cpu_percent: 50 })).status)
          } catch {
            statuses.push(0)
          }
        }
      })
      await eventually(async () => statuses.length >= 100, 20)

      proxy.stop()
      for (const hub of h.hubs) {
        const down = await eventually(async () => {
          const res = await client(hub.base)('GET', '/health')
          return res.status === 503 ? res : null
        })
        expect(down.body.database).toMatchObject({ ok: false, fault: 'unavailable' })
        expect(down.body.database.message).toContain('PostgreSQL')
        expect(down.text).not.toContain(decodeURIComponent(server.password))
      }

      proxy.start()
      for (const hub of h.hubs) await eventually(async () => (await client(hub.base)('GET', '/health')).status === 200)
      const afterRecovery = statuses.length
      // ingest goes through both hubs again: the same processes, never restarted
      await eventually(async () => statuses.slice(afterRecovery).filter((s) => s === 201).length >= 50, 20)
      stop = true
      await Promise.all(writers)
      expect(h.hubs.every((hub) => hub.proc.exitCode === null)).toBe(true)
      // no client's mistake and no outage became a 500 the client could not tell from a bug
      expect(statuses.filter((s) => s === 500)).toEqual([])
    },
    120_000,
  )
})
