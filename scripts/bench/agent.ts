/**
 * The collector's figures (`bun run bench --agent-only [--quick]`), on a hub started from
 * dist/vigil on 127.0.0.1:
 * 1. footprint: `vigil agent` at its default 10 s interval over a window (10 minutes; 30 s with
 *    --quick), steady RSS and CPU share of one core, side by side with Debian's
 *    prometheus-node-exporter in the same window (scraped every 10 s, as Prometheus would);
 * 2. one sample: wall time of the sampler reading /proc and /sys (scripts/bench/agent-sample.ts);
 * 3. replay: a day of 10 s samples (8,640) queued by an agent that could not reach the hub, then
 *    sent when it can, while live samples keep flowing (the agent runs at a 1 s interval);
 * 4. a thousand agents coming back at once, each replaying 10 queued samples in one bulk request;
 * 5. containers: the footprint again with 20 and then 50 running containers on a fake Docker
 *    engine (test/fakes/docker, in a process of its own), and the collector's CPU per container
 *    and read from the engine's /stats against the cgroup v2 files (agent-containers-cost.ts);
 * 6. service checks: three agents side by side in one window, without checks, with 50 checks at
 *    60 s and with the same 50 at 10 s (agent-checks.ts); `--checks-only` runs this case alone
 *    (`bun run bench --agent-only --agent-checks`).
 */
import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { AGENT_RUNTIME_ENV } from '../../src/agent/agent.install'
import { openQueue } from '../../src/agent/agent.queue'
import { queuedSamples } from '../../src/agent/agent.queue-files'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { systemClock } from '../../src/lib/clock'
import { createLogger } from '../../src/lib/logger'
import { hardwareSample, networkSample } from '../../test/helpers/samples'
import { cpuMs, freePort, median, memoryMb, stop, waitReady } from './proc'
import { checksCase } from './agent-checks'
import { seedAccounts, type SeededTenant } from './seed'
import { createHotStore } from '../../src/modules/metrics/metrics.hot.store'

const quick = process.argv.includes('--quick')
const root = join(import.meta.dir, '../..')
const BIN = join(root, 'dist/vigil')
const WINDOW_S = quick ? 30 : 600
/** the containers' footprint windows: a little longer with --quick, CPU per sample being the figure */
const CONTAINERS_WINDOW_S = quick ? 60 : 600
/** the checks' window (`--checks-seconds N`): with --quick still two runs of each check at 60 s */
const secondsArg = process.argv.indexOf('--checks-seconds')
const CHECKS_WINDOW_S = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : quick ? 120 : 600
const checksOnly = process.argv.includes('--checks-only')
const DAY_OF_SAMPLES = 8_640
const AGENTS = 1_000
const PER_AGENT = 10
const quiet = createLogger({ level: 'error', format: 'json', write: () => {} })
const log = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`)
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d
const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0

async function startHub(dataDir: string) {
  const port = freePort()
  const proc = Bun.spawn([BIN, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: {
      PATH: process.env.PATH ?? '',
      VIGIL_MODE: 'service',
      VIGIL_RATE_LIMIT_FREE: '10000000',
      VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_LOG_FORMAT: 'json',
      VIGIL_PUBLISH_SELF: 'false',
      VIGIL_BACKUP_SCHEDULE: 'off',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const base = `http://127.0.0.1:${port}`
  await waitReady(`${base}/health`, proc)
  return { proc, base }
}

/**
 * `asUnit`: with the installed unit's options (its log level, updates checked); else quiet and
 * without update checks, for the replay.
 */
function startAgent(base: string, key: string, stateDir: string, interval: number, asUnit = false, env: Record<string, string> = {}, bin = BIN) {
  return Bun.spawn(
    [
      bin,
      'agent',
      '--hub',
      base,
      '--key',
      key,
      '--interval',
      String(interval),
      '--state-dir',
      stateDir,
      ...(asUnit ? [] : ['--no-update', '--log-level', 'error']),
    ],
    {
      // as the installed unit runs it
      env: { PATH: process.env.PATH ?? '', ...AGENT_RUNTIME_ENV, ...env },
      stdout: 'ignore',
      stderr: asUnit ? 'ignore' : 'inherit',
    },
  )
}

