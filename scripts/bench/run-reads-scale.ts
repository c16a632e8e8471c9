/**
 * `bun run bench --reads-only [--before <executable>] [--reads-data <dir>] [--reads-rounds N] [--reads-gc] [--reads-warmup N]`: the
 * issue's read targets at 10 M samples. 20 devices × 30 days at 10 s (10.4 M samples), sealed as a
 * running hub seals them, with every tier rolled up (again up to the time of the run when the seed is
 * reused); then `dist/vigil` (and `--before`, an earlier
 * build, on the same file, its turns alternating with this one's) answers the device page's reads
 * of one of them, each path in sequential requests from a second process. `--reads-data` keeps the
 * seeded data dir there and reuses it on the next run (seeding takes minutes). The earlier build
 * reads a copy of the seeded dir taken before this one first opens it (`<dir>-before`): a hub
 * refuses a database a newer one migrated.
 *
 * Beside them, in the same run, the floor: a bare `Bun.serve` answering the same bytes (the newest
 * page, the latest sample, a summary, each fetched once from the hub) to the same client, so a
 * p99 can be read against what this machine and the client cost with no hub behind them; and the
 * same with the bytes copied afresh for each answer, as the hub allocates every answer it makes
 * (what the collections of that allocation alone cost).
 * `--reads-gc` starts each hub with JavaScriptCore's collection log (BUN_JSC_logGC) and counts,
 * per read, the collections that ran while it was measured and their pauses: a read that meets a
 * collection in more than one request in a hundred has the pause in its p99. `--reads-warmup N`:
 * the requests each read gets before its measured ones (100; a fifth of it for the cold reads).
 * `--reads-only-paths latest,summary 24 h`: only the reads named. `--reads-trace`: each hub of this
 * build records where each request's time went (VIGIL_TRACE_REQUESTS), lined up with the client's
 * times (reads-trace.ts), and the report says, per read, where the slowest 1 % spent theirs.
 */
import { Database } from 'bun:sqlite'
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { systemClock } from '../../src/lib/clock'
import { rollupAll } from '../../src/modules/metrics/metrics.rollup'
import { createRollupStore } from '../../src/modules/metrics/metrics.rollup.store'
import { accessTokens } from '../../src/modules/users/users.tokens'
import { freshDb, log, quick, root, secret, startVigil, tmp, type Reads } from './common'
import { cpuMs, freePort, median, runJson, stop, waitReady } from './proc'
import { insertSamples, seedAccounts, type SeededTenant } from './seed'
import { attribute, summarize, type Attributed } from './reads-trace'
import type { TraceFile } from '../../src/lib/request-trace'

const argv = process.argv.slice(2)
const opt = (name: string) => {
  const i = argv.indexOf(name)
  return i === -1 ? undefined : argv[i + 1]
}
const DAYS = quick ? 3 : 30
const PER_DEVICE = DAYS * 8_640
const ROUNDS = Number(opt('--reads-rounds') ?? (quick ? 1 : 3))
const N = quick ? 100 : 500
const GC_LOG = argv.includes('--reads-gc')
/** requests before each read's measured ones (a fifth of it for the cold reads) */
const WARMUP = Number(opt('--reads-warmup') ?? 100)
const TRACE = argv.includes('--reads-trace')
const ONLY = opt('--reads-only-paths')?.split(',')
/** `--reads-hub-env K=V,K=V`: settings for this build's hubs only (JavaScriptCore's, say), not the client's */
const HUB_ENV = Object.fromEntries(
  (opt('--reads-hub-env') ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => kv.split('=') as [string, string]),
)

interface World {
  tenant: SeededTenant
  /** when the seeded samples end (ms): the reads' ranges are taken back from the time of the run */
  end: number
  total: number
  seedSeconds: number
}

/**
 * The seeded data dir (reused when it holds a finished seed). With an earlier build, its schema:
 * that build makes the empty database (then stops) and this one migrates its copy as it starts.
 */
