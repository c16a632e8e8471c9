/**
 * `bun run bench [--quick] [--no-build] [--keep]`: the speed figures of docs/metrics.md.
 *
 * 1. builds dist/vigil and starts it on a temp data dir and a free port on 127.0.0.1;
 * 2. ingest: 100 devices (10 tenants × 10, registered through the API, one key each) posting
 *    ~1.5 KB POST /v1/metrics/batch bodies, driven by autocannon in a second process;
 * 3. the same load against scripts/bench/bare.ts (Bun.serve + JSON.parse + one INSERT);
 * 4. reads: 10 M samples (5 M hardware + 5 M network rows) seeded straight into a fresh
 *    database with the tiers rolled up, then history and summaries for one device; again at
 *    1/10 the size, to show the cost does not grow with the data;
 * 5. RSS idle and under load, bytes per sample on disk, a kill -9 in the middle of an ingest
 *    run (every acknowledged batch must be stored); then a table.
 * Everything runs on loopback; only processes started here are stopped.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../src/db/connection'
import { migrate } from '../src/db/migrate'
import { systemClock } from '../src/lib/clock'
import { accessTokens } from '../src/modules/users/users.tokens'
import { hardwareSample, networkSample } from '../test/modules/metrics/samples'
import { freePort, rssMb, runJson, stop, waitReady } from './bench/proc'
import { seedAccounts, seedSamples } from './bench/seed'

const args = new Set(process.argv.slice(2))
const quick = args.has('--quick')
const P = quick
  ? { duration: 3, warmup: 1, perDevice: 5_000, reads: 200 }
  : { duration: 10, warmup: 3, perDevice: 50_000, reads: 1_000 }
const DEVICES = 100
const CONNECTIONS = 100
const root = join(import.meta.dir, '..')
const secret = 'bench-secret-bench-secret-bench-secret!'
const tmp = mkdtempSync(join(tmpdir(), 'vigil-bench-'))
const log = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`)

interface Load {
  rps: number
  p50: number
  p99: number
  max: number
  ok: number
  non2xx: number
  errors: number
  timeouts: number
}
type Reads = Record<string, { p50: number; p99: number; status: number }>

const body = JSON.stringify({ hardware: hardwareSample(1), network: networkSample(1) })

function startVigil(dataDir: string, port: number) {
  return Bun.spawn([join(root, 'dist/vigil'), 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: {
      ...process.env,
      VIGIL_JWT_SECRET: secret,
      VIGIL_RATE_LIMIT_FREE: '10000000',
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_LOG_FORMAT: 'json',
      VIGIL_RETENTION_RAW: '3650d',
    },
    stdout: 'inherit',
    stderr: 'inherit',
  })
}

function freshDb(dir: string) {
  mkdirSync(dir, { recursive: true })
  const db = openDatabase(join(dir, 'vigil.db'))
  migrate(db.sqlite, Date.now())
  return db
}

/** Runs autocannon in its own process while sampling the server's RSS. */
async function drive(url: string, devices: { key: string; id: string }[], pid: number, duration: number) {
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid) ?? 0)), 250)
  try {
    const r = await runJson<Load>(join(root, 'scripts/bench/load.ts'), { url, body, devices, connections: CONNECTIONS, duration }, (duration + 60) * 1000)
    return { ...r, peakRss: peak }
  } finally {
    clearInterval(sampler)
  }
}

function countBatches(dir: string): number {
  const db = openDatabase(join(dir, 'vigil.db'))
  try {
    return db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
  } finally {
    db.sqlite.close()
  }
}

