/**
 * `bun run bench --ingest-real-only [--before <executable>] [--floor] [--rounds N] [--seconds S]`: ingest with
 * the real sample (what `dist/vigil agent --once` prints on this machine, without its recorded_at,
 * so the hub stamps each request as it does for a collector posting live), 200 devices (20 tenants
 * × 10, one key and one connection each), dist/vigil beside the group-commit baseline
 * (bare-group.ts: Bun.serve, JSON.parse, one transaction per turn of the event loop). All servers
 * are up at once and the rounds alternate between them, so drift on a shared machine weighs on each
 * alike; the table gives the medians of req/s and of each server's CPU time per request, and the
 * ratio to the baseline. Each server gets 1 s of load, unmeasured, right before its measured window:
 * the steady state of a busy hub (see the comment in the rounds). `--before` adds a second executable (an earlier build) to the same rounds,
 * for a before/after comparison in one run; `--floor` adds Bun's HTTP alone (bare-group.ts in its `http` mode:
 * the body read, a 201 of a hub's size sent, nothing parsed or stored). The machine's idle share while each server takes the load says whether
 * work moved off the event loop (a worker thread) would have a core to run on.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { cpuMs, freePort, median, runJson, stop, waitReady } from './proc'
import { seedAccounts } from './seed'
import { registerDevices } from './register'
import { freshDbOf, log, quick, root, secret, tmp } from './common'
import { realSample } from './storage-samples'

const DEVICES = 200
const argv = process.argv.slice(2)
const opt = (name: string) => {
  const i = argv.indexOf(name)
  return i === -1 ? undefined : argv[i + 1]
}
const ROUNDS = Number(opt('--rounds') ?? (quick ? 2 : 5))
const SECONDS = Number(opt('--seconds') ?? (quick ? 3 : 6))

interface Load {
  rps: number
  p50: number
  p99: number
  ok: number
  non2xx: number
  errors: number
}
interface Side {
  name: string
  pid: number
  url: string
  devices: { key: string; id: string }[]
}
type Run = Load & { cpuUs: number; idle: number }

/** The machine's idle and total CPU time so far (all cores, clock ticks), from /proc/stat. */
function machineTicks(): { idle: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  // user nice system idle iowait irq softirq steal: idle and iowait are time no one used
  return { idle: f[3]! + f[4]!, total: f.slice(0, 8).reduce((a, b) => a + b, 0) }
}

/**
 * A Vigil executable on a fresh data dir of 20 tenants × 10 keys, its 200 devices registered
 * through the API. `command`: what runs `serve` instead of the executable (a profiled run from
 * source); the data dir is still made by `exe`.
 */
