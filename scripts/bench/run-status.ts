/**
 * `bun run bench --status-only`: a public status page with 50 checks and 90 days of history,
 * answered over a socket on 127.0.0.1 by the app in-process (the checks come from the fake
 * checks port of test/helpers/status-checks.ts, 90 days each, until the checks module fills
 * the real port). Two figures: the page as visitors get it (from the render cache, rebuilt
 * every 30 s) and the page built for every request (the cache expired each time: the worst
 * case, one visitor every 30 s). Sequential requests after a warm-up; p50/p99 over all rounds.
 */
import { manualClock } from '../../src/lib/clock'
import { testApp } from '../../test/helpers/app'
import { createTenant } from '../../test/helpers/fixtures'
import { fakeChecksPort, type FakeCheck } from '../../test/helpers/status-checks'
import { log, quick } from './common'

const CHECKS = 50
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

export async function statusBench() {
  const clock = manualClock(Date.now())
  let port: ReturnType<typeof fakeChecksPort> | undefined
  const t = testApp({
    clock,
    config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } },
    statusChecks: {
      views: (...a) => port!.views(...a),
      uptimeByDay: (...a) => port!.uptimeByDay(...a),
      responseTimes: (...a) => port!.responseTimes(...a),
      incidents: (...a) => port!.incidents(...a),
    },
  })
  const tenant = await createTenant(t)
  const checks: FakeCheck[] = Array.from({ length: CHECKS }, (_, i) => ({
    id: `chk_${i}`,
    name: `Service ${i}`,
    kind: 'http',
    state: i % 17 === 0 ? 'down' : 'up',
    last_checked_at: new Date(clock.now()).toISOString(),
    response_ms: 80 + i,
    days: Array.from({ length: 90 }, (_, d) => ((d + i) % 29 === 0 ? 0.98 : 1)),
  }))
  port = fakeChecksPort(tenant.clientId, checks, clock.now)
  const groups = Array.from({ length: 5 }, (_, g) => ({
    name: `Group ${g}`,
    items: checks.slice(g * 10, g * 10 + 10).map((c) => ({ type: 'check', id: c.id, show_name: true, show_response_times: true })),
  }))
  const made = await t.request('POST', '/v1/status-pages', { headers: tenant.userHeaders, body: { slug: 'bench', title: 'Bench', groups } })
  if (made.status !== 201) throw new Error(`page: ${made.status} ${made.text}`)
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
    return { checks: CHECKS, days: 90, bytes, gzipped, cached: sum(cached), built: sum(built) }
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
      `p50 ${ms(r.built.p50)}, ${r.built.n} sequential GETs, each after the 30 s cache expired (fake checks port, in memory)`,
    ],
  ]
}

export async function statusOnly() {
  const rows = statusRows(await statusBench())
  console.log(`\nvigil bench, status page only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}
