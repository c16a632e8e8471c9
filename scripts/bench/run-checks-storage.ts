/**
 * Bytes per check-day, every tier counted, at steady state (`bun run bench --checks-only
 * --checks-storage` runs this part alone).
 *
 * Two databases side by side in one run, each with 100 HTTP checks at 60 s written through the
 * real stores for 50.5 hours (each check at its own phase in the minute, a few ms of jitter,
 * 20 to 220 ms responses, 1 % failing with status 503):
 * - packed: the checks.pack job as the hub runs it (every 10 min: finished hours packed, raw
 *   attempts past 48 h dropped), read just after its run half way through the last hour;
 * - rows: the same attempts with packing never run, raw attempts past 48 h dropped at the same
 *   moment (the form before packing).
 *
 * Each table's and index's pages from dbstat (whole pages as they lie, free space in them
 * included; no VACUUM), scaled to a check-day: the raw tier's bytes per attempt it holds ×
 * 1,440 (rows and packed hours together with their indexes), the hour summaries' bytes per row
 * × 24, the day summaries' bytes per row.
 */
import { join } from 'node:path'
import { loadavg } from 'node:os'
import { newId } from '../../src/lib/ids'
import { packRawHours } from '../../src/modules/checks/checks.jobs'
import { sqliteChecks } from '../../src/modules/checks/checks.store'
import { resultsStoreOf } from '../../src/modules/checks/checks.summaries'
import { seedAccounts } from './seed'
import { tmp, log, freshDb } from './common'

const CHECKS = 100
const MIN = 60_000
const DAY = 86_400_000
/** 48 h kept plus two hours, so that the tier has reached its steady size */
const MINUTES = 50 * 60 + 30

const RAW = ['check_results', 'check_results_key', 'check_packs', 'sqlite_autoindex_check_packs_1']
const HOURS = ['check_hours', 'sqlite_autoindex_check_hours_1']
const DAYS = ['check_days', 'sqlite_autoindex_check_days_1']

/** a small seeded generator (mulberry32): both databases get the same attempts */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface TierBytes {
  raw: number
  hours: number
  days: number
  total: number
  /** attempts the raw tier holds per check, and its bytes per check (what one check costs now) */
  rawAttempts: number
  rawPerCheck: number
}

async function fill(name: string, pack: boolean, start: number): Promise<TierBytes> {
  const db = freshDb(join(tmp, `checks-storage-${name}`))
  const s = db.sqlite
  const [tenant] = seedAccounts(s, { tenants: 1, keysPerTenant: 1, maxDevices: 1, devicesPerTenant: 0, now: start })
  const checks = sqliteChecks(s)
  const results = resultsStoreOf(checks.results)
  const ids = Array.from({ length: CHECKS }, (_, i) => {
    const id = newId('chk')
    checks.create(
      {
        ...{ id, client_id: tenant!.clientId, name: `site ${i}`, kind: 'http', settings: '{"url":"https://example.com/"}' },
        ...{ interval_s: 60, timeout_ms: 10000, down_after: 3, up_after: 2, run_on_hub: 1, device_ids: '[]', depends_on_device_id: null, paused: 0 },
        ...{ hb_token_hash: null, hb_token_hint: null, state: 'pending', state_since: start, last_checked_at: null, last_response_ms: null },
        ...{ last_status_code: null, last_error: null, cert_expires_at: null, created_at: start + i, updated_at: start },
      },
      CHECKS,
    )
    return id
  })
  let now = start
  const clock = { now: () => now }
  const rand = random(27)
  const phase = ids.map(() => Math.floor(rand() * MIN))
  for (let m = 0; m < MINUTES; m += 10) {
    s.transaction(() => {
      for (let k = m; k < Math.min(m + 10, MINUTES); k++)
        for (const [i, id] of ids.entries()) {
          const ok = rand() > 0.01
          checks.record(
            id,
            0,
            {
              ts: start + k * MIN + phase[i]! + Math.floor(rand() * 30),
              ok,
              response_ms: ok ? 20 + Math.round(rand() * 200) : null,
              status_code: ok ? 200 : 503,
              error: ok ? null : 'status 503 not accepted',
              cert_expires_at: null,
            },
            [0],
          )
        }
    })()
    now = start + (m + 10) * MIN
    // the job every 10 min; without packing only the 48 h cut, at the end
    if (pack) await packRawHours({ results, clock, pause: async () => {} })
  }
  if (!pack) await results.pruneRaw(now)
  const bytes = (names: string[]) =>
    s.query<{ b: number }, []>(`SELECT coalesce(sum(pgsize), 0) AS b FROM dbstat WHERE name IN (${names.map((x) => `'${x}'`).join(',')})`).get()!.b
  const count = (sql: string) => s.query<{ n: number }, []>(sql).get()!.n
  const attempts = count('SELECT count(*) AS n FROM check_results') + count('SELECT coalesce(sum(n), 0) AS n FROM check_packs')
  const raw = (bytes(RAW) / attempts) * 1440
  const hours = (bytes(HOURS) / count('SELECT count(*) AS n FROM check_hours')) * 24
  const days = bytes(DAYS) / count('SELECT count(*) AS n FROM check_days')
  const out = {
    raw: Math.round(raw),
    hours: Math.round(hours),
    days: Math.round(days),
    total: Math.round(raw + hours + days),
    rawAttempts: Math.round(attempts / CHECKS),
    rawPerCheck: Math.round(bytes(RAW) / CHECKS),
  }
  db.close()
  return out
}

export async function checksStorageBench() {
  const load = loadavg()[0]!.toFixed(2)
  log(`checks storage: ${CHECKS} checks × ${MINUTES} min at 60 s, packed and as rows (load average ${load})`)
  const start = Math.floor(Date.now() / DAY) * DAY - 3 * DAY
  const packed = await fill('packed', true, start)
  const rows = await fill('rows', false, start)
  return { packed, rows, load }
}

export type ChecksStorage = Awaited<ReturnType<typeof checksStorageBench>>

export function checksStorageRows(c: ChecksStorage): [string, string, string][] {
  const { packed: p, rows: r } = c
  const kept = (t: TierBytes) => Math.round((t.rawPerCheck + 90 * t.hours + 400 * t.days) / 1024)
  return [
    [
      'check storage per check-day at 60 s (every tier)',
      `${p.total} B`,
      `raw attempts ${p.raw} B (rows of the current hour and packed hours, with their indexes), hour summaries ${p.hours} B, day summary ${p.days} B; as rows, never packed: ${r.total} B (raw ${r.raw} B)`,
    ],
    [
      'check storage per check at steady state',
      `${kept(p)} KB`,
      `48 h of raw attempts (${p.rawAttempts} held: ${Math.round(p.rawPerCheck / 1024)} KB), 90 days of hours, 400 days of days; as rows: ${kept(r)} KB (raw ${Math.round(r.rawPerCheck / 1024)} KB)`,
    ],
  ]
}
