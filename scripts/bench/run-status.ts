/**
 * `bun run bench --status-only`: a public status page with 50 checks and 90 days of history,
 * answered by dist/vigil over a socket on 127.0.0.1, and side by side in the same run by another
 * executable when VIGIL_BENCH_BEFORE names one: a path to a `vigil` executable, or a git ref
 * (such as `main`) that is built here first (git archive into the temp dir, this tree's
 * node_modules, `bun run build`).
 *
 * The world: 50 heartbeat checks made through the API, then 90 days of history written into the
 * database through the checks' results store while no server runs (one attempt an hour for 90
 * days, one a minute for the last 48 h, a failed hour now and then), the same database copied for
 * each executable. On each server 47 checks report in and 3 report a failure (down, with an open
 * incident). Two figures per executable:
 * - from the render cache: the page as most visitors get it (rebuilt every 30 s);
 * - built afresh: before each timed request every up check reports in again (today's figures
 *   move, as 30 s of 30 s checks would move them) and the page is saved unchanged through the
 *   team API (which drops its render), untimed; then the timed GET builds the page.
 * Sequential GETs with Accept-Encoding: gzip, as browsers send; rounds alternate between the
 * executables; p50/p99 over all rounds.
 */
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { openDatabase } from '../../src/db/connection'
import { createResultsSqlite } from '../../src/modules/checks/checks.summaries'
import { DAY_MS, HOUR_MS, RAW_KEEP_MS } from '../../src/modules/checks/checks.summaries'
import { log, quick, root, secret, tmp } from './common'
import { freePort, stop, waitReady } from './proc'

const CHECKS = 50
const DOWN = 3
const DAYS = 90
const P = quick ? { warmup: 20, cached: 200, built: 50, rounds: 2 } : { warmup: 100, cached: 1_000, built: 200, rounds: 5 }

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

function serve(exe: string, dataDir: string) {
  const port = freePort()
  const proc = Bun.spawn([exe, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: {
      ...process.env,
      VIGIL_JWT_SECRET: secret,
      VIGIL_RATE_LIMIT_FREE: '10000000',
      VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
      // errors only: a fresh instance warns with its setup token, which has no place in the bench's output
      VIGIL_LOG_LEVEL: 'error',
      VIGIL_LOG_FORMAT: 'json',
    },
    stdout: 'inherit',
    stderr: 'inherit',
  })
  return { proc, base: `http://127.0.0.1:${port}` }
}

async function call(base: string, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
  return text ? JSON.parse(text) : null
}

const creds = { email: 'bench@example.test', password: 'bench status page password' }
const login = async (base: string) => (await call(base, 'POST', '/v1/auth/login', creds)).access_token as string

/** The executable to compare with: a path as given, or a git ref built into the temp dir. */
function beforeExecutable(): string | null {
  const given = process.env.VIGIL_BENCH_BEFORE
  if (!given) return null
  if (existsSync(given)) return given
  const src = join(tmp, 'before-src')
  mkdirSync(src, { recursive: true })
  log(`status page: building ${given} for the side-by-side run`)
  const archive = Bun.spawnSync(['sh', '-c', `git archive ${JSON.stringify(given)} | tar -x -C ${JSON.stringify(src)}`], { cwd: root, stderr: 'inherit' })
  if (archive.exitCode !== 0) throw new Error(`git archive ${given} failed`)
  symlinkSync(join(root, 'node_modules'), join(src, 'node_modules'))
  const build = Bun.spawnSync([process.execPath, 'run', 'build'], { cwd: src, stdout: 'ignore', stderr: 'inherit' })
  if (build.exitCode !== 0) throw new Error(`building ${given} failed`)
  return join(src, 'dist/vigil')
}

