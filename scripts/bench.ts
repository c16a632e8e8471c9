/**
 * `bun run bench [--quick] [--no-build] [--keep]`: the speed figures of the README.
 *
 * 1. builds dist/vigil and starts it on a temp data dir and a free port on 127.0.0.1, next to
 *    scripts/bench/bare.ts (Bun.serve + JSON.parse + one INSERT per request);
 * 2. ingest: 100 devices (10 tenants × 10, registered through the API, one key each) posting
 *    ~1.4 KB POST /v1/metrics/batch bodies, driven by autocannon in a second process;
 * 3. rounds that load Vigil, then the bare baseline, with the same load; medians of the rounds,
 *    with each server's CPU time per request (steadier than req/s on a busy machine);
 * 4. reads: 10 M samples (5 M hardware + 5 M network rows) seeded straight into a fresh
 *    database with the tiers rolled up, then history and summaries for one device (5 rounds of
 *    1,000 sequential requests after 200 warm-up ones; p50/p99 over all 5,000, and each round's
 *    p99); again at 1/10 the size, to show the cost does not grow with the data;
 * 5. RSS idle after start, after the registrations, under load and 12 s / 37 s after it; bytes
 *    per sample on disk; a kill -9 in the middle of an ingest run (every acknowledged batch
 *    must be stored);
 * 6. hostile traffic, on a fresh server: ingest and GET /health p99 alone, then while 10 clients
 *    of another tenant send bodies nested 100,000 deep and bodies over the size cap (declared and
 *    chunked) at full speed (scripts/bench/hostile.ts), with an unlimited rate and at their plan's
 *    60/min; `--hostile-only` runs this section alone; then a table.
 * 7. GET /metrics with the metrics token over 1,000 devices (100 tenants × 10) with a newest
 *    sample each: p50/p99 of sequential scrapes and the exposition's size; `--metrics-only`
 *    runs this section alone.
 * 8. the portal's reads on 10.4 M samples (20 devices × 30 days at 10 s) plus a tenant of 500
 *    devices: chart series of one device over 30 days (1h tier) and 1 hour (raw), a day of nested
 *    families, and the fleet overview of the 500; `--portal-only` runs this section alone.
 * 9. live stream: ingest (as in 2) without and with 500 open GET /v1/events streams (25 users ×
 *    20, each of a tenant whose 40 devices post a batch every 10 s, 100 requests/s in all, in
 *    both phases), alternating rounds; the target is a ratio of at least 0.90. `--live-only`
 *    runs this section alone.
 * 10. alerts: ingest on two servers alike but for 100 threshold rules per client on one of them
 *    (none trips: the cost of evaluating them), rounds alternating, the ratio of their medians;
 *    then the latency from a sample crossing a threshold to alert.firing on the bus and to the
 *    notify port (scripts/bench/alerts.ts, in-process under ingest load); `--alerts-only` runs
 *    this section alone.
 * 10. webhooks (scripts/bench/webhooks.ts): signed delivery throughput from dist/vigil's outbox to a
 *     local receiver beside plain unsigned POSTs to the same receiver, and the API → receiver
 *     latency of single events; `--webhooks-only` runs this section alone.
 * `--ingest-only` runs step 2-3 alone (with the kill -9 check), for before/after comparisons of the hot path.
 * `--browser-only` runs the portal's figures in chromium (scripts/bench/browser.ts: a dashboard of 200
 * devices to first content and to its cards, a 30-day device page from its data to every chart drawn).
 * `--web-only` prints the portal's bundle sizes (scripts/bench/web.ts: entry, each page, each route's
 * first load, gzipped); the full run adds its summary rows.
 * `--agent-only` runs the collector's figures (scripts/bench/agent.ts: footprint beside node_exporter,
 * one sample, a day's replay, a thousand agents back at once); not part of the full run (its
 * footprint window alone is 10 minutes).
 * Everything runs on loopback; only processes started here are stopped.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { openDatabase } from '../src/db/connection'
import { migrate } from '../src/db/migrate'
import { systemClock } from '../src/lib/clock'
import { accessTokens } from '../src/modules/users/users.tokens'
import { hardwareSample, networkSample } from '../test/helpers/samples'
import { cpuMs, freePort, median, memoryMb, rssMb, runJson, stop, waitReady } from './bench/proc'
import { insertSamples, seedAccounts, seedSamples, type SeededTenant } from './bench/seed'
import { webRows, webSizes } from './bench/web'
import { rollupAll } from '../src/modules/metrics/metrics.rollup'
import { createRollupStore } from '../src/modules/metrics/metrics.rollup-store'
import { seedAlertRules } from './bench/alerts'
import { webhookRows, webhooksBench } from './bench/webhooks'

const args = new Set(process.argv.slice(2))
const quick = args.has('--quick')
const P = quick
  ? { rounds: 2, duration: 3, warmup: 1, perDevice: 5_000, reads: 200, readRounds: 1, hostileRounds: 1 }
  : { rounds: 5, duration: 6, warmup: 3, perDevice: 50_000, reads: 1_000, readRounds: 5, hostileRounds: 2 }
const DEVICES = 100
const CONNECTIONS = 100
/** idle memory is read this long after /health first answers: after the start-up shrink at 0.5 s */
const IDLE_AFTER_START_MS = 2_000
const root = join(import.meta.dir, '..')
const secret = 'bench-secret-bench-secret-bench-secret!'
const metricsToken = 'bench-metrics-token-bench-metrics-token'
const tmp = mkdtempSync(join(tmpdir(), 'vigil-bench-'))
const log = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`)

interface Load {
  rps: number
  p50: number
  p99: number
  p99_9: number
  max: number
  ok: number
  non2xx: number
  errors: number
  timeouts: number
}
type Reads = Record<string, { p50: number; p99: number; p99Rounds: number[]; status: number }>

const body = JSON.stringify({ hardware: hardwareSample(1), network: networkSample(1) })

function startVigil(dataDir: string, port: number) {
  return Bun.spawn([join(root, 'dist/vigil'), 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: {
      ...process.env,
      VIGIL_JWT_SECRET: secret,
      VIGIL_RATE_LIMIT_FREE: '10000000',
      // the /health probe is anonymous: it must measure /health, not its own 429s
      VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
      // the plans' limits (an own instance would put its own rate on the free tenants)
      VIGIL_MODE: 'service',
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_LOG_FORMAT: 'json',
      VIGIL_RETENTION_RAW: '3650d',
      VIGIL_METRICS_TOKEN: metricsToken,
    },
    stdout: 'inherit',
    stderr: 'inherit',
  })
}

/**
 * A fresh database of `tenantCount` tenants × 10 devices, `perDevice` samples each, and a server
 * started on it (not yet ready). `fleet` adds one more tenant with that many devices and samples.
 */
async function seededServer(name: string, tenantCount: number, perDevice: number, fleet?: { devices: number; perDevice: number }) {
  const dir = join(tmp, name)
  const db = freshDb(dir)
  const now = Date.now()
  const tenants = seedAccounts(db.sqlite, { tenants: tenantCount, keysPerTenant: 1, maxDevices: 10, devicesPerTenant: 10, now })
  const seqs = tenants.flatMap((t) => t.devices.map((d) => d.seq))
  const big = fleet
    ? seedAccounts(db.sqlite, { tenants: 1, keysPerTenant: 1, maxDevices: fleet.devices, devicesPerTenant: fleet.devices, now, label: 'fleet' })[0]
    : undefined
  if (big && fleet) {
    // both groups first, then one rollup over all: a second rollup would not go back for the first group's hours
    insertSamples(db.sqlite, seqs, perDevice, now)
    const fleetSeqs = big.devices.map((d) => d.seq)
    insertSamples(db.sqlite, fleetSeqs, fleet.perDevice, now)
    await rollupAll(createRollupStore(db.sqlite), { now: now + 60_000, devices: [...seqs, ...fleetSeqs] })
  } else await seedSamples(db.sqlite, seqs, perDevice, now)
  db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  const port = freePort()
  return { dir, tenants, fleet: big, server: startVigil(dir, port), base: `http://127.0.0.1:${port}` }
}

