/**
 * `bun run bench --budget-only [--reads-data <dir>] [--before <executable>] [--budget 300MB]`:
 * the disk budget applied to the reads bench's 10 M samples (seeded as `--reads-only` does, or the
 * dir it kept): each build starts on its own copy of the data with VIGIL_STORAGE_BUDGET set, and
 * its first budget run (at second 50 of a minute) brings the data down to the budget while a
 * client asks /health every 20 ms and the WAL file's size is read every 50 ms. Reported: the run's
 * time, its longest hold of the event loop (the job's own measure), the largest WAL file, /health's
 * answers during the run, the data before and after. `--before` runs another build first, on a
 * copy of the same data.
 */
import { cpSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { log, metricsToken, root, secret, tmp } from './common'
import { freePort, jsonLines, loadAverages, option, quantile, stop, waitReady } from './proc'
import { readsWorld } from './run-reads-scale'

interface Outcome {
  jobMs: number
  heldMs: number
  walPeakBytes: number
  health: { n: number; p50: number; p99: number; max: number; over50: number }
  usedBefore: number
  usedAfter: number
  fileAfter: number
}

async function side(exe: string, seed: string, budget: string): Promise<Outcome> {
  const dir = join(tmp, `budget-${Math.random().toString(36).slice(2, 8)}`)
  cpSync(seed, dir, { recursive: true })
  const port = freePort()
  const base = `http://127.0.0.1:${port}`
  const server = Bun.spawn([exe, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], {
    env: {
      ...process.env,
      VIGIL_JWT_SECRET: secret,
      VIGIL_METRICS_TOKEN: metricsToken,
      VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
      VIGIL_RETENTION_RAW: '3650d',
      VIGIL_STORAGE_BUDGET: budget,
      VIGIL_LOG_LEVEL: 'debug',
      VIGIL_LOG_FORMAT: 'json',
    },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const { lines, done: reading } = jsonLines(server.stdout as ReadableStream<Uint8Array>)
  const wal = join(dir, 'vigil.db-wal')
  let walPeak = 0
  const sizer = setInterval(() => {
    try {
      walPeak = Math.max(walPeak, statSync(wal).size)
    } catch {
      // no WAL file yet
    }
  }, 50)
  const budgetDone = () => lines.find((l) => l.msg === 'job done' && l.job === 'storage.budget')
  const times: { at: number; ms: number }[] = []
  try {
    await waitReady(`${base}/health`, server, 600)
    log(`budget: ${exe} started, waiting for its budget run (second 50 of the minute)`)
    while (!budgetDone()) {
      const t0 = performance.now()
      await (await fetch(`${base}/health`)).arrayBuffer()
      times.push({ at: Date.now(), ms: performance.now() - t0 })
      await Bun.sleep(20)
    }
  } finally {
    clearInterval(sizer)
    await stop(server)
    await reading
  }
  const done = budgetDone()!
  const removed = lines.find((l) => l.msg === 'storage budget: oldest data removed')
  if (!removed) throw new Error(`${exe}: the budget run removed nothing`)
  const endAt = Date.parse(String(done.time))
  const during = times
    .filter((t) => t.at >= endAt - Number(done.ms) && t.at <= endAt + 50)
    .map((t) => t.ms)
    .sort((a, b) => a - b)
  const out: Outcome = {
    jobMs: Number(done.ms),
    heldMs: Number(done.heldMs),
    walPeakBytes: walPeak,
    health: { n: during.length, p50: quantile(during, 0.5), p99: quantile(during, 0.99), max: during.at(-1) ?? 0, over50: during.filter((x) => x > 50).length },
    usedBefore: Number(removed.used_bytes_before),
    usedAfter: Number(removed.used_bytes_after),
    fileAfter: statSync(join(dir, 'vigil.db')).size,
  }
  rmSync(dir, { recursive: true, force: true })
  return out
}

export async function budgetOnly() {
  const seed = option('--reads-data') ?? join(tmp, 'reads-scale')
  const w = await readsWorld(seed)
  const budget = option('--budget') ?? '300MB'
  const sides = [{ name: 'vigil', exe: join(root, 'dist/vigil') }]
  const before = option('--before')
  if (before) sides.unshift({ name: 'before', exe: before })
  const load0 = loadAverages()
  const results: [string, Outcome][] = []
  for (const s of sides) results.push([s.name, await side(s.exe, seed, budget)])
  const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`
  const ms = (v: number) => v.toFixed(1)
  console.log(
    `\nvigil bench, the disk budget (VIGIL_STORAGE_BUDGET=${budget}) applied to ${(w.total / 1e6).toFixed(1)} M samples — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, load average ${load0} → ${loadAverages()}\n`,
  )
  console.log(
    '| build | data before → after | the run | its longest hold of the event loop | largest WAL file | /health during the run: answers, p50 / p99 / max, over 50 ms | vigil.db after |',
  )
  console.log('|---|---|---|---|---|---|---|')
  for (const [name, r] of results)
    console.log(
      `| ${name} | ${mb(r.usedBefore)} → ${mb(r.usedAfter)} | ${(r.jobMs / 1000).toFixed(1)} s | ${ms(r.heldMs)} ms | ${mb(r.walPeakBytes)} | ${r.health.n}, ${ms(r.health.p50)} / ${ms(r.health.p99)} / ${ms(r.health.max)} ms, ${r.health.over50} | ${mb(r.fileAfter)} |`,
    )
}
