/**
 * Bytes written per sample at a collector's real cadence, in process, on a simulated clock: 100
 * devices each post one sample per 10 s of simulated time (the real sample, moved along in time as
 * storage-samples.ts does, each device at its own second of the ten) through the real ingest path
 * (`POST /v1/metrics/batch`, the group commit), for `hours` of simulated time; the hub's jobs run
 * at their simulated times (rollup at second 35 of each minute, sealing at second 5, retention at
 * minute 17 and the devices' status every 15 s), the checkpoint every 5 s. write_bytes of
 * /proc/self/io per sample, split by phase: ingest (the records' files, the groups' commits with
 * last_seen_at, their checkpoints), rollup and sealing (each run, then a checkpoint of what it wrote)
 * and other (the status sweep, retention). The paced bench (storage-writes.ts) posts samples 10 s
 * apart once a second, so each rollup run adds ten minutes per device and hides what a run costs
 * when it adds one.
 *
 * `--hours` defaults to 10: what sealing writes grows with the raw table for the first hours and
 * settles by then.
 * `bun scripts/bench/storage-cadence.ts [--hours N] [--sample file.json | --vigil path]
 * [--variants minute,ten,steps,half,hours] [--samples real,large]` (or `bun run bench --cadence-only`):
 * the real sample of this machine (`vigil agent --once`) and the large server, each with the
 * rollup tiers rolled bucket by bucket as before and in the spans SQLite's store rolls them in
 * (ROLL_STEPS), or the other spans measured (VARIANTS). `--lag-reads [--devices N]`: what the
 * reads completing the 1-minute tier cost as it lags (lagReads). `--paced --before <executable>`: the
 * paced run of storage-writes.ts of that executable and this one side by side (pacedSideBySide).
 * `--seal-frames`: the WAL frames the sealing runs of the steady hour wrote, by table and index
 * (sealFramesTable), the real sample and the large server.
 */
import type { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import type { TierName } from '../../src/modules/metrics/metrics.fields'
import { runRetention, runRollup } from '../../src/modules/metrics/metrics.jobs'
import { ROLL_STEPS } from '../../src/modules/metrics/metrics.rollup.store'
import { testApp } from '../../test/helpers/app'
import { postEach, tenantWithDevices } from '../../test/helpers/metrics'
import { evolve, largeServer, realSample, type Sample } from './storage-samples'

const writeBytes = () => Number(/write_bytes:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1])

const SECOND = 1000
const INTERVAL = 10 * SECOND

export interface CadenceResult {
  samples: number
  /** bytes written per sample, by phase */
  ingest: number
  rollup: number
  seal: number
  other: number
  total: number
  /** what the rollup tiers keep per sample at the end (rows and index entries) */
  tiersKept: number
  /** the same over the last hour only, once sealing and every tier are in their steady state */
  steady: { ingest: number; rollup: number; seal: number; other: number; total: number }
  /** with `sealFrames`: the WAL frames the sealing runs of the last hour wrote, by table or index */
  sealFrames?: Map<string, number>
  /** with `rollupFrames`: the WAL frames the rollup runs of the last hour wrote, by table or index */
  rollupFrames?: Map<string, number>
}

