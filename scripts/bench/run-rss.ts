/**
 * `bun run bench --rss-only [--rss-against label=/path/to/vigil,…]`: an idle hub's memory, for
 * the real executable. Each round starts, side by side, an empty Bun.serve compiled as dist/vigil
 * is (the floor: what the runtime alone costs) and dist/vigil on a fresh data dir of 10 tenants
 * with 10 collector keys each, plus any other build given (a baseline, to compare in one run).
 * Each hub is read 2 s after it first answers /health (after the start-up shrink), 1 s after
 * 100 devices registered through the API, 35 s after start (it hashed its executable to
 * publish itself as the collectors' version at 30 s) and 45 s after start (its jobs have run). The
 * floor is read 2 s after it answers. Each round starts at second 1 or 16 of a minute, so that
 * none of the hub's jobs (every 15 s, and at :30, :35, :40, :50) runs before the first two
 * readings. Medians of the rounds (5; `--quick` 1), each with its anonymous part (the process's
 * own memory) and its file-backed part (pages of the executable), each executable a fresh copy
 * written to the disk (wholly in the page cache, as a file just written is). Then every build started from a cold page
 * cache, read the same way, and the first request of each kind (scripts/bench/run-rss-first.ts).
 */
import { chmodSync, closeSync, copyFileSync, fsyncSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { loadavg } from 'node:os'
import { freePort, median, memoryMb, stop, waitReady } from './proc'
import { registerDevices } from './register'
import { seedAccounts, type SeededTenant } from './seed'
import { quick, IDLE_AFTER_START_MS, root, tmp, log, startVigil, freshDbOf } from './common'
import { firstRequestBench, firstRequestRows } from './run-rss-first'
import { realSample } from './storage-samples'

const ROUNDS = quick ? 1 : 5
const DEVICES = 100
/** a reading just after the self-publish (which starts 30 s after start and hashes ~120 MB) */
const PUBLISHED_MS = 35_000
/** the last reading: a few runs of every 15 s job later */
const LATE_MS = 45_000

type Mem = NonNullable<ReturnType<typeof memoryMb>>
interface HubReading {
  start: Mem
  registered: Mem
  published: Mem
  late: Mem
}

/** The builds to read: dist/vigil, then each `--rss-against label=path`. */
function builds(): { label: string; bin: string }[] {
  const at = process.argv.indexOf('--rss-against')
  const against = at > -1 ? (process.argv[at + 1] ?? '') : ''
  const others = against
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const [label, bin] = pair.split('=')
      if (!label || !bin) throw new Error(`--rss-against takes label=path[,label=path…], not ${pair}`)
      return { label, bin }
    })
  return [{ label: 'vigil', bin: join(root, 'dist/vigil') }, ...others]
}

/** The empty server, compiled with the flags of scripts/build.ts that shape memory. */
function buildFloor(): string {
  const out = join(tmp, 'floor')
  const flags = ['--compile', '--minify-whitespace', '--minify-syntax', '--bytecode', '--format=esm', '--compile-exec-argv=--smol']
  const b = Bun.spawnSync([process.execPath, 'build', join(root, 'scripts/bench/floor.ts'), ...flags, '--outfile', out], {
    stdout: 'ignore',
    stderr: 'inherit',
  })
  if (b.exitCode !== 0) throw new Error('building the floor server failed')
  return out
}

async function readFloor(bin: string): Promise<Mem> {
  const port = freePort()
  const proc = Bun.spawn([bin, String(port)], { stdout: 'ignore', stderr: 'inherit' })
  try {
    await waitReady(`http://127.0.0.1:${port}/`, proc)
    await Bun.sleep(IDLE_AFTER_START_MS)
    return memoryMb(proc.pid)!
  } finally {
    await stop(proc)
  }
}

/** Registers one device per key through the API, as collectors do on their first start. */
async function register(base: string, tenants: SeededTenant[]) {
  await registerDevices(
    base,
    tenants.flatMap((t) => t.keys),
  )
}