function freshDb(dir: string) {
  mkdirSync(dir, { recursive: true })
  const db = openDatabase(join(dir, 'vigil.db'))
  migrate(db.sqlite, Date.now())
  return db
}

/** Runs autocannon in its own process while sampling the server's RSS and CPU time. */
async function drive(url: string, devices: { key: string; id: string }[], pid: number, duration: number) {
  let peak = 0
  let peakAnon = 0
  const sampler = setInterval(() => {
    const m = memoryMb(pid)
    if (m && m.rss > peak) [peak, peakAnon] = [m.rss, m.anon]
  }, 250)
  const cpu0 = cpuMs(pid) ?? 0
  try {
    const r = await runJson<Load>(join(root, 'scripts/bench/load.ts'), { url, body, devices, connections: CONNECTIONS, duration }, (duration + 60) * 1000)
    const cpu = (cpuMs(pid) ?? cpu0) - cpu0
    return { ...r, peakRss: peak, peakAnon, cpuUsPerReq: r.ok ? (cpu * 1000) / r.ok : 0 }
  } finally {
    clearInterval(sampler)
  }
}
type Run = Awaited<ReturnType<typeof drive>>

function countBatches(dir: string): number {
  const db = openDatabase(join(dir, 'vigil.db'))
  try {
    return db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
  } finally {
    db.sqlite.close()
  }
}

/** Starts Vigil on a seeded data dir and registers the devices through the API, as collectors do. */
async function startIngestServer(dir: string, tenants: SeededTenant[]) {
  const port = freePort()
  const server = startVigil(dir, port)
  const base = `http://127.0.0.1:${port}`
  await waitReady(`${base}/health`, server)
  // a fresh instance, idle: after the start-up shrink (at 0.5 s), before any request but /health
  await Bun.sleep(IDLE_AFTER_START_MS)
  const startRss = memoryMb(server.pid)!
  const devices: { key: string; id: string }[] = []
  for (const [ti, t] of tenants.entries()) {
    for (const [ki, key] of t.keys.entries()) {
      const res = await fetch(`${base}/v1/clients/me/devices`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ hostname: `pi-${ti}-${ki}`, os: 'linux', os_version: '6.6', arch: 'arm64', fingerprint: `fp-${ti}-${ki}` }),
      })
      if (res.status !== 201) throw new Error(`device registration: ${res.status} ${await res.text()}`)
      devices.push({ key, id: ((await res.json()) as { device_id: string }).device_id })
    }
  }
  return { server, url: `${base}/v1/metrics/batch`, devices, startRss }
}

/**
 * Vigil and the bare baseline side by side: both servers up at once, then rounds that drive
 * one and then the other, so drift on a shared machine hits both alike; medians are reported.
 */