export async function cadenceBench(
  base: Sample,
  opts: {
    devices: number
    hours: number
    steps?: Partial<Record<TierName, number>>
    sealFrames?: boolean
    /** count the WAL frames of the rollup runs of the last hour by table or index (CadenceResult.rollupFrames) */
    rollupFrames?: boolean
    /** run on the database before the hub is made on it (a form of the tiers tried by storage-minutes.ts) */
    setup?: (db: ReturnType<typeof openDatabase>) => void
  },
): Promise<CadenceResult> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cadence-'))
  try {
    const db = openDatabase(join(dir, 'vigil.db'))
    db.sqlite.run('PRAGMA wal_autocheckpoint = 0')
    opts.setup?.(db)
    const t = testApp({ db, config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never })
    const T0 = Date.UTC(2026, 0, 1)
    t.clock.set(T0)
    const a = await tenantWithDevices(t, opts.devices)
    const ticks = Math.round((opts.hours * 3_600_000) / INTERVAL)
    // one walk of readings per device would cost ticks × devices JSON texts: the devices share
    // one walk, each a tick apart from the next, so consecutive samples of a device still move
    // as one machine's do and no two devices send the same text at the same moment
    const walk = evolve(base, ticks + opts.devices, T0, INTERVAL, 5)
    const body = (d: number, k: number) => {
      const s = walk[k + d]!
      return JSON.stringify({ ...s, recorded_at: new Date(T0 + k * INTERVAL + (d % 10) * SECOND).toISOString() })
    }
    const checkpoint = () => db.sqlite.run('PRAGMA wal_checkpoint(PASSIVE)')
    checkpoint()
    const phase = { ingest: 0, rollup: 0, seal: 0, other: 0 }
    const measured = async (name: keyof typeof phase, f: () => Promise<unknown> | unknown) => {
      const w = writeBytes()
      await f()
      phase[name] += writeBytes() - w
    }
    let steadyFrom: typeof phase | null = null
    const frames = new Map<string, number>()
    const rollFrames = new Map<string, number>()
    const steadyTick = ticks - Math.round(3_600_000 / INTERVAL)
    for (let k = 0; k < ticks; k++) {
      if (k === steadyTick) steadyFrom = { ...phase }
      const tickEnd = T0 + (k + 1) * INTERVAL
      // every device's sample of this tick, posted at its end (none is from the future)
      t.clock.set(tickEnd)
      await measured('ingest', () => postEach(t, a, (d) => body(d, k)))
      // the jobs whose second fell within the tick, at their own times
      for (let s = tickEnd - INTERVAL + SECOND; s <= tickEnd; s += SECOND) {
        const sec = Math.floor(s / SECOND) % 60
        const minute = Math.floor(s / 60_000) % 60
        t.clock.set(s)
        if (sec % 5 === 0) await measured('ingest', checkpoint)
        // each job's run, then a checkpoint of what it wrote
        const job = async (name: keyof typeof phase, run: () => Promise<unknown>) =>
          measured(name, async () => {
            await run()
            checkpoint()
          })
        if (sec === 35) {
          if (opts.rollupFrames) db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
          await job('rollup', async () => {
            await runRollup(t.modules.metricsJobs, { steps: opts.steps })
            if (opts.rollupFrames && k >= steadyTick) walFrames(db.sqlite, join(dir, 'vigil.db-wal'), rollFrames)
          })
        }
        if (sec === 5) {
          // the log emptied first, so that what the run wrote is the log's frames
          if (opts.sealFrames) db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
          await job('seal', async () => {
            await t.modules.sealer.run({ leaveFilling: true })
            if (opts.sealFrames && k >= steadyTick) walFrames(db.sqlite, join(dir, 'vigil.db-wal'), frames)
          })
        }
        if (sec % 15 === 0) await job('other', async () => t.modules.presence.sweep())
        if (sec === 0 && minute === 17) await job('other', () => runRetention(t.modules.metricsJobs))
      }
      t.clock.set(tickEnd)
    }
    // what the tiers keep (rows and index entries, without the pages' free space)
    const kept = db.sqlite
      .query<{ b: number }, []>(
        "SELECT sum(payload) AS b FROM dbstat WHERE name GLOB 'metric_hw_*' OR name GLOB 'metric_net_*' OR name GLOB 'sqlite_autoindex_metric_hw_*' OR name GLOB 'sqlite_autoindex_metric_net_*'",
      )
      .get()!.b
    db.close()
    const samples = opts.devices * ticks
    const per = (p: typeof phase, n: number) => {
      const r = { ingest: p.ingest / n, rollup: p.rollup / n, seal: p.seal / n, other: p.other / n, total: 0 }
      r.total = r.ingest + r.rollup + r.seal + r.other
      return r
    }
    const from = steadyFrom ?? { ingest: 0, rollup: 0, seal: 0, other: 0 }
    const last = { ingest: phase.ingest - from.ingest, rollup: phase.rollup - from.rollup, seal: phase.seal - from.seal, other: phase.other - from.other }
    return {
      samples,
      ...per(phase, samples),
      steady: per(last, opts.devices * (ticks - steadyTick)),
      tiersKept: kept / samples,
      sealFrames: opts.sealFrames ? frames : undefined,
      rollupFrames: opts.rollupFrames ? rollFrames : undefined,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Counts the frames of the write-ahead log by the table or index each page belongs to (dbstat;
 * page 1 is the header, a page dbstat does not name is a free-list or pointer-map page). Read
 * before the checkpoint that follows: the log holds what the run wrote since it was emptied.
 */
export function walFrames(sqlite: Database, wal: string, into: Map<string, number>) {
  const page = sqlite.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
  const names = new Map(
    sqlite
      .query<{ name: string; pageno: number }, []>('SELECT name, pageno FROM dbstat')
      .all()
      .map((r) => [r.pageno, r.name]),
  )
  const buf = readFileSync(wal)
  // a 32-byte header, then frames: a 24-byte header (the page number first) and the page
  for (let o = 32; o + 24 + page <= buf.length; o += 24 + page) {
    const n = buf.readUInt32BE(o)
    const name = n === 1 ? 'the header (page 1)' : (names.get(n) ?? 'free list or pointer map')
    into.set(name, (into.get(name) ?? 0) + 1)
  }
}

/** What the sealing runs of the steady hour wrote to the log, by table and index (`--seal-frames`). */
async function sealFramesTable(base: Sample, name: string) {
  const devices = 100
  const r = await cadenceBench(base, { devices, hours: 2.5, sealFrames: true })
  const samples = devices * 360
  console.log(
    `\nWAL frames of the sealing runs in the steady last hour, ${name} (100 devices, one sample each per 10 s; each frame is copied again by the checkpoint)`,
  )
  console.log('| table or index | frames | bytes per sample (pages) |')
  console.log('|---|---|---|')
  for (const [n, c] of [...r.sealFrames!].sort((a, b) => b[1] - a[1])) console.log(`| ${n} | ${c} | ${fmt((c * 4096) / samples)} |`)
  console.log(`sealing in all: ${fmt(r.steady.seal)} per sample`)
}

/** Each tier minute by minute (its own width), as the job rolled them before ROLL_STEPS. */
export const MINUTE_BY_MINUTE: Partial<Record<TierName, number>> = { '1m': 60_000, '10m': 600_000 }

const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')} B`

/** The spans compared, by name (`--variants`): the default compares the job as it was with ROLL_STEPS. */
export const VARIANTS: Record<string, { name: string; steps: Partial<Record<TierName, number>> }> = {
  minute: { name: 'each tier bucket by bucket (before)', steps: MINUTE_BY_MINUTE },
  ten: { name: '1m in whole 10 minutes', steps: { '1m': 600_000, '10m': 600_000 } },
  steps: { name: '1m in whole 10 minutes, 10m in whole hours (ROLL_STEPS, taken)', steps: ROLL_STEPS },
  half: { name: '1m in whole half hours, 10m in whole hours', steps: { '1m': 1_800_000, '10m': 3_600_000 } },
  hours: { name: '1m and 10m in whole hours', steps: { '1m': 3_600_000, '10m': 3_600_000 } },
}

export async function cadenceTable(base: Sample, hours: number, variants: (typeof VARIANTS)[string][], samples = ['real', 'large']) {
  console.log(
    `\nBytes written per sample at a collector's cadence (100 devices, one sample each per 10 s, ${hours} h of simulated time; the last hour in brackets)`,
  )
  console.log('| sample | rollup tiers rolled | ingest | rollup | sealing | other | total | the tiers keep |')
  console.log('|---|---|---|---|---|---|---|---|')
  const all = { real: ['real sample', base], large: ['large server', largeServer(base)] } as const
  for (const [name, sample] of samples.map((k) => all[k as keyof typeof all])) {
    for (const v of variants) {
      const r = await cadenceBench(sample, { devices: 100, hours, steps: v.steps })
      const cell = (k: 'ingest' | 'rollup' | 'seal' | 'other' | 'total') => `${fmt(r[k])} (${fmt(r.steady[k])})`
      console.log(
        `| ${name} | ${v.name} | ${cell('ingest')} | ${cell('rollup')} | ${cell('seal')} | ${cell('other')} | ${cell('total')} | ${fmt(r.tiersKept)} |`,
      )
    }
  }
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name)
    return i === -1 ? undefined : process.argv[i + 1]
  }
  if (process.argv.includes('--lag-reads')) {
    await lagReads(Number(arg('--devices') ?? 200), 21)
    process.exit(0)
  }
  const file = arg('--sample')
  if (process.argv.includes('--seal-frames')) {
    const base = file ? (JSON.parse(readFileSync(file, 'utf8')) as Sample) : await realSample(arg('--vigil') ?? join(import.meta.dir, '../../dist/vigil'))
    delete base.recorded_at
    await sealFramesTable(base, 'real sample')
    await sealFramesTable(largeServer(base), 'large server')
    process.exit(0)
  }
  const vigil = arg('--vigil') ?? join(import.meta.dir, '../../dist/vigil')
  const before = arg('--before')
  if (process.argv.includes('--paced')) {
    if (!before) raise('--paced compares two executables: --before <path>')
    await pacedSideBySide(before, vigil, file ? (JSON.parse(readFileSync(file, 'utf8')) as Sample) : await realSample(vigil))
    process.exit(0)
  }
  const base = file ? (JSON.parse(readFileSync(file, 'utf8')) as Sample) : await realSample(vigil)
  delete base.recorded_at
  const variants = (arg('--variants') ?? 'minute,steps')
    .split(',')
    .map((v) => VARIANTS[v] ?? raise(`unknown variant ${v}: ${Object.keys(VARIANTS).join(', ')}`))
  await cadenceTable(base, Number(arg('--hours') ?? 10), variants, (arg('--samples') ?? 'real,large').split(','))
}