/** RSS (median and max of readings every 5 s, and the median of its anonymous part) and CPU share of one core over the window. */
async function footprint(pids: Record<string, number>, seconds: number) {
  const rss: Record<string, number[]> = Object.fromEntries(Object.keys(pids).map((k) => [k, []]))
  const anon: Record<string, number[]> = Object.fromEntries(Object.keys(pids).map((k) => [k, []]))
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid) ?? 0]))
  const started = performance.now()
  while (performance.now() - started < seconds * 1000) {
    for (const [k, pid] of Object.entries(pids)) {
      const m = memoryMb(pid)
      rss[k]!.push(m?.rss ?? 0)
      anon[k]!.push(m?.anon ?? 0)
    }
    await Bun.sleep(5_000)
  }
  const elapsed = performance.now() - started
  return Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [
      k,
      { rssMedian: median(rss[k]!), rssMax: Math.max(...rss[k]!), anonMedian: median(anon[k]!), cpuPercent: (((cpuMs(pid) ?? 0) - cpu0[k]!) / elapsed) * 100 },
    ]),
  )
}

/** One sample's wall time, in a process of its own with the installed collector's runtime (JIT off). */
function sampleWallTime(): { p50: number; max: number } {
  const child = Bun.spawnSync([process.execPath, join(import.meta.dir, 'agent-sample.ts')], { env: { ...process.env, ...AGENT_RUNTIME_ENV } })
  if (child.exitCode !== 0) throw new Error(`agent-sample.ts failed: ${child.stderr.toString()}`)
  return JSON.parse(child.stdout.toString())
}

const hubRows = (dataDir: string, since = 0) => {
  const db = new Database(join(dataDir, 'vigil.db'), { readonly: true })
  try {
    createHotStore(db) // the samples not yet sealed are read from their records' files
    return db.query<{ n: number }, [number]>('SELECT count(*) AS n FROM metric_samples WHERE ts >= ?').get(since)!.n
  } finally {
    db.close()
  }
}

/** what the sections share: the hub, its seeded accounts, the bench's temp dir and the table */
interface Sections {
  hub: { base: string }
  tenants: SeededTenant[]
  tmp: string
  dataDir: string
  rows: [string, string, string][]
}