/** The account, its checks and the page, made through the API of this tree's executable on an empty data dir. */
async function makeWorld(dir: string) {
  const { proc, base } = serve(join(root, 'dist/vigil'), dir)
  try {
    await waitReady(`${base}/health`, proc)
    await call(base, 'POST', '/v1/auth/register', creds)
    const token = await login(base)
    const checks: { id: string; hb: string }[] = []
    for (let i = 0; i < CHECKS; i++) {
      // a day's period: no heartbeat falls late while the bench runs; a failure report is down at once
      const made = await call(
        base,
        'POST',
        '/v1/checks',
        { name: `Service ${i}`, kind: 'heartbeat', settings: { period_s: 86_400 }, down_after: 1, up_after: 1 },
        token,
      )
      checks.push({ id: made.id, hb: made.heartbeat_token })
    }
    const groups = Array.from({ length: 5 }, (_, g) => ({
      name: `Group ${g}`,
      items: checks.slice(g * 10, g * 10 + 10).map((c) => ({ type: 'check', id: c.id, show_name: true, show_response_times: true })),
    }))
    const page = await call(base, 'POST', '/v1/status-pages', { slug: 'bench', title: 'Bench', groups }, token)
    return { checks, pageId: page.id as string }
  } finally {
    await stop(proc)
  }
}

/** 90 days of attempts for every check, through the checks' results store, while no server runs. */
function seedHistory(dir: string, ids: string[]) {
  const db = openDatabase(join(dir, 'vigil.db'))
  try {
    const results = createResultsSqlite(db.sqlite)
    const seqOf = db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM checks WHERE id = ?')
    const now = Date.now()
    const rawFrom = now - RAW_KEEP_MS
    db.sqlite.transaction(() => {
      for (const [i, id] of ids.entries()) {
        const seq = seqOf.get(id)!.seq
        for (let ts = now - DAYS * DAY_MS; ts < rawFrom; ts += HOUR_MS) {
          const ok = Math.floor(ts / HOUR_MS + i) % 211 !== 0 ? 1 : 0
          const ms = ok ? 60 + ((ts / HOUR_MS + i) % 90) : null
          results.record({ check_seq: seq, place: 0, ts, ok, response_ms: ms, status_code: null, error: ok ? null : 'heartbeat missed' })
        }
        for (let ts = rawFrom; ts < now - 60_000; ts += 60_000) {
          results.record({ check_seq: seq, place: 0, ts, ok: 1, response_ms: 60 + ((ts / 60_000 + i) % 90), status_code: null, error: null })
        }
      }
    })()
    db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
}

interface Server {
  name: string
  proc: Subprocess
  base: string
  token: string
}

/** Every up check reports in (concurrently), then the page is saved unchanged: its render is dropped. */
async function moveFigures(s: Server, world: Awaited<ReturnType<typeof makeWorld>>) {
  await Promise.all(world.checks.slice(DOWN).map((c) => fetch(`${s.base}/hb/${c.hb}`).then((r) => r.arrayBuffer())))
  await call(s.base, 'PATCH', `/v1/status-pages/${world.pageId}`, { title: 'Bench' }, s.token)
}

async function timed(url: string, n: number, before?: () => Promise<void>): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    await before?.()
    const t0 = performance.now()
    const res = await fetch(url)
    await res.arrayBuffer()
    out.push(performance.now() - t0)
    if (res.status !== 200) throw new Error(`status ${res.status}`)
  }
  return out
}

const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return { p50: pct(s, 50), p99: pct(s, 99), n: s.length }
}

