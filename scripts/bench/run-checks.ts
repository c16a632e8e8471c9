/**
 * `bun run bench --checks-only [--checks-minutes N]`: service checks.
 *
 * 1. Two servers alike (10 tenants × 10 devices registered through the API, loopback allowed
 *    for both), one of them with 1,000 HTTP checks at a 60 s interval (10 tenants × 100) against
 *    a local target that notes when each check arrives. For N minutes (default 3, so every check
 *    runs at least twice; `--checks-minutes` shortens or lengthens it) nothing else runs: the
 *    hub's CPU time over the window, as a share of one core, and the schedule jitter, each
 *    check's interval between two arrivals against 60 s (p50, p99, max).
 * 2. Ingest as in the ingest section against both servers, rounds alternating, the checks still
 *    running on one: the ratio of their medians (the loss checks cost ingest).
 * 3. Storage, in process: bytes per check-day in every tier at steady state, attempts packed
 *    beside the same attempts kept as rows (scripts/bench/run-checks-storage.ts says how it
 *    counts). `--checks-storage` runs this part alone.
 */
import { join } from 'node:path'
import { newId } from '../../src/lib/ids'
import { checksStorageBench, checksStorageRows } from './run-checks-storage'
import { startIngestServer } from './run-ingest'
import { cpuMs, median, stop } from './proc'
import { seedAccounts, type SeededTenant } from './seed'
import { quick, P, tmp, log, freshDb, drive, type Run } from './common'
import type { Database } from 'bun:sqlite'

const CHECKS_PER_TENANT = 100
const INTERVAL_S = 60

function minutes(): number {
  const i = process.argv.indexOf('--checks-minutes')
  const n = i === -1 ? (quick ? 2 : 3) : Number(process.argv[i + 1])
  if (!Number.isFinite(n) || n < 1) throw new Error('--checks-minutes takes a number of minutes, at least 1')
  return n
}

/** 1,000 HTTP check rows written as the API writes them (seq, defaults filled). */
function seedChecks(sqlite: Database, tenants: SeededTenant[], target: string, now: number) {
  const insert = sqlite.query(
    `INSERT INTO checks (id, seq, client_id, name, kind, settings, interval_s, timeout_ms, down_after, up_after, run_on_hub, device_ids, paused, state, state_since, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'http', ?, ?, 10000, 3, 2, 1, '[]', 0, 'pending', ?, ?, ?)`,
  )
  let seq = 0
  sqlite.transaction(() => {
    for (const t of tenants) {
      for (let i = 0; i < CHECKS_PER_TENANT; i++) {
        seq++
        const settings = {
          url: `${target}/c/${seq}`,
          method: 'GET',
          accepted_status: ['200-299'],
          follow_redirects: true,
          verify_tls: true,
          cert_warn_days: 14,
        }
        insert.run(newId('chk'), seq, t.clientId, `site ${seq}`, JSON.stringify(settings), INTERVAL_S, now, now, now)
      }
    }
  })()
  return seq
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : 0
}

export async function checksBench() {
  const arrivals = new Map<string, number[]>()
  const target = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const path = new URL(req.url).pathname
      const list = arrivals.get(path)
      if (list) list.push(Date.now())
      else arrivals.set(path, [Date.now()])
      return new Response('ok')
    },
  })
  // both alike: a tenant's checks may call the loopback target only when the operator allows it
  process.env.VIGIL_OUTBOUND_ALLOW_LOCAL = 'true'
  const servers: Awaited<ReturnType<typeof startIngestServer>>[] = []
  try {
    let count = 0
    for (const name of ['checks-none', 'checks-1000']) {
      const dir = join(tmp, name)
      const db = freshDb(dir)
      const now = Date.now()
      const tenants = seedAccounts(db.sqlite, { tenants: 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now })
      if (name === 'checks-1000') count = seedChecks(db.sqlite, tenants, `http://127.0.0.1:${target.port}`, now)
      db.close()
      servers.push(await startIngestServer(dir, tenants))
    }
    const [none, withChecks] = servers as [(typeof servers)[0], (typeof servers)[0]]
    const windowMin = minutes()
    log(`checks: ${count} HTTP checks at ${INTERVAL_S} s for ${windowMin} min, nothing else running`)
    const cpu0 = cpuMs(withChecks.server.pid)!
    const idle0 = cpuMs(none.server.pid)!
    const t0 = performance.now()
    await Bun.sleep(windowMin * 60_000)
    const wall = performance.now() - t0
    const cpuPercent = ((cpuMs(withChecks.server.pid)! - cpu0) / wall) * 100
    const idlePercent = ((cpuMs(none.server.pid)! - idle0) / wall) * 100
    const jitter: number[] = []
    let attempts = 0
    for (const list of arrivals.values()) {
      attempts += list.length
      for (let i = 1; i < list.length; i++) jitter.push(Math.abs(list[i]! - list[i - 1]! - INTERVAL_S * 1000))
    }
    log(`checks: ingest ${P.rounds} rounds of ${P.duration}s each, with and without the checks`)
    await drive(none.url, none.devices, none.server.pid, P.warmup)
    await drive(withChecks.url, withChecks.devices, withChecks.server.pid, P.warmup)
    const runs: { none: Run; checks: Run }[] = []
    for (let i = 0; i < P.rounds; i++) {
      const c = await drive(withChecks.url, withChecks.devices, withChecks.server.pid, P.duration)
      runs.push({ checks: c, none: await drive(none.url, none.devices, none.server.pid, P.duration) })
    }
    return {
      count,
      windowMin,
      cpuPercent,
      idlePercent,
      attempts,
      checksSeen: arrivals.size,
      jitter: { p50: pct(jitter, 0.5), p99: pct(jitter, 0.99), max: pct(jitter, 1), n: jitter.length },
      runs,
      storage: await checksStorageBench(),
    }
  } finally {
    for (const s of servers) await stop(s.server)
    target.stop(true)
  }
}

export function checksRows(c: Awaited<ReturnType<typeof checksBench>>): [string, string, string][] {
  const med = (side: 'none' | 'checks', k: 'rps' | 'p99') => median(c.runs.map((r) => r[side][k]))
  const ratio = med('checks', 'rps') / med('none', 'rps')
  return [
    [
      `hub CPU with ${c.count} HTTP checks at 60 s`,
      `${c.cpuPercent.toFixed(1)} % of one core`,
      `over ${c.windowMin} min; the same server without checks: ${c.idlePercent.toFixed(1)} %; ${c.attempts} attempts reached the target from ${c.checksSeen} checks`,
    ],
    ['check schedule jitter (interval against 60 s)', `p99 ${c.jitter.p99} ms`, `p50 ${c.jitter.p50} ms, max ${c.jitter.max} ms over ${c.jitter.n} intervals`],
    [
      'ingest with those checks running / without',
      `${(ratio * 100).toFixed(1)} %`,
      `median ${Math.round(med('checks', 'rps'))} vs ${Math.round(med('none', 'rps'))} batches/s; p99 ${med('checks', 'p99')} vs ${med('none', 'p99')} ms; ${c.runs.length} rounds alternating`,
    ],
    ...checksStorageRows(c.storage),
  ]
}

export async function checksOnly() {
  const storageOnly = process.argv.includes('--checks-storage')
  const rows = storageOnly ? checksStorageRows(await checksStorageBench()) : checksRows(await checksBench())
  const flags = `${quick ? ' --quick' : ''}${storageOnly ? ' --checks-storage' : ''}`
  console.log(`\nvigil bench --checks-only${flags} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}
