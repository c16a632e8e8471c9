/**
 * `bun run bench [--quick] [--no-build] [--keep]`: the speed figures of the README.
 *
 * 1. builds dist/vigil and starts it on a temp data dir and a free port on 127.0.0.1, next to
 *    scripts/bench/bare-group.ts (Bun.serve + JSON.parse + one transaction per turn of the event loop);
 * 2. ingest: 100 devices (10 tenants × 10, registered through the API, one key each) posting
 *    the real sample (`dist/vigil agent --once` on this machine, about 3.7 KB) to
 *    POST /v1/metrics/batch, driven by autocannon in a second process;
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
 * 11. idle memory (scripts/bench/run-rss.ts): dist/vigil after start, after registering 100
 *     devices and 45 s after start, beside an empty Bun.serve built the same way (the floor);
 *     `--rss-only` runs this section alone, `--rss-against label=path,…` adds other builds to it.
 * `--status-only` runs the public status page's figures (scripts/bench/run-status.ts: 50 checks with 90 days
 * of history, from the render cache and built for each request); not part of the full run.
 * `--containers-only` runs the containers' figures (scripts/bench/run-containers.ts: ingest with and without
 * 10 containers per batch, the fleet's containers for 500 devices × 10); not part of the full run.
 * `--checks-only [--checks-minutes N]` runs the service checks' figures (scripts/bench/run-checks.ts: hub CPU and schedule
 * jitter with 1,000 HTTP checks at 60 s, ingest beside them against the same without, bytes per check-day); not part of
 * the full run (its window alone is minutes).
 * `--ingest-real-only [--before <executable>]` runs ingest with the real sample over 200 devices beside the group-commit
 * baseline (scripts/bench/run-ingest-real.ts); not part of the full run.
 * `--ratelimit-only` runs the shared rate limit's figures (scripts/bench/run-ratelimit.ts: a take in memory, Redis and
 * PostgreSQL, and ingest with the Redis limiter beside the memory one); not part of the full run.
 * `--charts-only [--days N] [--again N] [--data <dir>]` runs the charts of nested families over a day, a week and a month
 *   in process on a device seeded with the real sample (scripts/bench/charts-nested.ts): CPU read again and opened first.
 * `--ingest-only` runs step 2-3 alone (with the kill -9 check), for before/after comparisons of the hot path.
 * `--browser-only` runs the portal's figures in chromium (scripts/bench/browser.ts: a dashboard of 200
 * devices to first content and to its cards, a 30-day device page from its data to every chart drawn).
 * `--web-only` prints the portal's bundle sizes (scripts/bench/web.ts: entry, each page, each route's
 * first load, gzipped); the full run adds its summary rows.
 * `--agent-only` runs the collector's figures (scripts/bench/agent.ts: footprint beside node_exporter,
 * one sample, a day's replay, a thousand agents back at once); not part of the full run (its
 * footprint window alone is 10 minutes).
 * `--pg-driver-only` compares the PostgreSQL drivers on a store's typical queries (scripts/bench/pg-driver.ts: Bun.SQL
 * beside drizzle's bun-sql adapter; needs VIGIL_BENCH_PG_URL or VIGIL_TEST_PG_URL; no executable).
 * `--budget-only [--reads-data <dir>] [--before <executable>] [--budget 300MB]` applies the disk budget to the reads
 * bench's 10 M samples (scripts/bench/run-budget.ts: the run's time and longest hold, the largest WAL, /health meanwhile).
 * `--upgrade-only [--upgrade-data <dir>] [--before <executable>] [--upgrade-devices 20] [--upgrade-hours 48]` upgrades an
 * instance of the release before the compact blocks in place (scripts/bench/run-upgrade.ts: the conversion's time, its
 * longest hold, the WAL, /health meanwhile).
 * `--copy-only [--copy-samples N]` times `vigil copy --to` for a 1 M-sample instance, rows sent as INSERTs beside unnested
 * arrays (scripts/bench/run-copy.ts; needs VIGIL_BENCH_PG_URL or VIGIL_TEST_PG_URL).
 * `--pg-metrics-only [--pg-metrics-rounds N]` measures a sample on each engine side by side, in process (scripts/bench/run-pg-metrics.ts:
 * hub and PostgreSQL CPU per request, bytes per sample on disk; needs VIGIL_BENCH_PG_URL or VIGIL_TEST_PG_URL; no executable).
 * The sections live in scripts/bench/run-*.ts, what they share in scripts/bench/common.ts.
 * Everything runs on loopback; only processes started here are stopped.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { median } from './bench/proc'
import { webRows, webSizes } from './bench/web'
import { webhookRows, webhooksBench } from './bench/webhooks'
import { args, quick, P, CONNECTIONS, root, tmp, log, ingestBody } from './bench/common'
import { ingestBench, ingestRows, ingestOnly } from './bench/run-ingest'
import { hostileBench, hostileRows, hostileOnly } from './bench/run-hostile'
import { liveBench, liveRows, liveOnly } from './bench/run-live'
import { readBench, portalBench, portalRows, portalOnly, metricsBench, metricsRows, metricsOnly } from './bench/run-reads'
import { alertsBench, alertsRows, alertsOnly, webhooksOnly, agentOnly, browserOnly } from './bench/run-other'
import { statusOnly } from './bench/run-status'
import { containersOnly } from './bench/run-containers'
import { rssBench, rssOnly, rssRows } from './bench/run-rss'

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
    ...rssRows(await rssBench()),
  )
  console.log(
    `\nvigil bench${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.rounds} rounds of ${P.duration} s per server, the real sample, ${(await ingestBody()).length} B\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

if (args.has('--pg-driver-only')) {
  // the driver alone: no executable, no server of ours
  const run = Bun.spawnSync([process.execPath, join(root, 'scripts/bench/pg-driver.ts')], { stdout: 'inherit', stderr: 'inherit' })
  rmSync(tmp, { recursive: true, force: true })
  process.exit(run.exitCode ?? 1)
}

if (args.has('--pg-metrics-only')) {
  // in process on both engines: no executable, no server of ours
  const run = Bun.spawnSync([process.execPath, join(root, 'scripts/bench/run-pg-metrics.ts'), ...process.argv.slice(2)], {
    stdout: 'inherit',
    stderr: 'inherit',
  })
  rmSync(tmp, { recursive: true, force: true })
  process.exit(run.exitCode ?? 1)
}

if (args.has('--charts-only')) {
  // in process on a database it seeds (the real sample from dist/vigil when built): no server of ours
  const rest = process.argv.slice(2).filter((a) => a !== '--charts-only')
  const run = Bun.spawnSync([process.execPath, join(root, 'scripts/bench/charts-nested.ts'), ...rest], { stdout: 'inherit', stderr: 'inherit' })
  rmSync(tmp, { recursive: true, force: true })
  process.exit(run.exitCode ?? 1)
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
  if (args.has('--storage-only')) {
    // bytes kept per sample and reads, rows against the sealed form (scripts/bench/storage.ts)
    const run = Bun.spawnSync([process.execPath, join(root, 'scripts/bench/storage.ts'), join(root, 'dist/vigil')], { stdout: 'inherit', stderr: 'inherit' })
    if (run.exitCode !== 0) throw new Error('storage bench failed')
  } else if (args.has('--cadence-only')) {
    // bytes written per sample at a collector's 10 s, in process on a simulated clock (scripts/bench/storage-cadence.ts)
    const run = Bun.spawnSync([process.execPath, join(root, 'scripts/bench/storage-cadence.ts'), '--vigil', join(root, 'dist/vigil'), '--variants', 'steps'], {
      stdout: 'inherit',
      stderr: 'inherit',
    })
    if (run.exitCode !== 0) throw new Error('cadence bench failed')
  } else if (args.has('--agent-only')) agentOnly()
  else if (args.has('--browser-only')) await browserOnly()
  else if (args.has('--portal-only')) await portalOnly()
  else if (args.has('--reads-only')) await (await import('./bench/run-reads-scale')).readsScaleOnly()
  else if (args.has('--live-only')) await liveOnly()
  else if (args.has('--alerts-only')) await alertsOnly()
  else if (args.has('--webhooks-only')) await webhooksOnly()
  else if (args.has('--status-only')) await statusOnly()
  else if (args.has('--containers-only')) await containersOnly()
  else if (args.has('--ingest-real-only')) await (await import('./bench/run-ingest-real')).ingestRealOnly()
  else if (args.has('--rss-only')) await rssOnly()
  else if (args.has('--ratelimit-only')) await (await import('./bench/run-ratelimit')).ratelimitOnly()
  else if (args.has('--checks-only')) await (await import('./bench/run-checks')).checksOnly()
  else if (args.has('--copy-only')) await (await import('./bench/run-copy')).copyOnly()
  else if (args.has('--budget-only')) await (await import('./bench/run-budget')).budgetOnly()
  else if (args.has('--upgrade-only')) await (await import('./bench/run-upgrade')).upgradeOnly()
  else await (args.has('--hostile-only') ? hostileOnly() : args.has('--metrics-only') ? metricsOnly() : args.has('--ingest-only') ? ingestOnly() : fullRun())
} finally {
  if (!args.has('--keep')) rmSync(tmp, { recursive: true, force: true })
  else log(`kept ${tmp}`)
}