async function readHub(bin: string, name: string): Promise<HubReading> {
  const dir = join(tmp, name)
  const db = freshDbOf(bin, dir)
  const tenants = seedAccounts(db.sqlite, { tenants: DEVICES / 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  db.close()
  const port = freePort()
  const base = `http://127.0.0.1:${port}`
  const server = startVigil(dir, port, bin)
  try {
    await waitReady(`${base}/health`, server)
    const started = performance.now()
    await Bun.sleep(IDLE_AFTER_START_MS)
    const start = memoryMb(server.pid)!
    await register(base, tenants)
    await Bun.sleep(1_000)
    const registered = memoryMb(server.pid)!
    await Bun.sleep(Math.max(0, PUBLISHED_MS - (performance.now() - started)))
    const published = memoryMb(server.pid)!
    await Bun.sleep(Math.max(0, LATE_MS - (performance.now() - started)))
    return { start, registered, published, late: memoryMb(server.pid)! }
  } finally {
    await stop(server)
  }
}

/** ms until the next second 1 or 16 of a minute: the next 13 s are free of the hub's jobs */
export function untilQuietSecond(now: number): number {
  const intoMinute = now % 60_000
  const next = [1_000, 16_000, 61_000].find((s) => s > intoMinute)!
  return next - intoMinute
}

/**
 * Each build copied afresh into the bench's temp dir: every executable is then wholly in the page
 * cache the way a just-written file is (dist/vigil just built is), where a baseline built earlier
 * holds whatever its own past runs left there; a hub maps more or fewer of its executable's pages
 * depending on that (scripts/bench/run-rss-first.ts), and the comparison must not. Each copy is
 * written to the disk before it runs, as an installed executable has long been: the kernel can
 * drop a clean page of the file from memory but must write a dirty one first, and the hub hands
 * start-up's pages back (src/lib/page-out.ts).
 */
function freshCopies(list: { label: string; bin: string }[]): { label: string; bin: string }[] {
  return list.map(({ label, bin }) => {
    const copy = join(tmp, `exe-${label}`)
    copyFileSync(bin, copy)
    chmodSync(copy, 0o755)
    const fd = openSync(copy, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    return { label, bin: copy }
  })
}

export async function rssBench() {
  const floorBin = buildFloor()
  const list = freshCopies(builds())
  const floor: Mem[] = []
  const hubs: Record<string, HubReading[]> = Object.fromEntries(list.map((b) => [b.label, []]))
  const load = loadavg()[0]!
  for (let round = 0; round < ROUNDS; round++) {
    await Bun.sleep(untilQuietSecond(Date.now()))
    log(`idle memory round ${round + 1}/${ROUNDS}: the floor and ${list.map((b) => b.label).join(', ')}, side by side (${LATE_MS / 1000} s)`)
    const [f, ...readings] = await Promise.all([readFloor(floorBin), ...list.map((b) => readHub(b.bin, `rss-${b.label}-${round}`))])
    floor.push(f!)
    for (const [i, b] of list.entries()) hubs[b.label]!.push(readings[i]!)
  }
  log(`cold starts and first requests: ${list.map((b) => b.label).join(', ')}, ${ROUNDS} starts each`)
  const first = await firstRequestBench(list, await realSample(list[0]!.bin), ROUNDS)
  return { floor, hubs, first, rounds: ROUNDS, load }
}

const mid = (ms: Mem[]) => ({ rss: median(ms.map((m) => m.rss)), anon: median(ms.map((m) => m.anon)), file: median(ms.map((m) => m.file)) })
const parts = (m: Mem) => `anonymous ${m.anon} MB + file-backed ${m.file} MB`

export function rssRows(r: Awaited<ReturnType<typeof rssBench>>): [string, string, string][] {
  const floor = mid(r.floor)
  const rows: [string, string, string][] = []
  for (const [label, readings] of Object.entries(r.hubs)) {
    const name = label === 'vigil' ? 'dist/vigil' : label
    const start = mid(readings.map((x) => x.start))
    const registered = mid(readings.map((x) => x.registered))
    const published = mid(readings.map((x) => x.published))
    const late = mid(readings.map((x) => x.late))
    rows.push(
      [
        `RSS idle after start, fresh data dir (${name})`,
        `${start.rss} MB`,
        `${parts(start)}; the floor (an empty Bun.serve built the same way): ${floor.rss} MB (${parts(floor)}); median of ${r.rounds}, load average ${r.load.toFixed(1)}`,
      ],
      [`RSS 1 s after registering ${DEVICES} devices (${name})`, `${registered.rss} MB`, `${parts(registered)}; the checkpoint thread is running`],
      [`RSS idle ${PUBLISHED_MS / 1000} s after start (${name})`, `${published.rss} MB`, `${parts(published)}; just after its self-publish`],
      [`RSS idle ${LATE_MS / 1000} s after start (${name})`, `${late.rss} MB`, `${parts(late)}; its jobs have run`],
    )
  }
  return [...rows, ...firstRequestRows(r.first, r.rounds)]
}

export async function rssOnly() {
  const rows = rssRows(await rssBench())
  console.log(`\nvigil bench, idle memory only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}