async function ingestBench() {
  const dir = join(tmp, 'ingest')
  const db = freshDb(dir)
  const tenants = seedAccounts(db.sqlite, { tenants: 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  db.close()
  const port = freePort()
  const server = startVigil(dir, port)
  const base = `http://127.0.0.1:${port}`
  try {
    await waitReady(`${base}/health`, server)
    // the collector flow: each key registers its device through the API
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
    await Bun.sleep(1000)
    const idleRss = rssMb(server.pid)
    log(`ingest: warm-up ${P.warmup}s`)
    await drive(`${base}/v1/metrics/batch`, devices, server.pid, P.warmup)
    log(`ingest: ${P.duration}s, ${CONNECTIONS} connections, ${DEVICES} devices`)
    const load = await drive(`${base}/v1/metrics/batch`, devices, server.pid, P.duration)
    // durability: kill -9 in the middle of a run; every acknowledged batch must be on disk
    const before = countBatches(dir)
    const running = drive(`${base}/v1/metrics/batch`, devices, server.pid, 3)
    await Bun.sleep(1500)
    server.kill('SIGKILL')
    const killed = await running
    await server.exited
    const durability = { acked: killed.ok, stored: countBatches(dir) - before }
    if (durability.stored < durability.acked) throw new Error(`kill -9 lost acknowledged batches: ${JSON.stringify(durability)}`)
    const check = openDatabase(join(dir, 'vigil.db'))
    check.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
    const rows = check.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples WHERE kinds = 3').get()!.n
    const bytes = check.sqlite.query<{ b: number }, []>("SELECT sum(pgsize) AS b FROM dbstat WHERE name IN ('metric_samples', 'metric_samples_device_ts')").get()!.b
    const disk = {
      bytesPerBatch: Math.round(bytes / rows),
      fileBytesPerBatch: Math.round(statSync(join(dir, 'vigil.db')).size / rows),
    }
    check.close()
    return { load, idleRss, disk, stored: rows, durability }
  } finally {
    await stop(server)
  }
}

async function bareBench() {
  const port = freePort()
  const dir = join(tmp, 'bare')
  mkdirSync(dir, { recursive: true })
  const proc = Bun.spawn([process.execPath, join(root, 'scripts/bench/bare.ts'), String(port), join(dir, 'bare.db')], { stdout: 'ignore', stderr: 'inherit' })
  try {
    await waitReady(`http://127.0.0.1:${port}/`, proc)
    const devices = Array.from({ length: DEVICES }, (_, i) => ({ key: `k${i}`, id: `d${i}` }))
    log('bare: warm-up and run')
    await drive(`http://127.0.0.1:${port}/v1/metrics/batch`, devices, proc.pid, P.warmup)
    return await drive(`http://127.0.0.1:${port}/v1/metrics/batch`, devices, proc.pid, P.duration)
  } finally {
    await stop(proc)
  }
}

async function readBench(name: string, tenantCount: number) {
  const dir = join(tmp, name)
  const db = freshDb(dir)
  const now = Date.now()
  const tenants = seedAccounts(db.sqlite, { tenants: tenantCount, keysPerTenant: 1, maxDevices: 10, devicesPerTenant: 10, now })
  const seqs = tenants.flatMap((t) => t.devices.map((d) => d.seq))
  const total = seqs.length * P.perDevice * 2
  log(`${name}: seeding ${(total / 1e6).toFixed(1)} M samples`)
  const t0 = performance.now()
  await seedSamples(db.sqlite, seqs, P.perDevice, now)
  const seedSeconds = Math.round((performance.now() - t0) / 1000)
  db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  const port = freePort()
  const server = startVigil(dir, port)
  const base = `http://127.0.0.1:${port}`
  try {
    await waitReady(`${base}/health`, server)
    await Bun.sleep(1000)
    const idleRss = rssMb(server.pid)
    const t = tenants[0]!
    const token = await accessTokens(secret, systemClock).sign({ userId: t.userId, clientId: t.clientId, role: 'admin' })
    const id = t.devices[0]!.id
    const reads = await runJson<Reads>(
      join(root, 'scripts/bench/reads.ts'),
      {
        base,
        token,
        n: P.reads,
        warmup: 50,
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

try {
  if (!args.has('--no-build')) {
    log('building dist/vigil')
    const b = Bun.spawnSync([process.execPath, 'run', 'build'], { cwd: root, stdout: 'ignore', stderr: 'inherit' })
    if (b.exitCode !== 0) throw new Error('build failed')
  }
  const ingest = await ingestBench()
  const bare = await bareBench()
  const big = await readBench('reads-full', 10)
  const small = await readBench('reads-tenth', 1)

  const ms = (n: number) => `${n} ms`
  const rows: [string, string, string][] = [
    ['ingest POST /v1/metrics/batch (vigil)', `${Math.round(ingest.load.rps)} req/s`, `p50 ${ms(ingest.load.p50)}, p99 ${ms(ingest.load.p99)}, non-2xx ${ingest.load.non2xx}, errors ${ingest.load.errors}`],
    ['ingest, bare Bun.serve + 1 INSERT', `${Math.round(bare.rps)} req/s`, `p50 ${ms(bare.p50)}, p99 ${ms(bare.p99)}`],
    ['ingest ratio vigil / bare', (ingest.load.rps / bare.rps).toFixed(2), ''],
  ]
  for (const [label, r] of [[`${(big.total / 1e6).toFixed(1)} M samples`, big], [`${(small.total / 1e6).toFixed(1)} M samples`, small]] as const) {
    for (const [k, v] of Object.entries(r.reads)) rows.push([`${k} (${label})`, `p50 ${ms(v.p50)}`, `p99 ${ms(v.p99)}`])
  }
  rows.push(
    ['RSS idle (empty db / 10 M db)', `${ingest.idleRss} MB / ${big.idleRss} MB`, `after the reads: ${big.afterReadsRss} MB`],
    ['RSS under ingest load (peak)', `${ingest.load.peakRss} MB`, `bare: ${bare.peakRss} MB`],
    ['bytes on disk per batch (hardware + network sample, row + index)', `${ingest.disk.bytesPerBatch} B`, `whole file per batch: ${ingest.disk.fileBytesPerBatch} B`],
    ['kill -9 during ingest', `${ingest.durability.acked} acknowledged`, `${ingest.durability.stored} stored (none lost)`],
    ['seeding', `${big.seedSeconds} s for ${(big.total / 1e6).toFixed(1)} M`, `file ${big.fileMb} MB`],
  )
  console.log(`\nvigil bench${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.duration} s runs, body ${body.length} B\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
} finally {
  if (!args.has('--keep')) rmSync(tmp, { recursive: true, force: true })
  else log(`kept ${tmp}`)
}
