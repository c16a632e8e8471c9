/** `bun run bench`, ingest without and with open live streams; `--live-only`. */
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { systemClock } from '../../src/lib/clock'
import { accessTokens } from '../../src/modules/users/users.tokens'
import { cpuMs, median, stop } from './proc'
import { seedAccounts } from './seed'
import { startIngestServer } from './run-ingest'
import { quick, P, CONNECTIONS, root, secret, tmp, log, ingestBody, freshDb, drive, type Run } from './common'

/** the live section's watched fleet: tenants × devices posting every 10 s, and streams per user (the per-user cap) */
export const LIVE = { tenants: 25, devices: 40, streamsPerUser: 20 }
/** seconds of fleet-only traffic over which the server's CPU time is read, without and with the streams */
export const QUIET_S = 5

/** Reads the first line a process prints, leaving the rest of its output to `rest`. */
export async function firstLine(proc: Subprocess<'ignore', 'pipe', 'inherit'>): Promise<{ line: string; rest: () => Promise<string> }> {
  const reader = proc.stdout.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!text.includes('\n')) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
  }
  const cut = text.indexOf('\n')
  const rest = async () => {
    let more = text.slice(cut + 1)
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return more
      more += decoder.decode(value, { stream: true })
    }
  }
  return { line: text.slice(0, cut), rest }
}

/**
 * Ingest (autocannon, as in the ingest section) without and with LIVE streams open, in
 * alternating rounds on one server. A fleet of LIVE.tenants × LIVE.devices posts every 10 s
 * throughout, so the streams carry a realistic load (each of their samples goes to its
 * tenant's 20 streams); the ingest load's own tenants have no streams.
 */
export async function liveBench() {
  const dir = join(tmp, 'live')
  const db = freshDb(dir)
  const now = Date.now()
  const loadTenants = seedAccounts(db.sqlite, { tenants: 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now })
  const watched = seedAccounts(db.sqlite, {
    tenants: LIVE.tenants,
    keysPerTenant: 1,
    maxDevices: LIVE.devices,
    devicesPerTenant: LIVE.devices,
    now,
    label: 'watched',
  })
  db.close()
  const vigil = await startIngestServer(dir, loadTenants)
  const base = vigil.url.replace('/v1/metrics/batch', '')
  const helper = join(root, 'scripts/bench/live.ts')
  const fleetDevices = watched.flatMap((t) => t.devices.map((d) => ({ key: t.keys[0]!, id: d.id })))
  // Bun's fetch runs at most 256 requests at once by default: a stream is one that never ends
  const env = { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: '4096' }
  const fleet = Bun.spawn(
    [process.execPath, helper, JSON.stringify({ mode: 'fleet', base, duration: 3600, devices: fleetDevices, body: await ingestBody() })],
    {
      stdout: 'pipe',
      stderr: 'inherit',
      env,
    },
  )
  type Streams = { opened: number; refused: number; events: number; samples: number; bytes: number; endedEarly: number; seconds: number }
  const withStreams = async () => {
    const tokens = await Promise.all(watched.map((t) => accessTokens(secret, systemClock).sign({ userId: t.userId, clientId: t.clientId, role: 'user' })))
    const spec = { mode: 'streams', base, duration: P.duration + QUIET_S + 1, tokens, perToken: LIVE.streamsPerUser }
    const proc = Bun.spawn([process.execPath, helper, JSON.stringify(spec)], { stdout: 'pipe', stderr: 'inherit', env })
    const timer = setTimeout(() => proc.kill('SIGKILL'), (P.duration + 60) * 1000)
    const { line, rest } = await firstLine(proc).finally(() => clearTimeout(timer))
    if ((JSON.parse(line) as { ready: number }).ready !== LIVE.tenants * LIVE.streamsPerUser) throw new Error(`streams not all open: ${line}`)
    const quiet = await quietCpu()
    const load = await drive(vigil.url, vigil.devices, vigil.server.pid, P.duration)
    const streams = JSON.parse((await rest()).trim().split('\n').pop()!) as Streams
    await proc.exited
    return { load, streams, quiet }
  }
  /** the server's CPU time per second with only the fleet posting (and the streams, when open): steadier than req/s on a busy machine */
  const quietCpu = async () => {
    const cpu0 = cpuMs(vigil.server.pid) ?? 0
    const t0 = performance.now()
    await Bun.sleep(QUIET_S * 1000)
    return ((cpuMs(vigil.server.pid) ?? cpu0) - cpu0) / ((performance.now() - t0) / 1000)
  }
  try {
    log(`live: warm-up ${P.warmup}s, fleet of ${fleetDevices.length} devices posting every 10 s`)
    await drive(vigil.url, vigil.devices, vigil.server.pid, P.warmup)
    const runs: { without: Run; with: Run; streams: Streams; quietWithout: number; quietWith: number }[] = []
    for (let i = 0; i < P.rounds; i++) {
      log(`live round ${i + 1}/${P.rounds}: ${QUIET_S}s + ${P.duration}s without streams, the same with ${LIVE.tenants * LIVE.streamsPerUser}`)
      const quietWithout = await quietCpu()
      const without = await drive(vigil.url, vigil.devices, vigil.server.pid, P.duration)
      const w = await withStreams()
      runs.push({ without, with: w.load, streams: w.streams, quietWithout, quietWith: w.quiet })
    }
    fleet.kill('SIGTERM')
    const fleetCounts = JSON.parse((await new Response(fleet.stdout).text()).trim().split('\n').pop() ?? '{}') as Record<string, number>
    return { runs, fleetCounts, fleetDevices: fleetDevices.length }
  } finally {
    await stop(fleet)
    await stop(vigil.server)
  }
}