async function ingestBench() {
  const dir = join(tmp, 'ingest')
  const db = freshDb(dir)
  const tenants = seedAccounts(db.sqlite, { tenants: 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  db.close()
  const vigil = await startIngestServer(dir, tenants)
  const barePort = freePort()
  mkdirSync(join(tmp, 'bare'), { recursive: true })
  const bare = Bun.spawn([process.execPath, join(root, 'scripts/bench/bare.ts'), String(barePort), join(tmp, 'bare', 'bare.db')], {
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const bareUrl = `http://127.0.0.1:${barePort}/v1/metrics/batch`
  const bareDevices = Array.from({ length: DEVICES }, (_, i) => ({ key: `k${i}`, id: `d${i}` }))
  try {
    await waitReady(`http://127.0.0.1:${barePort}/`, bare)
    await Bun.sleep(1000)
    const registeredRss = memoryMb(vigil.server.pid)!
    log(`ingest: warm-up ${P.warmup}s each`)
    await drive(vigil.url, vigil.devices, vigil.server.pid, P.warmup)
    await drive(bareUrl, bareDevices, bare.pid, P.warmup)
    const runs: { vigil: Run; bare: Run }[] = []
    for (let i = 0; i < P.rounds; i++) {
      log(`ingest round ${i + 1}/${P.rounds}: ${P.duration}s vigil, ${P.duration}s bare, ${CONNECTIONS} connections, ${DEVICES} devices`)
      const v = await drive(vigil.url, vigil.devices, vigil.server.pid, P.duration)
      runs.push({ vigil: v, bare: await drive(bareUrl, bareDevices, bare.pid, P.duration) })
    }
    // the memory reducer gives memory back after a quiet spell (5 s, checked every 5 s)
    await Bun.sleep(12_000)
    const quietRss = memoryMb(vigil.server.pid)!
    // the checkpoint thread stops after 30 s without writes
    await Bun.sleep(25_000)
    const laterRss = memoryMb(vigil.server.pid)!
    // durability: kill -9 in the middle of a run; every acknowledged batch must be on disk
    const before = countBatches(dir)
    const running = drive(vigil.url, vigil.devices, vigil.server.pid, 3)
    await Bun.sleep(1500)
    vigil.server.kill('SIGKILL')
    const killed = await running
    await vigil.server.exited
    const durability = { acked: killed.ok, stored: countBatches(dir) - before }
    if (durability.stored < durability.acked) throw new Error(`kill -9 lost acknowledged batches: ${JSON.stringify(durability)}`)
    const check = openDatabase(join(dir, 'vigil.db'))
    check.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
    const rows = check.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples WHERE kinds = 3').get()!.n
    const bytes = check.sqlite
      .query<{ b: number }, []>("SELECT sum(pgsize) AS b FROM dbstat WHERE name IN ('metric_samples', 'metric_samples_device_ts')")
      .get()!.b
    const disk = {
      bytesPerBatch: Math.round(bytes / rows),
      fileBytesPerBatch: Math.round(statSync(join(dir, 'vigil.db')).size / rows),
    }
    check.close()
    return { runs, startRss: vigil.startRss, registeredRss, quietRss, laterRss, disk, stored: rows, durability }
  } finally {
    await stop(vigil.server)
    await stop(bare)
  }
}

const HOSTILE_CLIENTS = 10

/**
 * Ingest and /health alone ("quiet") and while HOSTILE_CLIENTS clients send nested and oversized
 * bodies ("hostile"), alternating phases of P.duration s on one fresh server; medians of rounds.
 * The probe and the attackers are processes of their own, like the load generator.
 */
async function hostileBench() {
  const dir = join(tmp, 'hostile')
  const db = freshDb(dir)
  // two more tenants than the collectors need: their keys are the attackers'. The first has the
  // bench's unlimited rate (an attacker the operator trusted); the second its plan's 60/min.
  const tenants = seedAccounts(db.sqlite, { tenants: 12, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  const [unlimited, limited] = tenants.splice(-2) as [SeededTenant, SeededTenant]
  db.sqlite.query('UPDATE clients SET rate_limit = ? WHERE id = ?').run(ATTACKER_PLAN_LIMIT, limited.clientId)
  db.close()
  const vigil = await startIngestServer(dir, tenants)
  const collectors = vigil.devices.slice(0, DEVICES)
  const base = vigil.url.replace('/v1/metrics/batch', '')
  const helper = join(root, 'scripts/bench/hostile.ts')
  const spec = { base, keys: unlimited.keys, duration: P.duration, clients: HOSTILE_CLIENTS }
  type Probe = { n: number; p50: number; p99: number; max: number }
  type Phase = { load: Run; health: Probe; attack?: Record<string, number> }
  const phase = async (keys: string[] | null): Promise<Phase> => {
    const [load, health, attack] = await Promise.all([
      drive(vigil.url, collectors, vigil.server.pid, P.duration),
      runJson<Probe>(helper, { ...spec, mode: 'probe' }, 120_000),
      // At the lowest CPU priority, standing in for senders on other machines: on two cores an
      // attacker at normal priority takes a core from the server and the load generator alike,
      // which measures the box, not the service. What the server spends on the attacks still counts.
      keys ? runJson<Record<string, number>>(helper, { ...spec, keys, mode: 'attack' }, 120_000, { lowestPriority: true }) : undefined,
    ])
    return { load, health, attack }
  }
  try {
    log(`hostile: warm-up ${P.warmup}s`)
    await drive(vigil.url, collectors, vigil.server.pid, P.warmup)
    const phases: { quiet: Phase; hostile: Phase; limited: Phase }[] = []
    for (let i = 0; i < P.hostileRounds; i++) {
      log(
        `hostile round ${i + 1}/${P.hostileRounds}: ${P.duration}s quiet, ${P.duration}s with ${HOSTILE_CLIENTS} unlimited attackers, ${P.duration}s with them at ${ATTACKER_PLAN_LIMIT}/min`,
      )
      phases.push({ quiet: await phase(null), hostile: await phase(unlimited.keys), limited: await phase(limited.keys) })
    }
    return phases
  } finally {
    await stop(vigil.server)
  }
}

/** the free plan's requests per minute: what an attacking tenant gets unless the operator raised it */
const ATTACKER_PLAN_LIMIT = 60

function hostileRows(phases: Awaited<ReturnType<typeof hostileBench>>): [string, string, string][] {
  const med = (f: (p: (typeof phases)[number]) => number) => median(phases.map(f))
  const ms = (n: number) => `${Math.round(n * 100) / 100} ms`
  const failed = phases.reduce((n, p) => n + [p.quiet, p.hostile, p.limited].reduce((m, ph) => m + ph.load.non2xx + ph.load.errors, 0), 0)
  const attackRow = (which: 'hostile' | 'limited', label: string): [string, string, string] => {
    const attack: Record<string, number> = {}
    for (const p of phases) for (const [k, n] of Object.entries(p[which].attack ?? {})) attack[k] = (attack[k] ?? 0) + n
    const total = Object.values(attack).reduce((a, b) => a + b, 0)
    return [
      `hostile: attack requests answered (${label})`,
      `${total} in ${phases.length} × ${P.duration} s`,
      Object.entries(attack)
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join(', '),
    ]
  }
  const loadRow = (which: 'hostile' | 'limited', label: string): [string, string, string] => {
    const ratio = med((p) => p[which].load.rps / p.quiet.load.rps)
    return [
      `hostile: ingest quiet / with ${HOSTILE_CLIENTS} attackers (${label})`,
      `${Math.round(med((p) => p.quiet.load.rps))} / ${Math.round(med((p) => p[which].load.rps))} req/s (ratio ${ratio.toFixed(2)})`,
      `p99 ${ms(med((p) => p.quiet.load.p99))} / ${ms(med((p) => p[which].load.p99))}; server CPU ${med((p) => p.quiet.load.cpuUsPerReq).toFixed(1)} / ${med((p) => p[which].load.cpuUsPerReq).toFixed(1)} µs per ingest request (attacks included); peak RSS ${med((p) => p.quiet.load.peakRss).toFixed(1)} / ${med((p) => p[which].load.peakRss).toFixed(1)} MB`,
    ]
  }
  const healthRow = (which: 'hostile' | 'limited', label: string): [string, string, string] => [
    `hostile: GET /health quiet / with ${HOSTILE_CLIENTS} attackers (${label})`,
    `p99 ${ms(med((p) => p.quiet.health.p99))} / ${ms(med((p) => p[which].health.p99))}`,
    `p50 ${ms(med((p) => p.quiet.health.p50))} / ${ms(med((p) => p[which].health.p50))}, max ${ms(med((p) => p.quiet.health.max))} / ${ms(med((p) => p[which].health.max))}`,
  ]
  return [
    loadRow('limited', `at the plan's ${ATTACKER_PLAN_LIMIT}/min`),
    healthRow('limited', `at the plan's ${ATTACKER_PLAN_LIMIT}/min`),
    attackRow('limited', `at the plan's ${ATTACKER_PLAN_LIMIT}/min`),
    loadRow('hostile', 'unlimited rate'),
    healthRow('hostile', 'unlimited rate'),
    attackRow('hostile', 'unlimited rate'),
    [
      'hostile: collector requests failed',
      String(failed),
      'non-2xx + errors of the ingest load, all phases (deep = 100k-deep array, declared/chunked = 2 MiB over the 1 MiB cap)',
    ],
  ]
}

/** the live section's watched fleet: tenants × devices posting every 10 s, and streams per user (the per-user cap) */
const LIVE = { tenants: 25, devices: 40, streamsPerUser: 20 }
/** seconds of fleet-only traffic over which the server's CPU time is read, without and with the streams */
const QUIET_S = 5

/** Reads the first line a process prints, leaving the rest of its output to `rest`. */
async function firstLine(proc: Subprocess<'ignore', 'pipe', 'inherit'>): Promise<{ line: string; rest: () => Promise<string> }> {
  const reader = proc.stdout.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!text.includes('\n')) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
  }
  const cut = text.indexOf('\n')
  const rest = async () => {
    let more = text.slice(cut + 1)
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return more
      more += decoder.decode(value, { stream: true })
    }
  }
  return { line: text.slice(0, cut), rest }
}

/**
 * Ingest (autocannon, as in the ingest section) without and with LIVE streams open, in
 * alternating rounds on one server. A fleet of LIVE.tenants × LIVE.devices posts every 10 s
 * throughout, so the streams carry a realistic load (each of their samples goes to its
 * tenant's 20 streams); the ingest load's own tenants have no streams.
 */
async function liveBench() {
  const dir = join(tmp, 'live')
  const db = freshDb(dir)
  const now = Date.now()
  const loadTenants = seedAccounts(db.sqlite, { tenants: 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now })
  const watched = seedAccounts(db.sqlite, {
    tenants: LIVE.tenants,
    keysPerTenant: 1,
    maxDevices: LIVE.devices,
    devicesPerTenant: LIVE.devices,
    now,
    label: 'watched',
  })
  db.close()
  const vigil = await startIngestServer(dir, loadTenants)
  const base = vigil.url.replace('/v1/metrics/batch', '')
  const helper = join(root, 'scripts/bench/live.ts')
  const fleetDevices = watched.flatMap((t) => t.devices.map((d) => ({ key: t.keys[0]!, id: d.id })))
  // Bun's fetch runs at most 256 requests at once by default: a stream is one that never ends
  const env = { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: '4096' }
  const fleet = Bun.spawn([process.execPath, helper, JSON.stringify({ mode: 'fleet', base, duration: 3600, devices: fleetDevices })], {
    stdout: 'pipe',
    stderr: 'inherit',
    env,
  })
  type Streams = { opened: number; refused: number; events: number; samples: number; bytes: number; endedEarly: number; seconds: number }
  const withStreams = async () => {
    const tokens = await Promise.all(watched.map((t) => accessTokens(secret, systemClock).sign({ userId: t.userId, clientId: t.clientId, role: 'user' })))
    const spec = { mode: 'streams', base, duration: P.duration + QUIET_S + 1, tokens, perToken: LIVE.streamsPerUser }
    const proc = Bun.spawn([process.execPath, helper, JSON.stringify(spec)], { stdout: 'pipe', stderr: 'inherit', env })
    const timer = setTimeout(() => proc.kill('SIGKILL'), (P.duration + 60) * 1000)
    const { line, rest } = await firstLine(proc).finally(() => clearTimeout(timer))
    if ((JSON.parse(line) as { ready: number }).ready !== LIVE.tenants * LIVE.streamsPerUser) throw new Error(`streams not all open: ${line}`)
    const quiet = await quietCpu()
    const load = await drive(vigil.url, vigil.devices, vigil.server.pid, P.duration)
    const streams = JSON.parse((await rest()).trim().split('\n').pop()!) as Streams
    await proc.exited
    return { load, streams, quiet }
  }
  /** the server's CPU time per second with only the fleet posting (and the streams, when open): steadier than req/s on a busy machine */
  const quietCpu = async () => {
    const cpu0 = cpuMs(vigil.server.pid) ?? 0
    const t0 = performance.now()
    await Bun.sleep(QUIET_S * 1000)
    return ((cpuMs(vigil.server.pid) ?? cpu0) - cpu0) / ((performance.now() - t0) / 1000)
  }
  try {
    log(`live: warm-up ${P.warmup}s, fleet of ${fleetDevices.length} devices posting every 10 s`)
    await drive(vigil.url, vigil.devices, vigil.server.pid, P.warmup)
    const runs: { without: Run; with: Run; streams: Streams; quietWithout: number; quietWith: number }[] = []
    for (let i = 0; i < P.rounds; i++) {
      log(`live round ${i + 1}/${P.rounds}: ${QUIET_S}s + ${P.duration}s without streams, the same with ${LIVE.tenants * LIVE.streamsPerUser}`)
      const quietWithout = await quietCpu()
      const without = await drive(vigil.url, vigil.devices, vigil.server.pid, P.duration)
      const w = await withStreams()
      runs.push({ without, with: w.load, streams: w.streams, quietWithout, quietWith: w.quiet })
    }
    fleet.kill('SIGTERM')
    const fleetCounts = JSON.parse((await new Response(fleet.stdout).text()).trim().split('\n').pop() ?? '{}') as Record<string, number>
    return { runs, fleetCounts, fleetDevices: fleetDevices.length }
  } finally {
    await stop(fleet)
    await stop(vigil.server)
  }
}

function liveRows(live: Awaited<ReturnType<typeof liveBench>>): [string, string, string][] {
  const med = (f: (r: (typeof live.runs)[number]) => number) => median(live.runs.map(f))
  const ratios = live.runs.map((r) => r.with.rps / r.without.rps)
  const streams = LIVE.tenants * LIVE.streamsPerUser
  const errors = live.runs.reduce((n, r) => n + r.with.non2xx + r.with.errors + r.without.non2xx + r.without.errors, 0)
  const fleetTotal = Object.values(live.fleetCounts).reduce((a, b) => a + b, 0)
  return [
    [
      `live: ingest without / with ${streams} open streams`,
      `${Math.round(med((r) => r.without.rps))} / ${Math.round(med((r) => r.with.rps))} req/s (ratio ${median(ratios).toFixed(2)}, target ≥ 0.90)`,
      `rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}; p99 ${med((r) => r.without.p99)} / ${med((r) => r.with.p99)} ms; server CPU ${med((r) => r.without.cpuUsPerReq).toFixed(1)} / ${med((r) => r.with.cpuUsPerReq).toFixed(1)} µs/req; peak RSS ${med((r) => r.without.peakRss).toFixed(1)} / ${med((r) => r.with.peakRss).toFixed(1)} MB; ingest non-2xx + errors ${errors}`,
    ],
    [
      `live: server CPU with only the fleet posting, without / with ${streams} streams`,
      `${med((r) => r.quietWithout).toFixed(0)} / ${med((r) => r.quietWith).toFixed(0)} ms per s`,
      `the streams' own cost: ${(med((r) => r.quietWith - r.quietWithout) / 10).toFixed(1)} % of a core (median of the rounds' differences: ${live.runs.map((r) => (r.quietWith - r.quietWithout).toFixed(0)).join(', ')} ms/s), over ${QUIET_S} s each`,
    ],
    [
      'live: what the streams carried',
      `${Math.round(med((r) => r.streams.events / r.streams.seconds))} events/s`,
      `${streams} streams (${LIVE.tenants} users × ${LIVE.streamsPerUser}), ${Math.round(med((r) => r.streams.samples / r.streams.seconds))} samples/s, ${Math.round(med((r) => r.streams.bytes / r.streams.seconds / 1024))} KiB/s read; refused ${med((r) => r.streams.refused)}, ended early ${med((r) => r.streams.endedEarly)}; fleet of ${live.fleetDevices} devices every 10 s: ${fleetTotal} posts (${Object.entries(
        live.fleetCounts,
      )
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ')})`,
    ],
  ]
}

async function liveOnly() {
  const rows = liveRows(await liveBench())
  console.log(
    `\nvigil bench, live stream only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.rounds} rounds of ${P.duration} s per phase, body ${body.length} B\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

async function readBench(name: string, tenantCount: number) {
  const total = tenantCount * 10 * P.perDevice * 2
  log(`${name}: seeding ${(total / 1e6).toFixed(1)} M samples`)
  const t0 = performance.now()
  const { dir, tenants, server, base } = await seededServer(name, tenantCount, P.perDevice)
  const seedSeconds = Math.round((performance.now() - t0) / 1000)
  try {
    await waitReady(`${base}/health`, server)
    await Bun.sleep(IDLE_AFTER_START_MS)
    const idleRss = memoryMb(server.pid)!
    const t = tenants[0]!
    const token = await accessTokens(secret, systemClock).sign({ userId: t.userId, clientId: t.clientId, role: 'admin' })
    const id = t.devices[0]!.id
    const reads = await runJson<Reads>(
      join(root, 'scripts/bench/reads.ts'),
      {
        base,
        token,
        n: P.reads,
        rounds: P.readRounds,
        warmup: 200,
        paths: {
          'history limit 120': `/v1/metrics/hardware/${id}?limit=120`,
          'summary 24 h': `/v1/metrics/summary/${id}?hours=24`,
          'summary 168 h': `/v1/metrics/summary/${id}?hours=168`,
        },
      },
      600_000,
    )
    for (const [k, v] of Object.entries(reads)) if (v.status !== 200) throw new Error(`${k}: status ${v.status}`)
    return { total, seedSeconds, reads, idleRss, afterReadsRss: rssMb(server.pid), fileMb: Math.round(statSync(join(dir, 'vigil.db')).size / 1e6) }
  } finally {
    await stop(server)
  }
}

/** 30 days of one device at 10 s, and the dashboard's fleet of 500 devices with an hour and a bit each. */
const PORTAL = { perDevice: 30 * 8_640, fleetDevices: 500, fleetPerDevice: 400 }

/**
 * The portal's chart and dashboard reads: 20 devices × 30 days at 10 s (10.4 M samples) for the
 * series of one of them, and a tenant of 500 devices for the fleet overview, in one database.
 */
async function portalBench() {
  const perDevice = quick ? 8_640 * 3 : PORTAL.perDevice
  const total = 20 * perDevice * 2 + PORTAL.fleetDevices * PORTAL.fleetPerDevice * 2
  log(
    `portal: seeding ${(total / 1e6).toFixed(1)} M samples (20 devices × ${perDevice / 8_640} days, ${PORTAL.fleetDevices} devices × ${PORTAL.fleetPerDevice})`,
  )
  const t0 = performance.now()
  const { tenants, fleet, server, base } = await seededServer('portal', 2, perDevice, { devices: PORTAL.fleetDevices, perDevice: PORTAL.fleetPerDevice })
  const seedSeconds = Math.round((performance.now() - t0) / 1000)
  try {
    await waitReady(`${base}/health`, server)
    const sign = (t: SeededTenant) => accessTokens(secret, systemClock).sign({ userId: t.userId, clientId: t.clientId, role: 'user' })
    const t = tenants[0]!
    const id = t.devices[0]!.id
    const days = perDevice / 8_640
    const since = (ms: number) => new Date(Date.now() - ms).toISOString()
    const series = `/v1/metrics/series/${id}?kind=hardware&fields=cpu_percent,ram_percent`
    const spec = { base, rounds: P.readRounds }
    // one path per reader process, each with a fresh access token (they last 15 minutes)
    // with the server's CPU time per request: steadier than latency on a shared machine
    const all: Record<string, Reads[string] & { cpuMs: number }> = {}
    const read = async (tenant: SeededTenant, name: string, path: string, n = P.reads, warmup = 200) => {
      const token = await sign(tenant)
      const cpu0 = cpuMs(server.pid) ?? 0
      const r = await runJson<Reads>(join(root, 'scripts/bench/reads.ts'), { ...spec, n, warmup, token, paths: { [name]: path } }, 900_000)
      all[name] = { ...r[name]!, cpuMs: ((cpuMs(server.pid) ?? cpu0) - cpu0) / (n * P.readRounds + warmup) }
    }
    await read(t, `series ${days} d, 2 hot fields (auto: ${days >= 13 ? '1h' : '10m'} tier)`, `${series}&start=${since(days * 86_400_000)}`)
    await read(t, 'series 1 h, 2 hot fields (auto: raw)', series)
    // each answer reads up to 360 raw samples spread over the day, a page read each: a fifth of the requests
    await read(
      t,
      'series 24 h, cpu_per_core + disk_partitions (auto: 10m, ≤ 360 raw samples)',
      `/v1/metrics/series/${id}?kind=hardware&fields=cpu_per_core,disk_partitions&start=${since(86_400_000)}`,
      P.reads / 5,
      20,
    )
    await read(fleet!, `fleet overview, ${PORTAL.fleetDevices} devices`, '/v1/clients/me/fleet')
    for (const [k, v] of Object.entries(all)) if (v.status !== 200) throw new Error(`${k}: status ${v.status}`)
    const size = async (path: string, tenant: SeededTenant) =>
      (await (await fetch(base + path, { headers: { authorization: `Bearer ${await sign(tenant)}` } })).arrayBuffer()).byteLength
    const seriesBytes = await size(`${series}&start=${since(days * 86_400_000)}`, t)
    const fleetBytes = await size('/v1/clients/me/fleet', fleet!)
    return { total, seedSeconds, reads: all, fleetBytes, seriesBytes, days }
  } finally {
    await stop(server)
  }
}

function portalRows(p: Awaited<ReturnType<typeof portalBench>>): [string, string, string][] {
  const label = `${(p.total / 1e6).toFixed(1)} M samples`
  const rows: [string, string, string][] = Object.entries(p.reads).map(([k, v]) => [
    `${k} (${label})`,
    `p50 ${v.p50} ms`,
    `p99 ${v.p99} ms${v.p99Rounds.length > 1 ? ` (per round: ${v.p99Rounds.join(', ')})` : ''}; server CPU ${v.cpuMs.toFixed(2)} ms/req`,
  ])
  rows.push([
    'answer sizes',
    `${(p.seriesBytes / 1e3).toFixed(0)} KB / ${(p.fleetBytes / 1e3).toFixed(0)} KB`,
    `series ${p.days} d (2 fields, values/min/max) / fleet overview of ${PORTAL.fleetDevices} devices`,
  ])
  rows.push(['portal seeding', `${p.seedSeconds} s`, label])
  return rows
}

async function portalOnly() {
  const rows = portalRows(await portalBench())
  console.log(`\nvigil bench, portal reads only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

/** A Prometheus scrape of a fleet of 1,000 devices, each with a fresh sample. */
async function metricsBench() {
  const { tenants, server, base } = await seededServer('metrics', 100, 2)
  try {
    await waitReady(`${base}/health`, server)
    const first = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
    const text = await first.text()
    if (first.status !== 200) throw new Error(`/metrics: status ${first.status}`)
    const gzipped = Bun.gzipSync(Buffer.from(text)).length
    const reads = await runJson<Reads>(
      join(root, 'scripts/bench/reads.ts'),
      { base, token: metricsToken, n: P.reads / 5, rounds: P.readRounds, warmup: 20, paths: { 'GET /metrics': '/metrics' } },
      600_000,
    )
    const r = reads['GET /metrics']!
    const series = text.split('\n').filter((l) => l && !l.startsWith('#')).length
    return { devices: tenants.length * 10, p50: r.p50, p99: r.p99, bytes: text.length, gzipped, series }
  } finally {
    await stop(server)
  }
}

function metricsRows(m: Awaited<ReturnType<typeof metricsBench>>): [string, string, string][] {
  return [
    [
      `GET /metrics, ${m.devices} devices (metrics token)`,
      `p50 ${m.p50} ms`,
      `p99 ${m.p99} ms; ${(m.bytes / 1e6).toFixed(2)} MB, ${m.series} series (${(m.gzipped / 1e3).toFixed(0)} KB gzipped)`,
    ],
  ]
}

async function metricsOnly() {
  const rows = metricsRows(await metricsBench())
  console.log(`\nvigil bench, /metrics only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

async function hostileOnly() {
  const rows = hostileRows(await hostileBench())
  console.log(
    `\nvigil bench, hostile traffic only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} collector connections\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

/** The ingest rows of the table: Vigil, the bare baseline, their ratio. */
function ingestRows(ingest: Awaited<ReturnType<typeof ingestBench>>): [string, string, string][] {
  const ms = (n: number) => `${n} ms`
  const med = (side: 'vigil' | 'bare', k: 'rps' | 'p50' | 'p99' | 'p99_9' | 'max' | 'cpuUsPerReq' | 'peakRss' | 'peakAnon') =>
    median(ingest.runs.map((r) => r[side][k]))
  const ratios = ingest.runs.map((r) => r.vigil.rps / r.bare.rps)
  const errors = ingest.runs.reduce((n, r) => n + r.vigil.non2xx + r.vigil.errors, 0)
  return [
    [
      'ingest POST /v1/metrics/batch (vigil)',
      `${Math.round(med('vigil', 'rps'))} req/s`,
      `p50 ${ms(med('vigil', 'p50'))}, p99 ${ms(med('vigil', 'p99'))}, p99.9 ${ms(med('vigil', 'p99_9'))}, max ${ms(med('vigil', 'max'))}, server CPU ${med('vigil', 'cpuUsPerReq').toFixed(1)} µs/req, non-2xx + errors ${errors}`,
    ],
    [
      'ingest, bare Bun.serve + 1 INSERT',
      `${Math.round(med('bare', 'rps'))} req/s`,
      `p50 ${ms(med('bare', 'p50'))}, p99 ${ms(med('bare', 'p99'))}, p99.9 ${ms(med('bare', 'p99_9'))}, max ${ms(med('bare', 'max'))}, server CPU ${med('bare', 'cpuUsPerReq').toFixed(1)} µs/req`,
    ],
    ['ingest ratio vigil / bare (median of rounds)', median(ratios).toFixed(2), `rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}`],
    ['kill -9 during ingest', `${ingest.durability.acked} acknowledged`, `${ingest.durability.stored} stored (none lost)`],
  ]
}

async function ingestOnly() {
  const rows = ingestRows(await ingestBench())
  console.log(
    `\nvigil bench, ingest only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.rounds} rounds of ${P.duration} s per server, body ${body.length} B\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

async function fullRun() {
  const ingest = await ingestBench()
  const big = await readBench('reads-full', 10)
  const small = await readBench('reads-tenth', 1)

  const ms = (n: number) => `${n} ms`
  const med = (side: 'vigil' | 'bare', k: 'rps' | 'p50' | 'p99' | 'p99_9' | 'max' | 'cpuUsPerReq' | 'peakRss' | 'peakAnon') =>
    median(ingest.runs.map((r) => r[side][k]))
  const rows: [string, string, string][] = ingestRows(ingest).slice(0, 3)
  for (const [label, r] of [
    [`${(big.total / 1e6).toFixed(1)} M samples`, big],
    [`${(small.total / 1e6).toFixed(1)} M samples`, small],
  ] as const) {
    for (const [k, v] of Object.entries(r.reads))
      rows.push([`${k} (${label})`, `p50 ${ms(v.p50)}`, `p99 ${ms(v.p99)}${v.p99Rounds.length > 1 ? ` (per round: ${v.p99Rounds.join(', ')})` : ''}`])
  }
  rows.push(
    [
      `RSS idle after start (empty db / ${(big.total / 1e6).toFixed(1)} M db)`,
      `${ingest.startRss.rss} MB / ${big.idleRss.rss} MB`,
      `anonymous ${ingest.startRss.anon} MB + file-backed ${ingest.startRss.file} MB; after the reads: ${big.afterReadsRss} MB`,
    ],
    [
      'RSS 1 s after registering 100 devices',
      `${ingest.registeredRss.rss} MB`,
      `anonymous ${ingest.registeredRss.anon} MB + file-backed ${ingest.registeredRss.file} MB; the checkpoint thread is running`,
    ],
    [
      'RSS under ingest load (peak, median of rounds)',
      `${med('vigil', 'peakRss')} MB`,
      `anonymous ${med('vigil', 'peakAnon')} MB; bare: ${med('bare', 'peakRss')} MB`,
    ],
    ['RSS idle again, 12 s after the load', `${ingest.quietRss.rss} MB`, `anonymous ${ingest.quietRss.anon} MB + file-backed ${ingest.quietRss.file} MB`],
    [
      'RSS idle again, 37 s after the load',
      `${ingest.laterRss.rss} MB`,
      `anonymous ${ingest.laterRss.anon} MB + file-backed ${ingest.laterRss.file} MB; the checkpoint thread has stopped`,
    ],
    [
      'bytes on disk per batch (hardware + network sample, row + index)',
      `${ingest.disk.bytesPerBatch} B`,
      `whole file per batch: ${ingest.disk.fileBytesPerBatch} B`,
    ],
    ingestRows(ingest)[3]!,
    ['seeding', `${big.seedSeconds} s for ${(big.total / 1e6).toFixed(1)} M`, `file ${big.fileMb} MB`],
    ...hostileRows(await hostileBench()),
    ...metricsRows(await metricsBench()),
    ...portalRows(await portalBench()),
    ...liveRows(await liveBench()),
    ...webRows(await webSizes()),
    ...alertsRows(await alertsBench()),
    ...webhookRows(await webhooksBench({ root, tmp, quick, log })),
  )
  console.log(
    `\nvigil bench${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.rounds} rounds of ${P.duration} s per server, body ${body.length} B\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

const ALERT_RULES_PER_CLIENT = 100

/** Ingest with 100 rules per client against the same without rules, on two servers up at once, rounds alternating. */
async function alertsBench() {
  const servers: Awaited<ReturnType<typeof startIngestServer>>[] = []
  try {
    for (const [name, rules] of [
      ['alerts-none', 0],
      ['alerts-rules', ALERT_RULES_PER_CLIENT],
    ] as const) {
      const dir = join(tmp, name)
      const db = freshDb(dir)
      const tenants = seedAccounts(db.sqlite, { tenants: 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
      seedAlertRules(
        db.sqlite,
        tenants.map((t) => t.clientId),
        rules,
        Date.now(),
      )
      db.close()
      servers.push(await startIngestServer(dir, tenants))
    }
    const [none, rules] = servers as [(typeof servers)[0], (typeof servers)[0]]
    log(`alerts: warm-up ${P.warmup}s each`)
    await drive(none.url, none.devices, none.server.pid, P.warmup)
    await drive(rules.url, rules.devices, rules.server.pid, P.warmup)
    const runs: { none: Run; rules: Run }[] = []
    for (let i = 0; i < P.rounds; i++) {
      log(`alerts round ${i + 1}/${P.rounds}: ${P.duration}s with ${ALERT_RULES_PER_CLIENT} rules per client, ${P.duration}s without`)
      const r = await drive(rules.url, rules.devices, rules.server.pid, P.duration)
      runs.push({ rules: r, none: await drive(none.url, none.devices, none.server.pid, P.duration) })
    }
    for (const s of servers) await stop(s.server)
    log('alerts: crossing → alert.firing latency')
    const latency = await runJson<{ crossings: number; load: number; bus: Lat; notify: Lat; cost: { rules: number; none: number; some: number } }>(
      join(root, 'scripts/bench/alerts.ts'),
      { crossings: quick ? 100 : 500, load: 32 },
      600_000,
    )
    return { runs, latency }
  } finally {
    for (const s of servers) await stop(s.server)
  }
}
type Lat = { p50: number; p99: number; max: number }

function alertsRows(a: Awaited<ReturnType<typeof alertsBench>>): [string, string, string][] {
  const med = (side: 'none' | 'rules', k: 'rps' | 'p99' | 'cpuUsPerReq') => median(a.runs.map((r) => r[side][k]))
  const ratios = a.runs.map((r) => r.rules.rps / r.none.rps)
  const ms = (n: number) => `${n.toFixed(2)} ms`
  const errors = a.runs.reduce((n, r) => n + r.rules.non2xx + r.rules.errors + r.none.non2xx + r.none.errors, 0)
  return [
    [
      `alerts: ingest with ${ALERT_RULES_PER_CLIENT} rules per client / none`,
      `${Math.round(med('rules', 'rps'))} / ${Math.round(med('none', 'rps'))} req/s (ratio ${median(ratios).toFixed(2)})`,
      `rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}; p99 ${med('rules', 'p99')} / ${med('none', 'p99')} ms; server CPU ${med('rules', 'cpuUsPerReq').toFixed(1)} / ${med('none', 'cpuUsPerReq').toFixed(1)} µs/req; non-2xx + errors ${errors}`,
    ],
    [
      `alerts: the sample observer's CPU per batch, ${a.latency.cost.rules} rules / none`,
      `${a.latency.cost.some.toFixed(1)} / ${a.latency.cost.none.toFixed(1)} µs`,
      "in-process, a hardware and a network sample through one client's rules (none trips), median of 7 rounds of 20,000; compare with the server CPU per ingest request above",
    ],
    [
      'alerts: sample crossing a threshold → alert.firing on the bus',
      `p99 ${ms(a.latency.bus.p99)}`,
      `p50 ${ms(a.latency.bus.p50)}, max ${ms(a.latency.bus.max)}; ${a.latency.crossings} crossings, in-process, ${a.latency.load} ingest requests in flight meanwhile`,
    ],
    [
      'alerts: sample crossing a threshold → notify port called',
      `p99 ${ms(a.latency.notify.p99)}`,
      `p50 ${ms(a.latency.notify.p50)}, max ${ms(a.latency.notify.max)}; the channels and webhooks modules deliver from there`,
    ],
  ]
}

async function alertsOnly() {
  const rows = alertsRows(await alertsBench())
  console.log(
    `\nvigil bench, alerts only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.rounds} rounds of ${P.duration} s per server\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

async function webhooksOnly() {
  const rows = webhookRows(await webhooksBench({ root, tmp, quick, log }))
  console.log(`\nvigil bench, webhooks only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

/** The collector's section runs in a process of its own (it loads the agent, not the server). */
function agentOnly() {
  const run = Bun.spawnSync([process.execPath, join(root, 'scripts/bench/agent.ts'), ...(quick ? ['--quick'] : [])], { stdout: 'inherit', stderr: 'inherit' })
  if (run.exitCode !== 0) throw new Error('agent bench failed')
}

/** The portal's section: chromium against a seeded dist/vigil, in a process of its own. */
async function browserOnly() {
  const r = await runJson<{
    devices: number
    dashboard: { cold: { fcp: number; cards: number }; warm: { fcp: number; cards: number }; fleetMs: number; renderMs: number }
    device: { charts: number; drawMs: number; drawMinMs: number; drawMaxMs: number }
    load: number
  }>(join(root, 'scripts/bench/browser.ts'), { quick }, 15 * 60_000)
  console.log(
    `\nvigil bench, portal in chromium${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, load average ${r.load}\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  console.log(
    `| dashboard of ${r.devices} devices: first contentful paint | ${r.dashboard.cold.fcp} ms cold / ${r.dashboard.warm.fcp} ms warm | from navigation start; warm: median of reloads with the assets cached |`,
  )
  console.log(
    `| dashboard of ${r.devices} devices: all cards on screen | ${r.dashboard.cold.cards} ms cold / ${r.dashboard.warm.cards} ms warm | the page's vigil:dashboard:devices mark; warm: GET /v1/clients/me/fleet ${r.dashboard.fleetMs} ms, its answer to the cards painted ${r.dashboard.renderMs} ms |`,
  )
  console.log(
    `| device page, 30 days: data arrived → every chart drawn | ${r.device.drawMs} ms | ${r.device.charts} charts; median of loads, fastest ${r.device.drawMinMs} ms, slowest ${r.device.drawMaxMs} ms |`,
  )
}

if (args.has('--web-only')) {
  // the bundle alone: no executable, no server
  const run = Bun.spawnSync([process.execPath, join(root, 'scripts/bench/web.ts')], { stdout: 'inherit', stderr: 'inherit' })
  rmSync(tmp, { recursive: true, force: true })
  process.exit(run.exitCode ?? 1)
}

try {
  if (!args.has('--no-build')) {
    log('building dist/vigil')
    const b = Bun.spawnSync([process.execPath, 'run', 'build'], { cwd: root, stdout: 'ignore', stderr: 'inherit' })
    if (b.exitCode !== 0) throw new Error('build failed')
  }
  if (args.has('--agent-only')) agentOnly()
  else if (args.has('--browser-only')) await browserOnly()
  else if (args.has('--portal-only')) await portalOnly()
  else if (args.has('--live-only')) await liveOnly()
  else if (args.has('--alerts-only')) await alertsOnly()
  else if (args.has('--webhooks-only')) await webhooksOnly()
  else await (args.has('--hostile-only') ? hostileOnly() : args.has('--metrics-only') ? metricsOnly() : args.has('--ingest-only') ? ingestOnly() : fullRun())
} finally {
  if (!args.has('--keep')) rmSync(tmp, { recursive: true, force: true })
  else log(`kept ${tmp}`)
}