const loadAverage = async () => (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')

export async function statusBench() {
  const before = beforeExecutable()
  const loadBefore = await loadAverage()
  const seed = join(tmp, 'status-seed')
  log(`status page: making ${CHECKS} checks and the page`)
  const world = await makeWorld(seed)
  log(`status page: seeding ${CHECKS} checks × ${DAYS} days`)
  seedHistory(
    seed,
    world.checks.map((c) => c.id),
  )
  const exes = [...(before ? [{ name: 'before', exe: before }] : []), { name: 'this tree', exe: join(root, 'dist/vigil') }]
  const servers: Server[] = []
  try {
    for (const e of exes) {
      const dir = join(tmp, `status-${servers.length}`)
      cpSync(seed, dir, { recursive: true })
      const { proc, base } = serve(e.exe, dir)
      servers.push({ name: e.name, proc, base, token: '' })
      await waitReady(`${base}/health`, proc)
      const s = servers.at(-1)!
      s.token = await login(base)
      for (const [i, c] of world.checks.entries()) await fetch(`${base}/hb/${c.hb}${i < DOWN ? '/fail' : ''}`).then((r) => r.arrayBuffer())
    }
    const figures = new Map(servers.map((s) => [s.name, { cached: [] as number[], built: [] as number[][], bytes: 0, gzipped: 0 }]))
    for (const s of servers) {
      const url = `${s.base}/status/bench`
      const html = await (await fetch(url, { headers: { 'accept-encoding': 'identity' } })).text()
      Object.assign(figures.get(s.name)!, { bytes: html.length, gzipped: Bun.gzipSync(html).byteLength })
      await timed(url, P.warmup)
    }
    // the machine's load while the rounds run: the slowest requests wait for a CPU more than they work
    const loads: number[] = []
    const sampler = setInterval(async () => loads.push(Number((await loadAverage()).split(' ')[0])), 2_000)
    try {
      for (let r = 0; r < P.rounds; r++) {
        log(`status page: round ${r + 1}/${P.rounds}`)
        for (const s of servers) figures.get(s.name)!.cached.push(...(await timed(`${s.base}/status/bench`, P.cached)))
        for (const s of servers) figures.get(s.name)!.built.push(await timed(`${s.base}/status/bench`, P.built, () => moveFigures(s, world)))
      }
    } finally {
      clearInterval(sampler)
    }
    return {
      checks: CHECKS,
      days: DAYS,
      load: { before: loadBefore, after: await loadAverage(), during: loads },
      servers: servers.map((s) => {
        const f = figures.get(s.name)!
        return {
          name: s.name,
          bytes: f.bytes,
          gzipped: f.gzipped,
          cached: summary(f.cached),
          built: summary(f.built.flat()),
          builtRounds: f.built.map((xs) => summary(xs).p99),
        }
      }),
    }
  } finally {
    for (const s of servers) await stop(s.proc)
  }
}

export function statusRows(r: Awaited<ReturnType<typeof statusBench>>): string[][] {
  const ms = (v: number) => `${v.toFixed(2)} ms`
  return r.servers.flatMap((s) => [
    [
      `status page (${s.name}), ${r.checks} checks × ${r.days} days, from the render cache`,
      `p99 ${ms(s.cached.p99)}`,
      `p50 ${ms(s.cached.p50)}, ${s.cached.n} sequential GETs, ${Math.round(s.bytes / 1024)} KB of HTML, ${Math.round(s.gzipped / 1024)} KB gzipped`,
    ],
    [
      `status page (${s.name}), ${r.checks} checks × ${r.days} days, built afresh`,
      `p99 ${ms(s.built.p99)}`,
      `p50 ${ms(s.built.p50)}, ${s.built.n} sequential GETs, each after ${r.checks - DOWN} heartbeats and the page saved; each round's p99 ${s.builtRounds.map((v) => v.toFixed(1)).join(', ')} ms (target p99 ≤ 20 ms)`,
    ],
  ])
}

const loadRange = (xs: number[]) =>
  xs.length ? `${Math.min(...xs).toFixed(1)} to ${Math.max(...xs).toFixed(1)} (mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1)})` : 'not sampled'

export async function statusOnly() {
  const r = await statusBench()
  console.log(
    `\nvigil bench, status page only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, load average ${r.load.before} before, ${r.load.after} after, ${loadRange(r.load.during)} during the rounds\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const row of statusRows(r)) console.log(`| ${row.join(' | ')} |`)
}