export function liveRows(live: Awaited<ReturnType<typeof liveBench>>): [string, string, string][] {
  const med = (f: (r: (typeof live.runs)[number]) => number) => median(live.runs.map(f))
  const ratios = live.runs.map((r) => r.with.rps / r.without.rps)
  const streams = LIVE.tenants * LIVE.streamsPerUser
  const errors = live.runs.reduce((n, r) => n + r.with.non2xx + r.with.errors + r.without.non2xx + r.without.errors, 0)
  const fleetTotal = Object.values(live.fleetCounts).reduce((a, b) => a + b, 0)
  return [
    [
      `live: ingest without / with ${streams} open streams`,
      `${Math.round(med((r) => r.without.rps))} / ${Math.round(med((r) => r.with.rps))} req/s (ratio ${median(ratios).toFixed(2)}, target ≥ 0.90)`,
      `rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}; p99 ${med((r) => r.without.p99)} / ${med((r) => r.with.p99)} ms; server CPU ${med((r) => r.without.cpuUsPerReq).toFixed(1)} / ${med((r) => r.with.cpuUsPerReq).toFixed(1)} µs/req; peak RSS ${med((r) => r.without.peakRss).toFixed(1)} / ${med((r) => r.with.peakRss).toFixed(1)} MB; ingest non-2xx + errors ${errors}`,
    ],
    [
      `live: server CPU with only the fleet posting, without / with ${streams} streams`,
      `${med((r) => r.quietWithout).toFixed(0)} / ${med((r) => r.quietWith).toFixed(0)} ms per s`,
      `the streams' own cost: ${(med((r) => r.quietWith - r.quietWithout) / 10).toFixed(1)} % of a core (median of the rounds' differences: ${live.runs.map((r) => (r.quietWith - r.quietWithout).toFixed(0)).join(', ')} ms/s), over ${QUIET_S} s each`,
    ],
    [
      'live: what the streams carried',
      `${Math.round(med((r) => r.streams.events / r.streams.seconds))} events/s`,
      `${streams} streams (${LIVE.tenants} users × ${LIVE.streamsPerUser}), ${Math.round(med((r) => r.streams.samples / r.streams.seconds))} samples/s, ${Math.round(med((r) => r.streams.bytes / r.streams.seconds / 1024))} KiB/s read; refused ${med((r) => r.streams.refused)}, ended early ${med((r) => r.streams.endedEarly)}; fleet of ${live.fleetDevices} devices every 10 s: ${fleetTotal} posts (${Object.entries(
        live.fleetCounts,
      )
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ')})`,
    ],
  ]
}

export async function liveOnly() {
  const rows = liveRows(await liveBench())
  console.log(
    `\nvigil bench, live stream only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.rounds} rounds of ${P.duration} s per phase, the real sample, ${(await ingestBody()).length} B\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}