async function world(dir: string, before?: string): Promise<World> {
  const marker = join(dir, 'seeded.json')
  if (existsSync(marker)) {
    // the tiers brought up to now, as a running hub's rollup job keeps them: the hubs here live
    // seconds, and a summary (whose window ends now) would otherwise read finer levels for the
    // whole time since the seed, slower by the hour
    for (const d of before ? [dir, `${dir}-before`] : [dir]) {
      const db = openDatabase(join(d, 'vigil.db'))
      const seqs = db.sqlite
        .query<{ seq: number }, []>('SELECT seq FROM devices')
        .all()
        .map((r) => r.seq)
      await rollupAll(createRollupStore(db.sqlite), { now: Date.now(), devices: seqs })
      db.close()
    }
    return JSON.parse(readFileSync(marker, 'utf8')) as World
  }
  const t0 = performance.now()
  let db: ReturnType<typeof freshDb>
  if (before) {
    mkdirSync(dir, { recursive: true })
    const port = freePort()
    const server = startVigil(dir, port, before)
    await waitReady(`http://127.0.0.1:${port}/health`, server, 600)
    await stop(server)
    db = openDatabase(join(dir, 'vigil.db'))
  } else db = freshDb(dir)
  const end = Date.now()
  const tenants = seedAccounts(db.sqlite, { tenants: 2, keysPerTenant: 1, maxDevices: 10, devicesPerTenant: 10, now: end })
  const seqs = tenants.flatMap((t) => t.devices.map((d) => d.seq))
  log(`reads: seeding ${((seqs.length * PER_DEVICE * 2) / 1e6).toFixed(1)} M samples (${seqs.length} devices × ${DAYS} days)`)
  await insertSamples(db.sqlite, seqs, PER_DEVICE, end)
  await rollupAll(createRollupStore(db.sqlite), { now: end + 60_000, devices: seqs })
  db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  // the sealed rows of the devices with texts were written with their texts and emptied in place,
  // one row a page, as a database converted from an earlier release is; a running hub writes them
  // once sealed, a block's rows side by side. VACUUM lays them out so (on a connection of its own:
  // the hub's has the temp view named like the raw table)
  const v = new Database(join(dir, 'vigil.db'))
  v.run('VACUUM')
  v.run('PRAGMA wal_checkpoint(TRUNCATE)')
  v.close()
  const w: World = { tenant: tenants[0]!, end, total: seqs.length * PER_DEVICE * 2, seedSeconds: Math.round((performance.now() - t0) / 1000) }
  writeFileSync(marker, JSON.stringify(w))
  if (before) cpSync(dir, `${dir}-before`, { recursive: true })
  return w
}

/** The reads, by name: the device page's, each at its target (ms, p99). */
function paths(w: World) {
  const id = w.tenant.devices[0]!.id
  const iso = (ms: number) => new Date(ms).toISOString()
  const history = `/v1/metrics/hardware/${id}?limit=120`
  const series = `/v1/metrics/series/${id}?kind=hardware`
  // the seeded samples end at w.end: ranges are taken from there, so a reused seed reads the same data
  const dayAgo = iso(w.end - 86_400_000)
  return {
    'history limit 120, newest': { path: history, target: 3 },
    'history limit 120, a day back': { path: `${history}&offset=8640`, target: 3 },
    // each request another page of the month: its blocks are seldom among those kept decoded
    'history limit 120, random offset in 30 d': { path: `${history}&offset={random:${PER_DEVICE - 120}}`, target: 3, cold: true },
    'history limit 120, random day (start_date, end_date)': {
      path: `${history}&start_date={time:${w.end - PER_DEVICE * 10_000}:${w.end - 86_400_000}}&end_date={time+86400000}`,
      target: 3,
      cold: true,
    },
    latest: { path: `/v1/metrics/hardware/${id}/latest`, target: 1 },
    'summary 24 h': { path: `/v1/metrics/summary/${id}?hours=24`, target: 3 },
    'summary 168 h': { path: `/v1/metrics/summary/${id}?hours=168`, target: 3 },
    [`series ${DAYS} d, 2 hot fields`]: {
      path: `${series}&fields=cpu_percent,ram_percent&start=${iso(w.end - DAYS * 86_400_000)}&end=${iso(w.end)}`,
      target: 5,
    },
    'series 24 h, cpu_per_core + disk_partitions': {
      path: `${series}&fields=cpu_per_core,disk_partitions&start=${dayAgo}&end=${iso(w.end)}`,
      target: 16,
      cold: true,
    },
  } as Record<string, { path: string; target: number; cold?: boolean }>
}

