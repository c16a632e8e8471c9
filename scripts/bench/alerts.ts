/**
 * The alerts section of the bench: rules seeded per client (for the throughput comparison run
 * by scripts/bench.ts), and, run as its own process, the latency from a sample that crosses a
 * threshold (duration 0) to the alert.firing event on the bus and to the notify port's call,
 * in-process under a background ingest load.
 * Usage (latency): bun scripts/bench/alerts.ts '<json: {crossings, load, sample}>'
 */
import type { Database } from 'bun:sqlite'
import { newId } from '../../src/lib/ids'

/** Metrics the seeded rules watch: plain fields, named parts and wildcards, of both kinds. */
const METRICS = [
  'cpu_percent',
  'ram_percent',
  'swap_percent',
  'cpu_temp_c',
  'disk_used_percent',
  'disk_partitions:*',
  'disk_partitions:/',
  'temperatures:*',
  'cpu_per_core:*',
  'latency_avg_ms',
  'packet_loss_percent',
  'download_mbps',
  'interfaces:*:bytes_recv',
  'wifi:signal_dbm',
]

/**
 * `perClient` enabled threshold rules for each client, none of which the bench's samples trip
 * (so the cost measured is evaluation, not alert writes); the defaults marked as made, so the
 * engine adds none. With perClient 0 the clients have no rule at all.
 */
export function seedAlertRules(sqlite: Database, clientIds: string[], perClient: number, now: number): void {
  sqlite.transaction(() => {
    for (const clientId of clientIds) {
      sqlite.run('INSERT INTO alert_settings (client_id, defaults_created_at) VALUES (?, ?)', [clientId, now])
      for (let i = 0; i < perClient; i++) {
        const metric = METRICS[i % METRICS.length]!
        sqlite.run(
          `INSERT INTO alert_rules (id, client_id, name, enabled, kind, metric, operator, threshold, recovery_threshold, for_seconds, severity, scope_type, channel_ids, notify_recovery, recovery_delay_seconds, created_at, updated_at)
           VALUES (?, ?, ?, 1, 'threshold', ?, '>', ?, ?, ?, 'warning', 'all', '[]', 1, 0, ?, ?)`,
          [newId('rul'), clientId, `bench ${i}`, metric, 1e12 + i, 1e12 + i - 1, (i % 3) * 60, now, now],
        )
      }
    }
  })()
}

interface LatencySpec {
  crossings: number
  /** concurrent background ingest requests kept in flight while crossings are measured */
  load: number
  /** what each request posts: the real sample of this machine (`vigil agent --once`) */
  sample: { hardware: Record<string, unknown>; network: Record<string, unknown> }
}

