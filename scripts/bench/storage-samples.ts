/**
 * Samples for the storage bench: the real sample `vigil agent --once` prints on this machine,
 * moved along in time the way a collector's readings move (counters grow, gauges wander at the
 * precision they were sent with, the top-process lists reorder), and a synthetic large server
 * made from it (32 cores, 12 disks, 20 interfaces). The containers block the collector sends
 * with them is kept (its readings moved the same way).
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
export type Sample = { recorded_at?: string; hardware: Record<string, Json>; network: Record<string, Json>; containers?: Record<string, Json> }

/** A small deterministic generator (mulberry32): the same seed gives the same samples. */
export function rng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const decimals = (v: number) => {
  const s = String(v)
  const dot = s.indexOf('.')
  return dot === -1 || s.includes('e') ? 0 : s.length - dot - 1
}

/** The next reading of one number: counters (large integers) grow, other values wander at their precision. */
function step(v: number, key: string, r: () => number): number {
  if (Number.isInteger(v) && (v > 10_000 || /bytes|count|packets|_time/.test(key))) return v + Math.floor(r() * (v > 1e9 ? 2e6 : 300))
  if (key === 'pid' || key === 'mtu' || /total|max|count_/.test(key)) return v
  const d = Math.min(decimals(v), 3)
  const moved = v + (r() - 0.5) * Math.max(1, Math.abs(v) * 0.05)
  const p = 10 ** d
  return Math.max(0, Math.round(moved * p) / p)
}

function walk(x: Json, key: string, r: () => number): Json {
  if (typeof x === 'number') return step(x, key, r)
  if (Array.isArray(x)) return x.map((v) => walk(v, key, r))
  if (x && typeof x === 'object') {
    const o: Record<string, Json> = {}
    for (const [k, v] of Object.entries(x)) o[k] = walk(v, k, r)
    return o
  }
  return x
}

/** `count` samples `intervalMs` apart from `base`, each moved on from the one before. */
export function evolve(base: Sample, count: number, start: number, intervalMs: number, seed = 1): Sample[] {
  const r = rng(seed)
  const out: Sample[] = []
  let cur = structuredClone(base)
  for (let i = 0; i < count; i++) {
    const prev = cur
    cur = { hardware: walk(prev.hardware, '', r) as Sample['hardware'], network: walk(prev.network, '', r) as Sample['network'] }
    // the containers block the collector sends beside them (on a host without an engine, the same each time)
    if (prev.containers) cur.containers = walk(prev.containers, '', r) as Sample['containers']
    const top = cur.hardware.top_processes as { cpu?: Json[] } | undefined
    // the busiest processes change places now and then
    if (top?.cpu && top.cpu.length > 1 && r() < 0.3) top.cpu.reverse()
    out.push({ recorded_at: new Date(start + i * intervalMs).toISOString(), ...structuredClone(cur) })
  }
  return out
}

/** The real sample grown to a large server: 32 cores, 12 disks (and partitions), 20 interfaces. */
export function largeServer(base: Sample): Sample {
  const s = structuredClone(base)
  const hw = s.hardware
  const cores = (hw.cpu_per_core as number[] | undefined) ?? [10]
  hw.cpu_per_core = Array.from({ length: 32 }, (_, i) => cores[i % cores.length]! + (i % 7))
  hw.cpu_count_logical = 32
  hw.cpu_count_physical = 16
  const parts = (hw.disk_partitions as Record<string, Json>[] | undefined) ?? []
  if (parts.length)
    hw.disk_partitions = Array.from({ length: 12 }, (_, i) => ({ ...parts[0]!, device: `/dev/sd${String.fromCharCode(97 + i)}1`, mountpoint: `/data${i}` }))
  const io = hw.disk_io as { disks?: Record<string, Json> } | undefined
  const first = io?.disks ? Object.values(io.disks)[0] : undefined
  if (io && first) io.disks = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`sd${String.fromCharCode(97 + i)}`, structuredClone(first)]))
  const ifs = (s.network.interfaces as Record<string, Json>[] | undefined) ?? []
  const eth = ifs.find((i) => i.name !== 'lo') ?? ifs[0]
  if (eth) s.network.interfaces = Array.from({ length: 20 }, (_, i) => ({ ...eth, name: `eth${i}`, mac: `02:fc:00:00:00:${(i + 16).toString(16)}` }))
  return s
}

/** The real sample of this machine, as the collector prints it. */
export async function realSample(vigil: string): Promise<Sample> {
  const p = Bun.spawn([vigil, 'agent', '--once'], { stdout: 'pipe', stderr: 'ignore' })
  const text = await new Response(p.stdout).text()
  if ((await p.exited) !== 0) throw new Error('vigil agent --once failed')
  const s = JSON.parse(text) as Sample
  delete s.recorded_at
  return s
}

const realBodies = new Map<string, Promise<string>>()

/**
 * The real sample as one `POST /v1/metrics/batch` body, read once per process: what every ingest
 * load of `bun run bench` posts (a small synthetic body would measure a third of the work a
 * collector's request makes). Without its recorded_at (realSample), so the hub stamps each
 * request as it does for a collector posting live.
 */
export function realSampleBody(vigil: string): Promise<string> {
  let body = realBodies.get(vigil)
  if (!body) realBodies.set(vigil, (body = realSample(vigil).then((s) => JSON.stringify(s))))
  return body
}