/** the reads of this run: all, or those `--reads-only-paths` names */
const chosen = (w: World) => Object.entries(paths(w)).filter(([name]) => !ONLY || ONLY.includes(name))

/** The collections met by one read: how many, per request, and their pauses (ms, each collection's sum of pauses). */
interface GcTally {
  collections: number
  full: number
  perRequest: number
  pauses: number[]
}

type Result = Reads[string] & { cpuMs: number; gc?: GcTally; times?: [number, number][]; traced?: Attributed[] }

/**
 * JavaScriptCore's collection log, as the hub writes it to stderr: one entry per collection
 * ("[GC<…>: START … => EdenCollection … p=1.2ms … END]", written in pieces), each stamped with the
 * time it arrived here. The pieces of one collection arrive within a millisecond or two.
 */
function gcLog(stream: ReadableStream<Uint8Array>) {
  const entries: { at: number; full: boolean; pauseMs: number }[] = []
  let text = ''
  void (async () => {
    const dec = new TextDecoder()
    for await (const chunk of stream) {
      text += dec.decode(chunk)
      let end = text.indexOf(' END]')
      while (end !== -1) {
        const one = text.slice(0, end)
        text = text.slice(end + 5)
        const start = one.lastIndexOf(': START ')
        if (start !== -1) {
          const body = one.slice(start)
          const pauses = [...body.matchAll(/ p=([\d.]+)ms/g)].map((m) => Number(m[1]))
          entries.push({ at: performance.now(), full: body.includes('FullCollection'), pauseMs: pauses.reduce((a, b) => a + b, 0) })
        }
        end = text.indexOf(' END]')
      }
      if (text.length > 1e6) text = text.slice(-1e5)
    }
  })()
  return {
    /** the collections that ended in [a, b) (performance.now of this process) */
    between: (a: number, b: number, requests: number): GcTally => {
      const seen = entries.filter((e) => e.at >= a && e.at < b)
      return {
        collections: seen.length,
        full: seen.filter((e) => e.full).length,
        perRequest: seen.length / requests,
        pauses: seen.map((e) => e.pauseMs),
      }
    },
  }
}

/**
 * Waits (at most two minutes) until the server has used under 5 % of a core for 2 s: its first
 * jobs after a start (the sealing job's look over every device, the rollups) would otherwise be
 * counted in the first reads' latencies and CPU.
 */
async function quiet(pid: number) {
  const seen: number[] = []
  for (let i = 0; i < 240; i++) {
    seen.push(cpuMs(pid) ?? 0)
    if (seen.length > 4 && seen.at(-1)! - seen.at(-5)! < 100) return
    await Bun.sleep(500)
  }
}

/** The reads the floor answers too: fixed bytes each (the cold ones ask another page each time). */
const FLOOR_READS = ['history limit 120, newest', 'history limit 120, a day back', 'latest', 'summary 24 h', 'summary 168 h']

/**
 * The floor's turn: a bare Bun.serve in this process answers each read's bytes (as the hub
 * answered them) to the same client with the same requests, as the hub's turns are measured.
 */
async function floorTurn(bytes: Map<string, Uint8Array>, out: Record<string, Result[]>) {
  const names = [...bytes.keys()]
  const headers = { 'content-type': 'application/json' }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (req) => {
      // /c<i>: the bytes copied afresh for each answer, as the hub allocates each page it answers
      const path = new URL(req.url).pathname
      const b = bytes.get(names[Number(path.slice(path[1] === 'c' ? 2 : 1))]!)!
      return new Response(path[1] === 'c' ? b.slice() : b, { headers })
    },
  })
  try {
    for (const [i, name] of names.entries()) {
      for (const [key, path] of [
        [name, `/${i}`],
        [`${name} (copy)`, `/c${i}`],
      ]) {
        const spec = { base: `http://127.0.0.1:${server.port}`, token: 'none', n: N, rounds: 1, warmup: WARMUP, paths: { [key!]: path! } }
        const r = await runJson<Reads>(join(root, 'scripts/bench/reads.ts'), spec, 900_000)
        ;(out[key!] ??= []).push({ ...r[key!]!, cpuMs: Number.NaN })
      }
    }
  } finally {
    server.stop(true)
  }
}