/** p50/p99/max in ms of POST start → alert.firing on the bus, and → the notify port's call. */
async function latency(spec: LatencySpec) {
  const { createApp } = await import('../../src/app')
  const { testConfig } = await import('../../src/config')
  const { openDatabase } = await import('../../src/db/connection')
  const { migrate } = await import('../../src/db/migrate')
  const { systemClock } = await import('../../src/lib/clock')
  const { memoryLogger } = await import('../../src/lib/logger')
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { accessTokens } = await import('../../src/modules/users/users.tokens')
  const dir = mkdtempSync(join(tmpdir(), 'vigil-alerts-bench-'))
  const db = openDatabase(join(dir, 'vigil.db'))
  migrate(db.sqlite, Date.now())
  const { seedAccounts } = await import('./seed')
  const [tenant] = seedAccounts(db.sqlite, { tenants: 1, keysPerTenant: 2, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  const notifiedAt = new Map<string, number>()
  const secret = 'bench-secret-bench-secret-bench-secret!'
  const app = createApp({
    config: testConfig({ rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never),
    db,
    clock: systemClock,
    logger: memoryLogger().logger,
    jwtSecret: secret,
    notify: (_c, ch, n) => {
      for (const id of n.alert_ids) notifiedAt.set(id, performance.now())
      return ch.length
    },
  })
  const post = (key: string, path: string, body: unknown, device?: string) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, ...(device ? { 'x-device-id': device } : {}) },
        body: JSON.stringify(body),
      }),
    )
  const register = async (key: string, fp: string) =>
    (
      (await (await post(key, '/v1/clients/me/devices', { hostname: fp, os: 'linux', os_version: '6', arch: 'x64', fingerprint: fp })).json()) as {
        device_id: string
      }
    ).device_id
  const watched = await register(tenant!.keys[0]!, 'watched')
  const busy = await register(tenant!.keys[1]!, 'busy')
  const token = await accessTokens(secret, systemClock).sign({ userId: tenant!.userId, clientId: tenant!.clientId, role: 'user' })
  // a real channel of the account: a rule naming one that is not its own is refused (the notices
  // themselves go to this bench's notify port, not out)
  const channel = await app.handle(
    new Request('http://localhost/v1/channels', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'bench', kind: 'ntfy', config: { topic: 'bench' } }),
    }),
  )
  if (channel.status !== 201) throw new Error(`channel: ${channel.status} ${await channel.text()}`)
  const channelId = ((await channel.json()) as { id: string }).id
  const rule = await app.handle(
    new Request('http://localhost/v1/alerts/rules', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'crossing', metric: 'cpu_percent', threshold: 90, severity: 'critical', channel_ids: [channelId] }),
    }),
  )
  if (rule.status !== 201) throw new Error(`rule: ${rule.status} ${await rule.text()}`)
  await app.handle(
    new Request('http://localhost/v1/alerts/settings', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ group_window_seconds: 0 }),
    }),
  )
  const firedAt = new Map<string, number>()
  let lastFired: string | null = null
  app.ctx.events.subscribeAll((e) => {
    if (e.type !== 'alert.firing') return
    const id = (e.data as { alert: { id: string } }).alert.id
    firedAt.set(id, performance.now())
    lastFired = id
  })
  // background load: another device of the tenant, `load` requests in flight at all times
  let running = true
  const background = Array.from({ length: spec.load }, async () => {
    while (running) await post(tenant!.keys[1]!, '/v1/metrics/batch', spec.sample, busy)
  })
  const bus: number[] = []
  const notify: number[] = []
  for (let i = 0; i < spec.crossings; i++) {
    // each crossing starts from healthy: the previous alert resolves first
    await post(tenant!.keys[0]!, '/v1/metrics/hardware', { ...spec.sample.hardware, cpu_percent: 10 }, watched)
    lastFired = null
    const t0 = performance.now()
    const res = await post(tenant!.keys[0]!, '/v1/metrics/hardware', { ...spec.sample.hardware, cpu_percent: 99 }, watched)
    if (res.status !== 201) throw new Error(`ingest ${res.status}`)
    const id = lastFired as string | null
    if (!id) throw new Error('no alert.firing for a crossing')
    bus.push(firedAt.get(id)! - t0)
    // the notice leaves after the alert is stored, on the outbox's turn: wait for it (a crossing
    // with no notice within 10 s fails the bench rather than printing a figure without it)
    const deadline = performance.now() + 10_000
    while (!notifiedAt.has(id) && performance.now() < deadline) await Bun.sleep(0)
    if (!notifiedAt.has(id)) throw new Error('no notice within 10 s of a crossing')
    notify.push(notifiedAt.get(id)! - t0)
  }
  running = false
  await Promise.all(background)
  db.close()
  rmSync(dir, { recursive: true, force: true })
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!
  const sum = (xs: number[]) => ({ p50: pct(xs, 50), p99: pct(xs, 99), max: Math.max(...xs) })
  return { crossings: spec.crossings, load: spec.load, bus: sum(bus), notify: sum(notify) }
}

/**
 * The observer alone: CPU µs per batch (a hardware and a network sample, the bench's bodies)
 * through the rules of one client, with `rules` seeded rules and with none, interleaved rounds,
 * medians. What ingest pays per request for alerting, free of the HTTP load's noise.
 */
async function observerCost(rules: number, batches: number, sample: LatencySpec['sample']) {
  const { testApp } = await import('../../test/helpers/app')
  const { createTenant } = await import('../../test/helpers/fixtures')
  const { insertDevice } = await import('../../test/helpers/devices')
  const { observeSample } = await import('../../src/modules/alerts/alerts.rules.service')
  const setup = async (n: number) => {
    const t = testApp()
    const a = await createTenant(t)
    const d = insertDevice(t, a.clientId)
    seedAlertRules(t.db.sqlite, [a.clientId], n, t.clock.now())
    t.modules.alerts.runtime.boot()
    const hw = sample.hardware
    const net = sample.network
    return () => {
      const c0 = process.cpuUsage()
      for (let i = 0; i < batches; i++) {
        observeSample(t.modules.alerts, { clientId: a.clientId, deviceId: d, kind: 'hardware', ts: t.clock.now(), values: hw })
        observeSample(t.modules.alerts, { clientId: a.clientId, deviceId: d, kind: 'network', ts: t.clock.now(), values: net })
      }
      const c = process.cpuUsage(c0)
      return (c.user + c.system) / batches
    }
  }
  const none = await setup(0)
  const some = await setup(rules)
  none()
  some()
  const a: number[] = []
  const b: number[] = []
  for (let r = 0; r < 7; r++) {
    a.push(none())
    b.push(some())
  }
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!
  return { rules, none: med(a), some: med(b) }
}

if (import.meta.main) {
  const spec = JSON.parse(process.argv[2]!) as LatencySpec
  const cost = await observerCost(100, 20_000, spec.sample)
  console.log(JSON.stringify({ ...(await latency(spec)), cost }))
}
