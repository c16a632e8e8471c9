/**
 * Bytes written to the disk per sample: dist/vigil on a fresh data dir, 100 devices registered
 * through the API, each posting one sample a second (paced, not as fast as possible), then a
 * wait long enough for the sealing job's next run and for the checkpoint thread to finish and
 * stop. write_bytes of /proc/PID/io over all of it (WAL, checkpoints, sealing) divided by the
 * samples. Samples sent with times of two hours ago are sealed within the window; samples of
 * now are not (their rows stay), which gives the rows-only figure beside it.
 *
 * `bun scripts/bench/storage-writes.ts [dist/vigil] --before <executable> [--runs 2] [--seconds 60]`: the
 * paced run with sealing in the window, this executable and the one before a change alternating, side
 * by side; `--seconds` posts for that long (each second a sample ten seconds on per device).
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { openDatabase } from '../../src/db/connection'
import { freePort, stop, waitReady } from './proc'
import { seedAccounts } from './seed'
import { registerDevices } from './register'
import { evolve, type Sample } from './storage-samples'

const writeBytes = (pid: number) => Number(/write_bytes:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1])

export async function writesBench(
  vigil: string,
  dir: string,
  base: Sample,
  opts: { devices: number; seconds: number; hoursAgo: number; settleMs?: number; spread?: boolean },
) {
  mkdirSync(dir, { recursive: true })
  // migrated by the executable measured (one from before a change refuses a newer schema)
  const migrated = Bun.spawnSync([vigil, 'migrate', '--data-dir', dir], { env: { ...process.env, VIGIL_LOG_LEVEL: 'warn' }, stdout: 'ignore', stderr: 'pipe' })
  if (migrated.exitCode !== 0) throw new Error(`${vigil} migrate failed: ${migrated.stderr.toString()}`)
  const db = openDatabase(join(dir, 'vigil.db'))
  const tenants = seedAccounts(db.sqlite, { tenants: Math.ceil(opts.devices / 10), keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  db.close()
  const port = freePort()
  const server = Bun.spawn([vigil, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], {
    env: {
      ...process.env,
      VIGIL_RATE_LIMIT_FREE: '10000000',
      VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
      VIGIL_MODE: 'service',
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_RETENTION_RAW: '3650d',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const url = `http://127.0.0.1:${port}`
  try {
    await waitReady(`${url}/health`, server)
    const devices = await registerDevices(url, tenants.flatMap((t) => t.keys).slice(0, opts.devices))
    // the run's samples end `hoursAgo` before now (10 s apart; never in the future, which ingest refuses)
    const start = Date.now() - opts.hoursAgo * 3_600_000 - opts.seconds * 10_000
    const bodies = evolve(base, opts.seconds, start, 10_000, 5).map((s) => JSON.stringify(s))
    // Before the window: each device's first sample (a device going online writes its row, its
    // event and the outbox, once, not per sample), then the next checkpoint (every 5 s), which
    // takes the registrations' and those writes into the database file.
    const first = JSON.stringify({ ...(JSON.parse(bodies[0]!) as Sample), recorded_at: new Date(Date.now() - 60_000).toISOString() })
    await Promise.all(
      devices.map((d) =>
        fetch(`${url}/v1/metrics/batch`, {
          method: 'POST',
          headers: { 'x-api-key': d.key, 'x-device-id': d.id, 'content-type': 'application/json' },
          body: first,
        }),
      ),
    )
    await Bun.sleep(6_000)
    const before = writeBytes(server.pid)
    // with VIGIL_BENCH_TRACE set: the bytes written in each 5 s of the run, to see which part of it writes them
    let last = before
    const trace = process.env.VIGIL_BENCH_TRACE
      ? setInterval(() => {
          const now = writeBytes(server.pid)
          console.error(`${new Date().toISOString().slice(14, 19)} write_bytes +${now - last}`)
          last = now
        }, 5_000)
      : null
    let sent = 0
    const t0 = performance.now()
    const post = async (d: { key: string; id: string }, s: number) => {
      const a = await fetch(`${url}/v1/metrics/batch`, {
        method: 'POST',
        headers: { 'x-api-key': d.key, 'x-device-id': d.id, 'content-type': 'application/json' },
        body: bodies[s]!,
      })
      if (a.status === 201) sent++
      else throw new Error(`ingest answered ${a.status}: ${await a.text()}`)
    }
    for (let s = 0; s < opts.seconds; s++) {
      if (opts.spread) {
        // each device at its own moment of the second, as collectors started at different times post
        await Promise.all(
          devices.map(async (d, i) => {
            const wait = t0 + (s + i / devices.length) * 1000 - performance.now()
            if (wait > 0) await Bun.sleep(wait)
            await post(d, s)
          }),
        )
      } else await Promise.all(devices.map((d) => post(d, s)))
      // paced: one sample per device per second of the run
      const wait = t0 + (s + 1) * 1000 - performance.now()
      if (wait > 0) await Bun.sleep(wait)
    }
    // the sealing job's next run (each minute at second 5), then the checkpoint thread's quiet 30 s.
    // Meanwhile each device posts a sample of now every 10 s, as a collector does: a device that
    // stops goes stale, then offline, and each change of status writes the device's row, its
    // event and the outbox in a transaction of its own (about 32 KB per device, measured), which
    // is no cost of a sample. Their bytes are counted, the samples are not: the figure errs high.
    const newest = JSON.parse(bodies.at(-1)!) as Sample
    const settleUntil = performance.now() + (opts.settleMs ?? 100_000)
    while (performance.now() < settleUntil) {
      const body = JSON.stringify({ ...newest, recorded_at: new Date().toISOString() })
      await Promise.all(
        devices.map((d) =>
          fetch(`${url}/v1/metrics/batch`, { method: 'POST', headers: { 'x-api-key': d.key, 'x-device-id': d.id, 'content-type': 'application/json' }, body }),
        ),
      )
      await Bun.sleep(Math.max(0, Math.min(10_000, settleUntil - performance.now())))
    }
    const written = writeBytes(server.pid) - before
    if (trace) clearInterval(trace)
    await stop(server)
    const check = new Database(join(dir, 'vigil.db'), { readonly: true })
    // blocks in files (their index) and as BLOBs (an executable from before the files)
    const hasIndex = check.query("SELECT 1 FROM sqlite_master WHERE name = 'metric_block_index'").get() !== null
    const blocks = check.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${hasIndex ? 'metric_block_index' : 'metric_blocks'}`).get()!.n
    check.close()
    return { samples: sent, written, perSample: written / sent, blocks }
  } finally {
    await stop(server)
  }
}

if (import.meta.main) {
  const { realSample } = await import('./storage-samples')
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const args = process.argv.slice(2)
  const flag = (name: string) => {
    const i = args.indexOf(name)
    return i < 0 ? undefined : args.splice(i, 2)[1]
  }
  const before = flag('--before')
  const runs = Number(flag('--runs') ?? 2)
  // longer runs meet more of the jobs' runs, so where they fall in the minute weighs less
  const seconds = Number(flag('--seconds') ?? 60)
  const vigil = args[0] ?? join(import.meta.dir, '../../dist/vigil')
  const real = await realSample(vigil)
  const scratch = mkdtempSync(join(tmpdir(), 'vigil-writes-'))
  const load = async () => (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
  try {
    for (let r = 0; r < runs; r++) {
      for (const [name, exe] of [['this', vigil], ...(before ? [['before', before]] : [])] as [string, string][]) {
        const at = await load()
        const w = await writesBench(exe, join(scratch, `${name}-${r}`), real, { devices: 100, seconds, hoursAgo: 2 })
        console.log(
          `${name} run ${r + 1}: ${Math.round(w.perSample)} B per sample (${w.samples} samples, ${w.blocks} blocks), load average ${at} → ${await load()}`,
        )
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}