/** 1 and 5: the footprint, without and with containers. */
async function footprints({ hub, tenants, tmp, rows }: Sections) {
  // 1. footprint, side by side with node_exporter
  const agentDir = join(tmp, 'agent')
  const agent = startAgent(hub.base, tenants[0]!.keys[0]!, agentDir, 10, true)
  const nodeExporter = Bun.which('prometheus-node-exporter')
  let ne: ReturnType<typeof Bun.spawn> | null = null
  let scraping: Timer | undefined
  if (nodeExporter) {
    const port = freePort()
    ne = Bun.spawn([nodeExporter, `--web.listen-address=127.0.0.1:${port}`], { stdout: 'ignore', stderr: 'ignore' })
    await waitReady(`http://127.0.0.1:${port}/metrics`, ne)
    scraping = setInterval(() => void fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.arrayBuffer()), 10_000)
  }
  log(`footprint: ${WINDOW_S} s of the agent at 10 s${nodeExporter ? ' beside node_exporter' : ' (prometheus-node-exporter not installed: agent alone)'}`)
  await Bun.sleep(15_000) // past start-up and the first samples
  const fp = await footprint({ agent: agent.pid, ...(ne ? { node_exporter: ne.pid } : {}) }, WINDOW_S)
  clearInterval(scraping)
  if (ne) await stop(ne)
  await stop(agent)
  const a = fp.agent!
  const n = fp.node_exporter
  rows.push([
    `agent footprint at 10 s (${WINDOW_S} s window)`,
    `RSS ${round(a.rssMedian)} MB, CPU ${round(a.cpuPercent, 2)} % of a core`,
    n
      ? `max RSS ${round(a.rssMax)} MB, its own (anonymous) memory ${round(a.anonMedian)} MB, the rest pages of the executable; node_exporter in the same window: RSS ${round(n.rssMedian)} MB (max ${round(n.rssMax)}), CPU ${round(n.cpuPercent, 2)} % (scraped every 10 s)`
      : `max RSS ${round(a.rssMax)} MB; node_exporter not installed`,
  ])

  // 5. containers (run here, while the hub is quiet): footprint with 20 and 50, then the cost per source
  for (const n of [20, 50]) {
    const socketPath = join(tmp, `docker-${n}.sock`)
    const engine = Bun.spawn([process.execPath, join(import.meta.dir, 'agent-fake-docker.ts'), String(n), socketPath], { stdout: 'pipe', stderr: 'inherit' })
    const reader = engine.stdout.getReader()
    await reader.read() // "ready"
    reader.releaseLock()
    const withContainers = startAgent(hub.base, tenants[2]!.keys[n === 20 ? 0 : 1]!, join(tmp, `agent-${n}`), 10, true, {
      DOCKER_HOST: `unix://${socketPath}`,
    })
    log(`containers: ${CONTAINERS_WINDOW_S} s of the agent at 10 s with ${n} running containers`)
    await Bun.sleep(15_000)
    const c = (await footprint({ agent: withContainers.pid }, CONTAINERS_WINDOW_S)).agent!
    await stop(withContainers)
    rows.push([
      `agent footprint at 10 s with ${n} containers (${CONTAINERS_WINDOW_S} s window)`,
      `RSS ${round(c.rssMedian)} MB, CPU ${round(c.cpuPercent, 2)} % of a core`,
      `max RSS ${round(c.rssMax)} MB, its own (anonymous) memory ${round(c.anonMedian)} MB; the engine (fake, another process) answers /stats for each`,
    ])
    if (n === 50) {
      const cost = Bun.spawn([process.execPath, join(import.meta.dir, 'agent-containers-cost.ts'), socketPath, String(n), String(engine.pid)], {
        env: { ...process.env, ...AGENT_RUNTIME_ENV },
        stdout: 'pipe',
        stderr: 'inherit',
      })
      const out = await new Response(cost.stdout).text()
      if ((await cost.exited) !== 0) throw new Error('agent-containers-cost.ts failed')
      const r = JSON.parse(out) as { api_us: number; api_engine_us: number; cgroup_us: number; cgroup_engine_us: number }
      rows.push([
        'CPU per running container per read (collector JIT off)',
        `/stats: collector ${r.api_us} µs + engine ${r.api_engine_us} µs; cgroup v2 files: collector ${r.cgroup_us} µs + engine ${r.cgroup_engine_us} µs`,
        `${n} containers, 30 reads each, the list request counted in both; the engine is the tests' fake (a lower bound: a real one reads the same cgroup files through containerd before writing the JSON)`,
      ])
    }
    await stop(engine)
  }
}

