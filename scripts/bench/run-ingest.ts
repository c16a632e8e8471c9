/**
 * `bun run bench`, ingest: Vigil beside the group-commit baseline (scripts/bench/bare-group.ts:
 * Bun.serve, JSON.parse, one transaction per turn of the event loop), rounds alternating, both
 * posting the real sample of this machine; `--ingest-only`.
 */
import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { freePort, median, memoryMb, stop, waitReady } from './proc'
import { registerDevices } from './register'
import { seedAccounts, type SeededTenant } from './seed'
import { quick, P, DEVICES, CONNECTIONS, IDLE_AFTER_START_MS, root, tmp, log, ingestBody, startVigil, freshDb, drive, type Run, countBatches } from './common'
import { createHotStore } from '../../src/modules/metrics/metrics.hot.store'

/** Starts Vigil on a seeded data dir and registers the devices through the API, as collectors do. */
export async function startIngestServer(dir: string, tenants: SeededTenant[]) {
  const port = freePort()
  const server = startVigil(dir, port)
  const base = `http://127.0.0.1:${port}`
  await waitReady(`${base}/health`, server)
  // a fresh instance, idle: after the start-up shrink (at 0.5 s), before any request but /health
  await Bun.sleep(IDLE_AFTER_START_MS)
  const startRss = memoryMb(server.pid)!
  const devices = await registerDevices(
    base,
    tenants.flatMap((t) => t.keys),
  )
  return { server, url: `${base}/v1/metrics/batch`, devices, startRss }
}

/**
 * Vigil and the group-commit baseline side by side: both servers up at once, then rounds that drive
 * one and then the other, so drift on a shared machine hits both alike; medians are reported.
 */
export async function ingestBench() {
  const dir = join(tmp, 'ingest')
  const db = freshDb(dir)
  const tenants = seedAccounts(db.sqlite, { tenants: 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  db.close()
  const vigil = await startIngestServer(dir, tenants)
  const barePort = freePort()
  mkdirSync(join(tmp, 'bare'), { recursive: true })
  const bare = Bun.spawn([process.execPath, join(root, 'scripts/bench/bare-group.ts'), String(barePort), join(tmp, 'bare', 'bare.db')], {
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
    const hot = createHotStore(check.sqlite) // the samples not yet sealed are read from their records' files
    const rows = check.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples WHERE kinds & 3 = 3').get()!.n
    const bytes =
      check.sqlite
        .query<{ b: number }, []>(
          "SELECT sum(pgsize) AS b FROM dbstat WHERE name IN ('metric_samples', 'metric_samples_device_ts', 'metric_hot_0', 'metric_hot_1', 'metric_hot_2', 'metric_hot_3')",
        )
        .get()!.b + hot.stats().bytes
    const disk = {
      bytesPerBatch: Math.round(bytes / rows),
      fileBytesPerBatch: Math.round((statSync(join(dir, 'vigil.db')).size + hot.stats().bytes) / rows),
    }
    check.close()
    return { runs, startRss: vigil.startRss, registeredRss, quietRss, laterRss, disk, stored: rows, durability }
  } finally {
    await stop(vigil.server)
    await stop(bare)
  }
}

/** The ingest rows of the table: Vigil, the group-commit baseline, their ratio. */
export function ingestRows(ingest: Awaited<ReturnType<typeof ingestBench>>): [string, string, string][] {
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
      'ingest, group-commit baseline (Bun.serve, JSON.parse, one transaction per tick)',
      `${Math.round(med('bare', 'rps'))} req/s`,
      `p50 ${ms(med('bare', 'p50'))}, p99 ${ms(med('bare', 'p99'))}, p99.9 ${ms(med('bare', 'p99_9'))}, max ${ms(med('bare', 'max'))}, server CPU ${med('bare', 'cpuUsPerReq').toFixed(1)} µs/req`,
    ],
    ['ingest ratio vigil / group-commit baseline (median of rounds)', median(ratios).toFixed(2), `rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}`],
    ['kill -9 during ingest', `${ingest.durability.acked} acknowledged`, `${ingest.durability.stored} stored (none lost)`],
  ]
}

export async function ingestOnly() {
  const rows = ingestRows(await ingestBench())
  console.log(
    `\nvigil bench, ingest only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.rounds} rounds of ${P.duration} s per server, the real sample, ${(await ingestBody()).length} B\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}
