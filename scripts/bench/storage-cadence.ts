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
 * `bun scripts/bench/storage-cadence.ts [--hours N] [--sample file.json] [--vigil path]`: the real
 * sample of this machine (`vigil agent --once`) and the large server, each with the rollup tiers
 * rolled minute by minute as before and in the spans SQLite's store rolls them in (ROLL_STEPS).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import type { TierName } from '../../src/modules/metrics/metrics.fields'
import { runRetention, runRollup } from '../../src/modules/metrics/metrics.jobs'
import { ROLL_STEPS } from '../../src/modules/metrics/metrics.rollup'
import { testApp } from '../../test/helpers/app'
import { tenantWithDevices } from '../../test/helpers/metrics'
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
  /** the same over the last hour only, once sealing and every tier are in their steady state */
  steady: { ingest: number; rollup: number; seal: number; other: number; total: number }
}

export async function cadenceBench(base: Sample, opts: { devices: number; hours: number; steps?: Partial<Record<TierName, number>> }): Promise<CadenceResult> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cadence-'))
  try {
    const db = openDatabase(join(dir, 'vigil.db'))
    db.sqlite.run('PRAGMA wal_autocheckpoint = 0')
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
    const steadyTick = ticks - Math.round(3_600_000 / INTERVAL)
    for (let k = 0; k < ticks; k++) {
      if (k === steadyTick) steadyFrom = { ...phase }
      const tickEnd = T0 + (k + 1) * INTERVAL
      // every device's sample of this tick, posted at its end (none is from the future)
      t.clock.set(tickEnd)
      await measured('ingest', () =>
        Promise.all(
          a.deviceIds.map((id, d) =>
            t.handle(
              new Request('http://localhost/v1/metrics/batch', {
                method: 'POST',
                headers: { ...a.keyHeaders, 'x-device-id': id, 'content-type': 'application/json' },
                body: body(d, k),
              }),
            ),
          ),
        ),
      )
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
        if (sec === 35) await job('rollup', () => runRollup(t.modules.metricsJobs, { steps: opts.steps }))
        if (sec === 5) await job('seal', () => t.modules.sealer.run({ leaveFilling: true }))
        if (sec % 15 === 0) await job('other', async () => t.modules.presence.sweep())
        if (sec === 0 && minute === 17) await job('other', () => runRetention(t.modules.metricsJobs))
      }
      t.clock.set(tickEnd)
    }
    db.close()
    const samples = opts.devices * ticks
    const per = (p: typeof phase, n: number) => {
      const r = { ingest: p.ingest / n, rollup: p.rollup / n, seal: p.seal / n, other: p.other / n, total: 0 }
      r.total = r.ingest + r.rollup + r.seal + r.other
      return r
    }
    const from = steadyFrom ?? { ingest: 0, rollup: 0, seal: 0, other: 0 }
    const last = { ingest: phase.ingest - from.ingest, rollup: phase.rollup - from.rollup, seal: phase.seal - from.seal, other: phase.other - from.other }
    return { samples, ...per(phase, samples), steady: per(last, opts.devices * (ticks - steadyTick)) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Each tier minute by minute (its own width), as the job rolled them before ROLL_STEPS. */
export const MINUTE_BY_MINUTE: Partial<Record<TierName, number>> = { '1m': 60_000, '10m': 600_000 }

const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')} B`

export async function cadenceTable(base: Sample, hours: number, variants: { name: string; steps: Partial<Record<TierName, number>> }[]) {
  console.log(
    `\nBytes written per sample at a collector's cadence (100 devices, one sample each per 10 s, ${hours} h of simulated time; the last hour in brackets)`,
  )
  console.log('| sample | rollup tiers rolled | ingest | rollup | sealing | other | total |')
  console.log('|---|---|---|---|---|---|---|')
  for (const [name, sample] of [
    ['real sample', base],
    ['large server', largeServer(base)],
  ] as const) {
    for (const v of variants) {
      const r = await cadenceBench(sample, { devices: 100, hours, steps: v.steps })
      const cell = (k: 'ingest' | 'rollup' | 'seal' | 'other' | 'total') => `${fmt(r[k])} (${fmt(r.steady[k])})`
      console.log(`| ${name} | ${v.name} | ${cell('ingest')} | ${cell('rollup')} | ${cell('seal')} | ${cell('other')} | ${cell('total')} |`)
    }
  }
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name)
    return i === -1 ? undefined : process.argv[i + 1]
  }
  const file = arg('--sample')
  const base = file ? (JSON.parse(readFileSync(file, 'utf8')) as Sample) : await realSample(arg('--vigil') ?? join(import.meta.dir, '../../dist/vigil'))
  delete base.recorded_at
  const only = arg('--steps')
  const variants = [
    { name: 'minute by minute (before)', steps: MINUTE_BY_MINUTE },
    { name: '1m in 10 minutes, 10m in hours (ROLL_STEPS)', steps: ROLL_STEPS },
  ]
  await cadenceTable(base, Number(arg('--hours') ?? 2.5), only ? variants.filter((v) => v.name.startsWith(only)) : variants)
}
