/**
 * `bun run bench --upgrade-only [--upgrade-data <dir>] [--before <executable>] [--upgrade-devices 20]
 * [--upgrade-hours 48]`: an instance of the release before the compact blocks (the commit before
 * the one that added src/modules/metrics/metrics.block.ts, built once into the temp dir, as the
 * upgrade test builds it), filled with the real sample through its own bulk API, is upgraded in
 * place: each build starts on its own copy and converts it in the background while a client asks
 * /health every 20 ms and the WAL is looked at every 50 ms. Reported: the time until /health says
 * no device is left to convert, the sealing runs' longest hold of the event loop (the jobs' own
 * measure), the largest WAL file and the most WAL in use at once, /health meanwhile, the database
 * before and after. `--upgrade-data` keeps the seed for the next run; `--before` runs another
 * build first, on a copy of the same seed.
 */
import { Database } from 'bun:sqlite'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { walInUseBytes } from '../../src/db/wal'
import { log, root, tmp } from './common'
import { freePort, jsonLines, loadAverages, option, quantile, stop, waitReady } from './proc'
import { releaseBefore, releaseExecutable } from './releases'
import { evolve, realSample } from './storage-samples'

/** The release before the compact blocks, built once per commit into the temp dir (shared with the upgrade test). */
function previousRelease(): string {
  const commit = releaseBefore('src/modules/metrics/metrics.block.ts')
  if (!commit) throw new Error('the upgrade bench needs the git history (the commit before the compact blocks)')
  return releaseExecutable(commit, () => log(`upgrade: building the previous release (${commit.slice(0, 7)})`))
}

const env = (dir: string, port: number, more: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  VIGIL_PORT: String(port),
  VIGIL_HOST: '127.0.0.1',
  VIGIL_DATA_DIR: dir,
  VIGIL_RATE_LIMIT_FREE: '10000000',
  VIGIL_OWN_RATE_LIMIT: '10000000',
  VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
  VIGIL_RETENTION_RAW: '3650d',
  VIGIL_LOG_FORMAT: 'json',
  ...more,
})