function raise(msg: string): never {
  throw new Error(msg)
}

/**
 * What the reads that complete the 1-minute tier cost as it lags (the minutes it has not rolled are
 * read from raw samples): `devices` devices with 70 minutes of samples every 10 s, the tier rolled to
 * the minute before now (as when each minute was rolled), to ten minutes, half an hour and an hour
 * before (the most whole spans of each leave it behind); µs per fleet overview's CPU
 * sparklines (fleetFigures), per summary of 6 h and per series of 6 h at 1m (one device), median of
 * `rounds`, alternating.
 */
export async function lagReads(devices: number, rounds: number) {
  const { fleetFigures } = await import('../../src/modules/metrics/metrics.fleet')
  const t = testApp({ config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never })
  const T0 = Date.UTC(2026, 0, 1)
  t.clock.set(T0 + 70 * 60_000)
  const a = await tenantWithDevices(t, devices)
  const hw = { cpu_percent: 12.5, ram_percent: 40, disk_used_percent: 50 }
  for (const id of a.deviceIds) {
    const items = Array.from({ length: 420 }, (_, i) => ({
      recorded_at: new Date(T0 + i * INTERVAL).toISOString(),
      hardware: { ...hw, cpu_percent: (i * 7) % 100 },
    }))
    const r = await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: { ...a.keyHeaders, 'x-device-id': id } })
    if (r.status !== 201) throw new Error(`bulk ${r.status}`)
  }
  const now = T0 + 70 * 60_000 + 40 * SECOND
  t.clock.set(now)
  await runRollup(t.modules.metricsJobs, { steps: MINUTE_BY_MINUTE })
  const seqs = t.db.sqlite
    .query<{ seq: number }, []>('SELECT seq FROM devices')
    .all()
    .map((r) => r.seq)
  const setDone = (ts: number) => t.db.sqlite.run("UPDATE metric_rollups SET done_until = ? WHERE kind = 'hardware' AND tier = '1m'", [ts])
  const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
  const get = async (path: string) => {
    const r = await t.handle(new Request(`http://localhost${path}`, { headers }))
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`)
    await r.arrayBuffer()
  }
  const iso = (ms: number) => new Date(ms).toISOString()
  const reads = {
    sparklines: () => fleetFigures(t.modules.metrics, seqs, now),
    summary: () => get(`/v1/metrics/summary/${a.deviceId}?hours=6`),
    series: () =>
      get(`/v1/metrics/series/${a.deviceId}?kind=hardware&fields=cpu_percent,ram_percent&resolution=1m&start=${iso(now - 6 * 3_600_000)}&end=${iso(now)}`),
  }
  const lags = { 'a minute': 70, 'ten minutes': 61, 'half an hour': 40, 'an hour': 10 }
  const us: Record<string, number[]> = {}
  for (let r = 0; r < rounds; r++) {
    for (const [lag, minute] of Object.entries(lags)) {
      setDone(T0 + minute * 60_000)
      for (const [name, f] of Object.entries(reads)) {
        const s = performance.now()
        await f()
        ;(us[`${name}|${lag}`] ??= []).push((performance.now() - s) * 1000)
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
  console.log(`\nReads completing the 1m tier from raw samples as it lags (${devices} devices for the sparklines; median µs of ${rounds})`)
  console.log(`| read | ${Object.keys(lags).join(' behind | ')} behind |`)
  console.log(
    `|---|${Object.keys(lags)
      .map(() => '---')
      .join('|')}|`,
  )
  for (const name of Object.keys(reads))
    console.log(
      `| ${name} | ${Object.keys(lags)
        .map((lag) => Math.round(median(us[`${name}|${lag}`]!)).toLocaleString('en-US'))
        .join(' | ')} |`,
    )
}

/**
 * The paced run of storage-writes.ts (100 devices × one sample a second for 60 s, samples two
 * hours old, sealed in the window) of two executables at once, side by side: what the spans change
 * where each run adds ten minutes per device.
 */
async function pacedSideBySide(before: string, after: string, base: Sample) {
  const { writesBench } = await import('./storage-writes')
  delete base.recorded_at
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cadence-paced-'))
  try {
    const opts = { devices: 100, seconds: 60, hoursAgo: 2 }
    const [b, a] = await Promise.all([writesBench(before, join(dir, 'before'), base, opts), writesBench(after, join(dir, 'after'), base, opts)])
    console.log(`paced, samples two hours old: ${fmt(b.perSample)} per sample (${before}), ${fmt(a.perSample)} per sample (${after})`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
