/**
 * `bun run bench --status-only`: a public status page with 50 checks of the real checks module
 * and 90 days of history, answered over a socket on 127.0.0.1 by the app in-process. The
 * history goes in through the checks' own results store, as a hub running them would have it:
 * one attempt an hour for 90 days (the hour and day summaries), one a minute for the last 48 h
 * (raw attempts, kept 48 h), a failed hour now and then, and three checks down now. Two figures:
 * the page as visitors get it (from the render cache, rebuilt every 30 s) and the page built for
 * every request (the cache expired each time: the worst case, one visitor every 30 s).
 * Sequential requests after a warm-up; p50/p99 over all rounds.
 */
import { manualClock } from '../../src/lib/clock'
import { recordAttempt } from '../../src/modules/checks/checks.record'
import { DAY_MS, HOUR_MS, RAW_KEEP_MS } from '../../src/modules/checks/checks.summaries'
import { testApp, type TestApp } from '../../test/helpers/app'
import { createTenant } from '../../test/helpers/fixtures'
import { log, quick } from './common'

const CHECKS = 50
const DAYS = 90
const P = quick ? { warmup: 50, cached: 500, built: 100, rounds: 2 } : { warmup: 200, cached: 1_000, built: 200, rounds: 5 }

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

async function timed(url: string, n: number, before?: () => void): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    before?.()
    const t0 = performance.now()
    const res = await fetch(url)
    await res.arrayBuffer()
    out.push(performance.now() - t0)
    if (res.status !== 200) throw new Error(`status ${res.status}`)
  }
  return out
}

/** 90 days of attempts for one check through the checks' results store, then its current state through the real recorder. */
function seedHistory(t: TestApp, id: string, i: number, now: number) {
  const deps = t.modules.checks
  const row = deps.checks.anyById(id)!
  const rawFrom = now - RAW_KEEP_MS
  deps.transaction(() => {
    for (let ts = now - DAYS * DAY_MS; ts < rawFrom; ts += HOUR_MS) {
      const ok = Math.floor(ts / HOUR_MS + i) % 211 !== 0 ? 1 : 0
      deps.results.record({
        check_seq: row.seq,
        place: 0,
        ts,
        ok,
        response_ms: ok ? 60 + ((ts / HOUR_MS + i) % 90) : null,
        status_code: ok ? 200 : 503,
        error: ok ? null : 'status 503 not accepted',
      })
    }
    for (let ts = rawFrom; ts < now - 60_000; ts += 60_000) {
      deps.results.record({ check_seq: row.seq, place: 0, ts, ok: 1, response_ms: 60 + ((ts / 60_000 + i) % 90), status_code: 200, error: null })
    }
  })
  const down = i % 17 === 0
  const change = recordAttempt(deps, id, 0, {
    ts: now,
    ok: !down,
    response_ms: down ? null : 80 + i,
    status_code: down ? null : 200,
    error: down ? 'connect refused' : null,
    cert_expires_at: null,
  })
  if (change) deps.stateChanged(change)
}

/** The bench's world: the app, its checks with their history, and the page listing them. */
async function world() {
  const clock = manualClock(Date.now())
  const t = testApp({ clock, config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } })
  const tenant = await createTenant(t)
  const ids: string[] = []
  for (let i = 0; i < CHECKS; i++) {
    const made = await t.request('POST', '/v1/checks', {
      headers: tenant.userHeaders,
      body: { name: `Service ${i}`, kind: 'tcp', settings: { host: `svc${i}.example`, port: 443 }, down_after: 1, up_after: 1 },
    })
    if (made.status !== 201) throw new Error(`check: ${made.status} ${made.text}`)
    ids.push(made.body.id as string)
  }
  log(`status page: seeding ${CHECKS} checks × ${DAYS} days`)
  for (const [i, id] of ids.entries()) seedHistory(t, id, i, clock.now())
  const groups = Array.from({ length: 5 }, (_, g) => ({
    name: `Group ${g}`,
    items: ids.slice(g * 10, g * 10 + 10).map((id) => ({ type: 'check', id, show_name: true, show_response_times: true })),
  }))
  const made = await t.request('POST', '/v1/status-pages', { headers: tenant.userHeaders, body: { slug: 'bench', title: 'Bench', groups } })
  if (made.status !== 201) throw new Error(`page: ${made.status} ${made.text}`)
  return { t, clock, pageId: made.body.id as string, clientId: tenant.clientId }
}

export async function statusBench() {
  const { t, clock } = await world()
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => t.handle(req) })
  const url = `http://127.0.0.1:${server.port}/status/bench`
  try {
    const html = await (await fetch(url)).text()
    const bytes = html.length
    const gzipped = Bun.gzipSync(html).byteLength
    await timed(url, P.warmup)
    const cached: number[] = []
    const built: number[] = []
    for (let r = 0; r < P.rounds; r++) {
      log(`status page: round ${r + 1}/${P.rounds}`)
      cached.push(...(await timed(url, P.cached)))
      built.push(...(await timed(url, P.built, () => clock.advance(30_000))))
    }
    const sum = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b)
      return { p50: pct(s, 50), p99: pct(s, 99), n: s.length }
    }
    return { checks: CHECKS, days: DAYS, bytes, gzipped, cached: sum(cached), built: sum(built) }
  } finally {
    server.stop(true)
  }
}

export function statusRows(r: Awaited<ReturnType<typeof statusBench>>): string[][] {
  const ms = (v: number) => `${v.toFixed(2)} ms`
  return [
    [
      `status page, ${r.checks} checks × ${r.days} days, from the render cache`,
      `p99 ${ms(r.cached.p99)}`,
      `p50 ${ms(r.cached.p50)}, ${r.cached.n} sequential GETs, ${Math.round(r.bytes / 1024)} KB of HTML, ${Math.round(r.gzipped / 1024)} KB gzipped as sent (target p99 ≤ 20 ms)`,
    ],
    [
      `status page, ${r.checks} checks × ${r.days} days, built for each request`,
      `p99 ${ms(r.built.p99)}`,
      `p50 ${ms(r.built.p50)}, ${r.built.n} sequential GETs, each after the 30 s cache expired (the real checks module on SQLite in memory)`,
    ],
  ]
}

export async function statusOnly() {
  const rows = statusRows(await statusBench())
  console.log(`\nvigil bench, status page only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

/** For profiling a build by hand (`bun scripts/bench/...`): the world and its page row. */
export async function seedForProfile() {
  const w = await world()
  return { ...w, pageRow: w.t.modules.statusPublic.store.pageById(w.clientId, w.pageId)! }
}