/** The previous release filled with `devices` × `hours` of the real sample at 10 s, posted through its bulk API. */
async function seed(dir: string, devices: number, hours: number): Promise<number> {
  const marker = join(dir, 'seeded.json')
  if (existsSync(marker)) return (JSON.parse(readFileSync(marker, 'utf8')) as { samples: number }).samples
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const exe = previousRelease()
  const sample = await realSample(join(root, 'dist/vigil'))
  const port = freePort()
  const base = `http://127.0.0.1:${port}`
  const server = Bun.spawn([exe, 'serve'], { env: env(dir, port, { VIGIL_LOG_LEVEL: 'warn' }), stdout: 'ignore', stderr: 'inherit' })
  const call = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    const text = await r.text()
    if (!r.ok) throw new Error(`POST ${path}: ${r.status} ${text.slice(0, 200)}`)
    return JSON.parse(text) as Record<string, unknown>
  }
  const started = performance.now()
  let stored = 0
  try {
    await waitReady(`${base}/health`, server, 600)
    const credentials = { email: 'bench@example.test', password: 'correct horse battery' }
    await call('/v1/auth/register', credentials)
    const { access_token } = await call('/v1/auth/login', credentials)
    const key = { 'x-api-key': String((await call('/v1/auth/api-keys', { name: 'bench' }, { authorization: `Bearer ${access_token}` })).api_key) }
    const count = hours * 360
    const from = Date.now() - 5 * 60_000 - count * 10_000
    for (let d = 0; d < devices; d++) {
      const device = await call('/v1/clients/me/devices', { hostname: `h${d}`, os: 'linux', os_version: '6', arch: 'x64', fingerprint: `upgrade-${d}` }, key)
      const all = evolve(sample, count, from, 10_000, d + 1)
      // about 250 samples of 3.7 KB fit the 1 MiB body cap
      for (let i = 0; i < all.length; i += 250) {
        // the parts and their time: that release's bulk items have no containers block
        const items = all.slice(i, i + 250).map((x) => ({ recorded_at: x.recorded_at, hardware: x.hardware, network: x.network }))
        stored += Number((await call('/v1/metrics/bulk', { device_id: device.device_id, items }, key)).stored)
      }
      log(`upgrade: seeded device ${d + 1} of ${devices} (${stored} samples)`)
    }
  } finally {
    await stop(server)
  }
  writeFileSync(marker, JSON.stringify({ samples: stored }))
  log(`upgrade: ${stored} samples of the previous release in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  return stored
}

interface Outcome {
  convertedMs: number
  runs: number
  heldMs: number
  walFilePeak: number
  walInUsePeak: number
  health: { n: number; p50: number; p99: number; max: number; over50: number }
  dbBefore: number
  dbAfter: number
  /** of dbAfter, the pages the conversion freed: the retention job's vacuum (minute 17 of each hour) gives them back */
  freeAfter: number
}

async function side(exe: string, seedDir: string): Promise<Outcome> {
  const dir = join(tmp, `upgrade-${Math.random().toString(36).slice(2, 8)}`)
  cpSync(seedDir, dir, { recursive: true })
  const db = join(dir, 'vigil.db')
  const dbBefore = statSync(db).size
  const port = freePort()
  const base = `http://127.0.0.1:${port}`
  const server = Bun.spawn([exe, 'serve'], { env: env(dir, port, { VIGIL_LOG_LEVEL: 'debug' }), stdout: 'pipe', stderr: 'inherit' })
  const { lines, done: reading } = jsonLines(server.stdout as ReadableStream<Uint8Array>)
  let walFilePeak = 0
  let walInUsePeak = 0
  const sizer = setInterval(() => {
    try {
      walFilePeak = Math.max(walFilePeak, statSync(`${db}-wal`).size)
    } catch {
      // no WAL file at the moment
    }
    walInUsePeak = Math.max(walInUsePeak, walInUseBytes(db) ?? 0)
  }, 50)
  const times: number[] = []
  let convertedMs = 0
  try {
    await waitReady(`${base}/health`, server, 600)
    const started = performance.now()
    log(`upgrade: ${exe} started, converting`)
    let seenBehind = false
    while (performance.now() - started < 30 * 60_000) {
      const t0 = performance.now()
      const health = (await (await fetch(`${base}/health`)).json()) as { storage?: { converting_devices?: number } }
      times.push(performance.now() - t0)
      const behind = health.storage?.converting_devices ?? 0
      if (behind > 0) seenBehind = true
      // a small seed converts within the first run, before /health is first asked: its log says so
      else if (seenBehind || lines.some((l) => l.msg === 'metrics sealed' && l.devices_behind === 0)) {
        convertedMs = performance.now() - started
        break
      }
      await Bun.sleep(20)
    }
    if (!convertedMs) throw new Error(`${exe}: the conversion did not end within 30 minutes`)
  } finally {
    clearInterval(sizer)
    await stop(server)
    await reading
  }
  const runs = lines.filter((l) => l.msg === 'job done' && l.job === 'metrics.seal' && Number(l.ms) > 1_000)
  times.sort((a, b) => a - b)
  const out: Outcome = {
    convertedMs,
    runs: runs.length,
    heldMs: Math.max(0, ...runs.map((l) => Number(l.heldMs))),
    walFilePeak,
    walInUsePeak,
    health: { n: times.length, p50: quantile(times, 0.5), p99: quantile(times, 0.99), max: times.at(-1) ?? 0, over50: times.filter((x) => x > 50).length },
    dbBefore,
    dbAfter: statSync(db).size,
    freeAfter: 0,
  }
  const file = new Database(db, { readonly: true })
  const page = file.query<{ n: number }, []>('SELECT page_size AS n FROM pragma_page_size').get()!.n
  out.freeAfter = page * file.query<{ n: number }, []>('SELECT freelist_count AS n FROM pragma_freelist_count').get()!.n
  file.close()
  rmSync(dir, { recursive: true, force: true })
  return out
}

export async function upgradeOnly() {
  const devices = Number(option('--upgrade-devices') ?? 20)
  const hours = Number(option('--upgrade-hours') ?? 48)
  const seedDir = option('--upgrade-data') ?? join(tmp, 'upgrade-seed')
  const samples = await seed(seedDir, devices, hours)
  const sides = [{ name: 'vigil', exe: join(root, 'dist/vigil') }]
  const before = option('--before')
  if (before) sides.unshift({ name: 'before', exe: before })
  const load0 = loadAverages()
  const results: [string, Outcome][] = []
  for (const s of sides) results.push([s.name, await side(s.exe, seedDir)])
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`
  const ms = (v: number) => v.toFixed(1)
  console.log(
    `\nvigil bench, an instance of the release before the compact blocks upgraded in place: ${samples.toLocaleString('en')} samples (${devices} devices × ${hours} h of the real sample at 10 s) — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, load average ${load0} → ${loadAverages()}\n`,
  )
  console.log(
    "| build | converted in (sealing runs) | the runs' longest hold of the event loop | largest WAL file / most WAL in use | /health meanwhile: answers, p50 / p99 / max, over 50 ms | vigil.db before → after (of it free, given back at minute 17) |",
  )
  console.log('|---|---|---|---|---|---|')
  for (const [name, r] of results)
    console.log(
      `| ${name} | ${(r.convertedMs / 1000).toFixed(0)} s (${r.runs}) | ${ms(r.heldMs)} ms | ${mb(r.walFilePeak)} / ${mb(r.walInUsePeak)} | ${r.health.n}, ${ms(r.health.p50)} / ${ms(r.health.p99)} / ${ms(r.health.max)} ms, ${r.health.over50} | ${mb(r.dbBefore)} → ${mb(r.dbAfter)} (${mb(r.freeAfter)}) |`,
    )
}