export async function startVigil(exe: string, name: string, command: string[] = [exe, 'serve']) {
  const dir = join(tmp, name)
  rmSync(dir, { recursive: true, force: true })
  const db = freshDbOf(exe, dir)
  const tenants = seedAccounts(db.sqlite, { tenants: DEVICES / 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  db.close()
  const port = freePort()
  const proc = Bun.spawn([...command, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], {
    env: {
      ...process.env,
      VIGIL_JWT_SECRET: secret,
      VIGIL_RATE_LIMIT_FREE: '10000000',
      VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
      VIGIL_MODE: 'service',
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_LOG_FORMAT: 'json',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const base = `http://127.0.0.1:${port}`
  try {
    await waitReady(`${base}/health`, proc)
    const devices = await registerDevices(
      base,
      tenants.flatMap((t) => t.keys),
      'x86_64',
    )
    return { proc, side: { name, pid: proc.pid, url: `${base}/v1/metrics/batch`, devices } satisfies Side }
  } catch (e) {
    // the caller only stops the hubs it was handed: one that failed to come up or to register stops here
    await stop(proc)
    throw e
  }
}

async function drive(side: Side, body: string, seconds: number): Promise<Run> {
  const cpu0 = cpuMs(side.pid) ?? 0
  const m0 = machineTicks()
  const r = await runJson<Load>(
    join(root, 'scripts/bench/load.ts'),
    { url: side.url, body, devices: side.devices, connections: side.devices.length, duration: seconds },
    (seconds + 60) * 1000,
  )
  const cpu = (cpuMs(side.pid) ?? cpu0) - cpu0
  const m1 = machineTicks()
  // what the machine left unused while this server took the load (server, load generator and the rest)
  const idle = m1.total > m0.total ? (m1.idle - m0.idle) / (m1.total - m0.total) : 0
  return { ...r, cpuUs: r.ok ? (cpu * 1000) / r.ok : 0, idle }
}

export async function ingestRealBench() {
  const exe = join(root, 'dist/vigil')
  const before = opt('--before')
  const sample = await realSample(exe)
  const body = JSON.stringify(sample)
  const procs: Bun.Subprocess[] = []
  try {
    const sides: Side[] = []
    const now = await startVigil(exe, 'vigil')
    procs.push(now.proc)
    sides.push(now.side)
    if (before) {
      const b = await startVigil(before, 'before')
      procs.push(b.proc)
      sides.push(b.side)
    }
    const barePort = freePort()
    mkdirSync(join(tmp, 'bare-group'), { recursive: true })
    const bare = Bun.spawn([process.execPath, join(root, 'scripts/bench/bare-group.ts'), String(barePort), join(tmp, 'bare-group', 'bare.db')], {
      stdout: 'ignore',
      stderr: 'inherit',
    })
    procs.push(bare)
    await waitReady(`http://127.0.0.1:${barePort}/`, bare)
    sides.push({
      name: 'bare-group',
      pid: bare.pid,
      url: `http://127.0.0.1:${barePort}/v1/metrics/batch`,
      devices: now.side.devices.map((d, i) => ({ key: d.key, id: `d${i}` })),
    })
    if (argv.includes('--floor')) {
      // Bun's HTTP alone: the body read and a 201 of a hub's size sent, nothing parsed or stored
      const floorPort = freePort()
      const floor = Bun.spawn([process.execPath, join(root, 'scripts/bench/bare-group.ts'), String(floorPort), join(tmp, 'bare-group', 'floor.db'), 'http'], {
        stdout: 'ignore',
        stderr: 'inherit',
      })
      procs.push(floor)
      await waitReady(`http://127.0.0.1:${floorPort}/`, floor)
      sides.push({ name: 'http floor', pid: floor.pid, url: `http://127.0.0.1:${floorPort}/v1/metrics/batch`, devices: sides.at(-1)!.devices })
    }
    log(`ingest-real: body ${body.length} B, ${DEVICES} devices, warm-up`)
    for (const s of sides) await drive(s, body, 2)
    const load0 = loadavg()[0]!
    const runs: Record<string, Run[]> = Object.fromEntries(sides.map((s) => [s.name, []]))
    for (let i = 0; i < ROUNDS; i++) {
      log(`ingest-real round ${i + 1}/${ROUNDS}: ${SECONDS} s each of ${sides.map((s) => s.name).join(', ')}`)
      for (const s of sides) {
        // 1 s unmeasured first: after the other servers' turns this one has been quiet for more
        // than 5 s, after which the hub's memory reducer gives its compiled code back (src/lib/memory.ts),
        // and the round would measure compiling it again instead of ingest
        await drive(s, body, 1)
        runs[s.name]!.push(await drive(s, body, SECONDS))
      }
    }
    const load1 = loadavg()[0]!
    const bareRuns = runs['bare-group']!
    const result = sides.map((s) => {
      const rs = runs[s.name]!
      const ratios = rs.map((r, i) => r.rps / bareRuns[i]!.rps)
      return {
        name: s.name,
        rps: median(rs.map((r) => r.rps)),
        cpuUs: median(rs.map((r) => r.cpuUs)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        failed: rs.reduce((n, r) => n + r.non2xx + r.errors, 0),
        ratio: median(ratios),
        ratios,
        cpuRatio: median(rs.map((r, i) => bareRuns[i]!.cpuUs / r.cpuUs)),
        idle: median(rs.map((r) => r.idle)),
      }
    })
    return { body: body.length, load: [load0, load1], result }
  } finally {
    for (const p of procs) await stop(p)
  }
}

export async function ingestRealOnly() {
  const r = await ingestRealBench()
  console.log(
    `\nvigil bench, ingest with the real sample — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, body ${r.body} B, ${DEVICES} devices (one connection each), ${ROUNDS} rounds of ${SECONDS} s per server, load average ${r.load.map((l) => l.toFixed(2)).join(' → ')}\n`,
  )
  console.log(
    '| server | req/s | server CPU µs/req | p50 / p99 | ratio to bare-group (req/s, per round) | CPU ratio bare/server | machine idle | non-2xx + errors |',
  )
  console.log('|---|---|---|---|---|---|---|---|')
  for (const s of r.result)
    console.log(
      `| ${s.name} | ${Math.round(s.rps)} | ${s.cpuUs.toFixed(0)} | ${s.p50} / ${s.p99} ms | ${s.ratio.toFixed(2)} (${s.ratios.map((x) => x.toFixed(2)).join(', ')}) | ${s.cpuRatio.toFixed(2)} | ${(100 * s.idle).toFixed(0)} % | ${s.failed} |`,
    )
}
