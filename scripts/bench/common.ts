/** What every section of `bun run bench` shares: the options, the temp dir, starting dist/vigil, driving load. */
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { cpuMs, freePort, memoryMb, runJson } from './proc'
import { insertSamples, seedAccounts, seedSamples } from './seed'
import { rollupAll } from '../../src/modules/metrics/metrics.rollup'
import { createRollupStore } from '../../src/modules/metrics/metrics.rollup.store'
import { createHotStore } from '../../src/modules/metrics/metrics.hot.store'
import { realSampleBody } from './storage-samples'

export const args = new Set(process.argv.slice(2))
export const quick = args.has('--quick')
export const P = quick
  ? { rounds: 2, duration: 3, warmup: 1, perDevice: 5_000, reads: 200, readRounds: 1, hostileRounds: 1 }
  : { rounds: 5, duration: 6, warmup: 3, perDevice: 50_000, reads: 1_000, readRounds: 5, hostileRounds: 2 }
export const DEVICES = 100
export const CONNECTIONS = 100
/** idle memory is read this long after /health first answers: after the start-up shrink at 0.5 s (scripts/bench/run-rss.ts) */
export const IDLE_AFTER_START_MS = 2_000
export const root = join(import.meta.dir, '../..')
export const secret = 'bench-secret-bench-secret-bench-secret!'
export const metricsToken = 'bench-metrics-token-bench-metrics-token'
export const tmp = mkdtempSync(join(tmpdir(), 'vigil-bench-'))
export const log = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`)

export interface Load {
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
export type Reads = Record<string, { p50: number; p99: number; p99Rounds: number[]; status: number }>

/** What the ingest loads post: the real sample of this machine (`dist/vigil agent --once`), read on first use. */
export const ingestBody = () => realSampleBody(join(root, 'dist/vigil'))

/** dist/vigil (or another build, `bin`) on a data dir and a loopback port, with the bench's settings. */
/** `more`: extra environment, and stderr piped to the caller (a bench reading the hub's own log) */
export function startVigil(dataDir: string, port: number, bin = join(root, 'dist/vigil'), more: { env?: Record<string, string>; stderr?: 'pipe' } = {}) {
  return Bun.spawn([bin, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
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
      ...more.env,
    },
    stdout: 'inherit',
    stderr: more.stderr ?? 'inherit',
  })
}

/**
 * A fresh database of `tenantCount` tenants × 10 devices, `perDevice` samples each, and a server
 * started on it (not yet ready). `fleet` adds one more tenant with that many devices and samples.
 */
export async function seededServer(name: string, tenantCount: number, perDevice: number, fleet?: { devices: number; perDevice: number }) {
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
    await insertSamples(db.sqlite, seqs, perDevice, now)
    const fleetSeqs = big.devices.map((d) => d.seq)
    await insertSamples(db.sqlite, fleetSeqs, fleet.perDevice, now)
    await rollupAll(createRollupStore(db.sqlite), { now: now + 60_000, devices: [...seqs, ...fleetSeqs] })
  } else await seedSamples(db.sqlite, seqs, perDevice, now)
  db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  const port = freePort()
  return { dir, tenants, fleet: big, server: startVigil(dir, port), base: `http://127.0.0.1:${port}` }
}

export function freshDb(dir: string) {
  mkdirSync(dir, { recursive: true })
  const db = openDatabase(join(dir, 'vigil.db'))
  migrate(db.sqlite, Date.now())
  return db
}

/**
 * A data dir whose schema the executable itself made (`vigil migrate`), opened for seeding: an
 * earlier build refuses a database a newer one migrated, so a side-by-side run seeds each build's own.
 */
export function freshDbOf(exe: string, dir: string) {
  mkdirSync(dir, { recursive: true })
  const migrated = Bun.spawnSync([exe, 'migrate', '--data-dir', dir], { env: { ...process.env, VIGIL_JWT_SECRET: secret }, stdout: 'ignore', stderr: 'pipe' })
  if (migrated.exitCode !== 0) throw new Error(`${exe} migrate failed: ${migrated.stderr.toString()}`)
  return openDatabase(join(dir, 'vigil.db'))
}

/** Runs autocannon in its own process while sampling the server's RSS and CPU time. */
export async function drive(url: string, devices: { key: string; id: string }[], pid: number, duration: number) {
  let peak = 0
  let peakAnon = 0
  const sampler = setInterval(() => {
    const m = memoryMb(pid)
    if (m && m.rss > peak) [peak, peakAnon] = [m.rss, m.anon]
  }, 250)
  const cpu0 = cpuMs(pid) ?? 0
  try {
    const r = await runJson<Load>(
      join(root, 'scripts/bench/load.ts'),
      { url, body: await ingestBody(), devices, connections: CONNECTIONS, duration },
      (duration + 60) * 1000,
    )
    const cpu = (cpuMs(pid) ?? cpu0) - cpu0
    return { ...r, peakRss: peak, peakAnon, cpuUsPerReq: r.ok ? (cpu * 1000) / r.ok : 0 }
  } finally {
    clearInterval(sampler)
  }
}
export type Run = Awaited<ReturnType<typeof drive>>

export function countBatches(dir: string): number {
  const db = openDatabase(join(dir, 'vigil.db'))
  try {
    createHotStore(db.sqlite) // the samples not yet sealed are read from their records' files
    return db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
  } finally {
    db.sqlite.close()
  }
}