/**
 * One executable's turn: started on the data dir, every path read, stopped. `floor`: the bytes of
 * the floor's reads are taken from this hub's answers.
 */
async function turn(exe: string, dir: string, w: World, out: Record<string, Result[]>, floor?: Map<string, Uint8Array>) {
  const port = freePort()
  // the trace only for this build's hub: an earlier build has none
  const traceFile = TRACE && floor ? join(tmp, `reads-trace-${port}.json`) : undefined
  const env = { ...(floor ? HUB_ENV : {}), ...(GC_LOG ? { BUN_JSC_logGC: '1' } : {}), ...(traceFile ? { VIGIL_TRACE_REQUESTS: traceFile } : {}) }
  const server = startVigil(dir, port, exe, { env, ...(GC_LOG ? { stderr: 'pipe' as const } : {}) })
  const gc = GC_LOG ? gcLog(server.stderr as ReadableStream<Uint8Array>) : null
  const base = `http://127.0.0.1:${port}`
  try {
    await waitReady(`${base}/health`, server, 600)
    await quiet(server.pid)
    for (const [name, p] of chosen(w)) {
      const token = await accessTokens(secret, systemClock).sign({ userId: w.tenant.userId, clientId: w.tenant.clientId, role: 'user' })
      // as many as the others: of 100, the p99 was the second slowest request
      const n = N
      const warmup = p.cold ? Math.round(WARMUP / 5) : WARMUP
      const cpu0 = cpuMs(server.pid) ?? 0
      const t0 = performance.now()
      const r = await runJson<Reads>(
        join(root, 'scripts/bench/reads.ts'),
        { base, token, n, rounds: 1, warmup, paths: { [name]: p.path }, times: !!traceFile },
        900_000,
      )
      const cpu = ((cpuMs(server.pid) ?? cpu0) - cpu0) / (n + warmup)
      if (r[name]!.status !== 200) throw new Error(`${name}: status ${r[name]!.status}`)
      // the last pieces of a collection's entry arrive a moment after it ends
      if (gc) await Bun.sleep(20)
      ;(out[name] ??= []).push({ ...r[name]!, cpuMs: cpu, gc: gc?.between(t0, performance.now(), n + warmup) })
      if (floor && FLOOR_READS.includes(name) && !floor.has(name)) {
        const res = await fetch(base + p.path, { headers: { authorization: `Bearer ${token}` } })
        floor.set(name, new Uint8Array(await res.arrayBuffer()))
      }
    }
  } finally {
    await stop(server)
  }
  if (traceFile) {
    const file = JSON.parse(readFileSync(traceFile, 'utf8')) as TraceFile
    // the hub's threads by CPU time over its turn, when asked for: which of them ran beside the requests
    if (argv.includes('--reads-trace-each')) {
      const busy = (file.threads ?? []).filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1])
      log(`hub threads' CPU: ${busy.map(([n, ms]) => `${n} ${ms} ms`).join(', ')}`)
    }
    for (const [name, p] of chosen(w)) {
      const r = out[name]!.at(-1)!
      r.traced = attribute(r.times ?? [], file, new URL(p.path.replace(/\{[^}]*\}/g, '0'), 'http://x').pathname)
      delete r.times
    }
  }
}