/** 2 to 4: one sample, a day replayed, a thousand agents back at once. */
async function throughput({ hub, tenants, tmp, dataDir, rows }: Sections) {
  // 2. one sample
  const wall = sampleWallTime()
  rows.push(['one sample (sampler, as the installed collector runs)', `p50 ${round(wall.p50, 2)} ms`, `max ${round(wall.max, 2)} ms over 50 samples`])

  // 3. a day of queued samples replayed while live ones flow
  const replayDir = join(tmp, 'replay')
  mkdirSync(replayDir)
  const queue = openQueue(replayDir, { clock: systemClock, log: quiet })
  const end = Date.now() - 60_000
  queue.pushMany(
    Array.from({ length: DAY_OF_SAMPLES }, (_, i) => {
      const at = end - (DAY_OF_SAMPLES - i) * 10_000
      return { body: JSON.stringify({ recorded_at: new Date(at).toISOString(), hardware: hardwareSample(i), network: networkSample(i) }), recordedAt: at }
    }),
  )
  queue.close()
  const liveSince = Date.now()
  const replayer = startAgent(hub.base, tenants[1]!.keys[0]!, replayDir, 1)
  const t0 = performance.now()
  let left = DAY_OF_SAMPLES
  while (left > 0 && performance.now() - t0 < 120_000) {
    await Bun.sleep(100)
    left = queuedSamples(replayDir)
  }
  const replaySeconds = (performance.now() - t0) / 1000
  await Bun.sleep(2_000)
  await stop(replayer)
  const live = hubRows(dataDir, liveSince)
  rows.push([
    `replay of a day at 10 s (${DAY_OF_SAMPLES} samples) after an outage`,
    left === 0 ? `${round(replaySeconds)} s` : `${left} left after 120 s`,
    `${live} live samples stored meanwhile and after (1 s interval)`,
  ])

  // 4. a thousand agents back at once
  const bodies = tenants.flatMap((t) =>
    t.devices.map((d, i) => ({
      key: t.keys[i % t.keys.length]!,
      body: JSON.stringify({
        device_id: d.id,
        items: Array.from({ length: PER_AGENT }, (_, j) => ({
          recorded_at: new Date(end - 30 * 86_400_000 + j * 10_000).toISOString(),
          hardware: hardwareSample(j),
          network: networkSample(j),
        })),
      }),
    })),
  )
  const statuses: Record<string, number> = {}
  const latencies: number[] = []
  const s0 = performance.now()
  await Promise.all(
    bodies.map(async ({ key, body }) => {
      const t = performance.now()
      try {
        const res = await fetch(`${hub.base}/v1/metrics/bulk`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body })
        await res.arrayBuffer()
        statuses[res.status] = (statuses[res.status] ?? 0) + 1
      } catch {
        statuses.error = (statuses.error ?? 0) + 1
      }
      latencies.push(performance.now() - t)
    }),
  )
  const burst = (performance.now() - s0) / 1000
  rows.push([
    `${AGENTS} agents back at once (${PER_AGENT} samples each, one bulk request)`,
    `${round(burst, 2)} s for all`,
    `answers ${Object.entries(statuses)
      .map(([s, c]) => `${s}: ${c}`)
      .join(
        ', ',
      )}; p50 ${round(pct(latencies, 0.5))} ms, p99 ${round(pct(latencies, 0.99))} ms; hub alive after: ${(await fetch(`${hub.base}/health`)).status}`,
  ])
}

async function main() {
  if (!existsSync(BIN)) throw new Error('build dist/vigil first (bun run build)')
  const tmp = mkdtempSync(join(tmpdir(), 'vigil-agent-bench-'))
  const dataDir = join(tmp, 'hub')
  mkdirSync(dataDir)
  const seedDb = openDatabase(join(dataDir, 'vigil.db'))
  migrate(seedDb.sqlite, Date.now())
  // 100 tenants × 10 devices, one key each: the thousand agents; the first key is the real agent's
  const tenants = seedAccounts(seedDb.sqlite, { tenants: AGENTS / 10, keysPerTenant: 10, maxDevices: 20, devicesPerTenant: 10, now: Date.now() })
  seedDb.close()
  const hub = await startHub(dataDir)
  const rows: [string, string, string][] = []
  try {
    const sections: Sections = { hub, tenants, tmp, dataDir, rows }
    if (!checksOnly) await footprints(sections)
    // 6. service checks, while the hub is quiet
    rows.push(
      ...(await checksCase({
        base: hub.base,
        tmp,
        windowS: CHECKS_WINDOW_S,
        startAgent: (key, dir, bin) => startAgent(hub.base, key, dir, 10, true, {}, bin),
        before: process.env.VIGIL_BENCH_BEFORE,
        footprint,
        stop,
        log,
      })),
    )
    if (!checksOnly) await throughput(sections)
  } finally {
    await stop(hub.proc)
    if (!process.argv.includes('--keep')) rmSync(tmp, { recursive: true, force: true })
  }
  // the 1-, 5- and 15-minute load averages at the end: the machine may be shared
  const load = loadavg()
    .map((l) => round(l, 2))
    .join(', ')
  console.log(`\nvigil bench, the collector${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, load average ${load}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const [m, r, d] of rows) console.log(`| ${m} | ${r} | ${d} |`)
}

await main()