export async function readsScaleOnly() {
  const dir = opt('--reads-data') ?? join(tmp, 'reads-scale')
  const before = opt('--before')
  const w = await world(dir, before)
  const sides = [{ name: 'vigil', exe: join(root, 'dist/vigil'), dir }]
  if (before) sides.unshift({ name: 'before', exe: before, dir: `${dir}-before` })
  const results = Object.fromEntries([...sides.map((s) => s.name), 'floor'].map((name) => [name, {} as Record<string, Result[]>]))
  const floorBytes = new Map<string, Uint8Array>()
  const load0 = loadavg()[0]!
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of sides) {
      log(`reads round ${r + 1}/${ROUNDS}: ${s.name}`)
      await turn(s.exe, s.dir, w, results[s.name]!, s.name === 'vigil' ? floorBytes : undefined)
    }
    log(`reads round ${r + 1}/${ROUNDS}: floor`)
    await floorTurn(floorBytes, results.floor!)
  }
  const load1 = loadavg()[0]!
  console.log(
    `\nvigil bench, reads at ${(w.total / 1e6).toFixed(1)} M samples (20 devices × ${DAYS} days, sealed) — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${ROUNDS} rounds, load average ${load0.toFixed(2)} → ${load1.toFixed(2)}; seeded in ${w.seedSeconds} s\n`,
  )
  const gcHead = GC_LOG ? sides.map((s) => ` ${s.name}: collections per 100 requests; pause median / max |`).join('') : ''
  console.log(
    `| read | target p99 | ${sides.map((s) => `${s.name} p50 / p99 (median of rounds); server CPU per request`).join(' | ')} | floor (bare Bun.serve answering the same bytes) p50 / p99 |${gcHead}`,
  )
  console.log(`|---|---|${sides.map(() => '---|').join('')}---|${GC_LOG ? sides.map(() => '---|').join('') : ''}`)
  for (const [name, p] of chosen(w)) {
    const cells = sides.map((s) => {
      const rs = results[s.name]![name]!
      const f = (k: 'p50' | 'p99' | 'cpuMs') => median(rs.map((x) => x[k])).toFixed(2)
      return `${f('p50')} / ${f('p99')} ms (p99 per round: ${rs.map((x) => x.p99).join(', ')}); ${f('cpuMs')} ms`
    })
    const fl = results.floor![name]
    const copied = results.floor![`${name} (copy)`]
    const pq = (rs: Result[]) => `${median(rs.map((x) => x.p50)).toFixed(2)} / ${median(rs.map((x) => x.p99)).toFixed(2)} ms`
    cells.push(fl && copied ? `${pq(fl)}; a fresh copy each answer: ${pq(copied)}` : '—')
    if (GC_LOG)
      for (const s of sides) {
        const gcs = results[s.name]![name]!.map((x) => x.gc!)
        const pauses = gcs.flatMap((g) => g.pauses)
        const full = gcs.reduce((a, g) => a + g.full, 0)
        cells.push(
          `${median(gcs.map((g) => g.perRequest * 100)).toFixed(1)}${full ? ` (${full} full)` : ''}; ${pauses.length ? `${median(pauses).toFixed(2)} / ${Math.max(...pauses).toFixed(2)} ms` : '—'}`,
        )
      }
    console.log(`| ${name} | ${p.target} ms | ${cells.join(' | ')} |`)
  }
  if (TRACE) {
    console.log('\nWhere the requests of this build spent their time (its trace, all rounds):\n')
    for (const [name] of chosen(w)) {
      const traced = results.vigil![name]!.flatMap((r) => r.traced ?? [])
      console.log(`- ${name}: ${summarize(traced)}`)
      if (argv.includes('--reads-trace-each'))
        for (const x of traced.sort((a, b) => b.ms - a.ms).slice(0, Math.ceil(traced.length / 100)))
          console.log(
            `  - ${x.ms.toFixed(2)} ms: ${x.parts.map((p) => p.toFixed(3)).join(' / ')}; loop ${x.lagMs.toFixed(2)} ms (main thread CPU ${x.lagUsage[0].toFixed(2)}, all ${x.lagUsage[1].toFixed(2)} ms, ${x.lagUsage[2]} preempted, ${x.lagUsage[3]} faults)${x.events.length ? `; ${x.events.join(', ')}` : ''}`,
          )
    }
  }
}

/** The seeded data dir, as this bench makes it (or keeps it with --reads-data): for other benches on the same data. */
export const readsWorld = (dir: string): Promise<{ total: number }> => world(dir)
