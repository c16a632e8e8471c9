/** `bun run bench`, the sections run on their own: alert rules (`--alerts-only`), webhooks (`--webhooks-only`), the collector (`--agent-only`) and the portal in chromium (`--browser-only`). */
import { join } from 'node:path'
import { median, runJson, stop } from './proc'
import { seedAccounts } from './seed'
import { seedAlertRules } from './alerts'
import { webhookRows, webhooksBench } from './webhooks'
import { startIngestServer } from './run-ingest'
import { quick, P, CONNECTIONS, root, tmp, log, freshDb, drive, ingestBody, type Run } from './common'

export const ALERT_RULES_PER_CLIENT = 100

/** Ingest with 100 rules per client against the same without rules, on two servers up at once, rounds alternating. */
export async function alertsBench() {
  const servers: Awaited<ReturnType<typeof startIngestServer>>[] = []
  try {
    for (const [name, rules] of [
      ['alerts-none', 0],
      ['alerts-rules', ALERT_RULES_PER_CLIENT],
    ] as const) {
      const dir = join(tmp, name)
      const db = freshDb(dir)
      const tenants = seedAccounts(db.sqlite, { tenants: 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
      seedAlertRules(
        db.sqlite,
        tenants.map((t) => t.clientId),
        rules,
        Date.now(),
      )
      db.close()
      servers.push(await startIngestServer(dir, tenants))
    }
    const [none, rules] = servers as [(typeof servers)[0], (typeof servers)[0]]
    log(`alerts: warm-up ${P.warmup}s each`)
    await drive(none.url, none.devices, none.server.pid, P.warmup)
    await drive(rules.url, rules.devices, rules.server.pid, P.warmup)
    const runs: { none: Run; rules: Run }[] = []
    for (let i = 0; i < P.rounds; i++) {
      log(`alerts round ${i + 1}/${P.rounds}: ${P.duration}s with ${ALERT_RULES_PER_CLIENT} rules per client, ${P.duration}s without`)
      const r = await drive(rules.url, rules.devices, rules.server.pid, P.duration)
      runs.push({ rules: r, none: await drive(none.url, none.devices, none.server.pid, P.duration) })
    }
    for (const s of servers) await stop(s.server)
    log('alerts: crossing → alert.firing latency')
    const latency = await runJson<{ crossings: number; load: number; bus: Lat; notify: Lat; cost: { rules: number; none: number; some: number } }>(
      join(root, 'scripts/bench/alerts.ts'),
      { crossings: quick ? 100 : 500, load: 32, sample: JSON.parse(await ingestBody()) },
      600_000,
    )
    return { runs, latency }
  } finally {
    for (const s of servers) await stop(s.server)
  }
}
export type Lat = { p50: number; p99: number; max: number }

export function alertsRows(a: Awaited<ReturnType<typeof alertsBench>>): [string, string, string][] {
  const med = (side: 'none' | 'rules', k: 'rps' | 'p99' | 'cpuUsPerReq') => median(a.runs.map((r) => r[side][k]))
  const ratios = a.runs.map((r) => r.rules.rps / r.none.rps)
  const ms = (n: number) => `${n.toFixed(2)} ms`
  const errors = a.runs.reduce((n, r) => n + r.rules.non2xx + r.rules.errors + r.none.non2xx + r.none.errors, 0)
  return [
    [
      `alerts: ingest with ${ALERT_RULES_PER_CLIENT} rules per client / none`,
      `${Math.round(med('rules', 'rps'))} / ${Math.round(med('none', 'rps'))} req/s (ratio ${median(ratios).toFixed(2)})`,
      `rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}; p99 ${med('rules', 'p99')} / ${med('none', 'p99')} ms; server CPU ${med('rules', 'cpuUsPerReq').toFixed(1)} / ${med('none', 'cpuUsPerReq').toFixed(1)} µs/req; non-2xx + errors ${errors}`,
    ],
    [
      `alerts: the sample observer's CPU per batch, ${a.latency.cost.rules} rules / none`,
      `${a.latency.cost.some.toFixed(1)} / ${a.latency.cost.none.toFixed(1)} µs`,
      "in-process, a hardware and a network sample through one client's rules (none trips), median of 7 rounds of 20,000; compare with the server CPU per ingest request above",
    ],
    [
      'alerts: sample crossing a threshold → alert.firing on the bus',
      `p99 ${ms(a.latency.bus.p99)}`,
      `p50 ${ms(a.latency.bus.p50)}, max ${ms(a.latency.bus.max)}; ${a.latency.crossings} crossings, in-process, ${a.latency.load} ingest requests in flight meanwhile`,
    ],
    [
      'alerts: sample crossing a threshold → notify port called',
      `p99 ${ms(a.latency.notify.p99)}`,
      `p50 ${ms(a.latency.notify.p50)}, max ${ms(a.latency.notify.max)}; the channels and webhooks modules deliver from there`,
    ],
  ]
}

export async function alertsOnly() {
  const rows = alertsRows(await alertsBench())
  console.log(
    `\nvigil bench, alerts only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.rounds} rounds of ${P.duration} s per server\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

export async function webhooksOnly() {
  const rows = webhookRows(await webhooksBench({ root, tmp, quick, log }))
  console.log(`\nvigil bench, webhooks only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

/**
 * The collector's section runs in a process of its own (it loads the agent, not the server);
 * `--agent-checks` runs its service checks case alone.
 */
export function agentOnly() {
  const flags = [...(quick ? ['--quick'] : []), ...(process.argv.includes('--agent-checks') ? ['--checks-only'] : [])]
  const run = Bun.spawnSync([process.execPath, join(root, 'scripts/bench/agent.ts'), ...flags], { stdout: 'inherit', stderr: 'inherit' })
  if (run.exitCode !== 0) throw new Error('agent bench failed')
}

/** The portal's section: chromium against a seeded dist/vigil, in a process of its own. */
export async function browserOnly() {
  const r = await runJson<{
    devices: number
    dashboard: { cold: { fcp: number; cards: number }; warm: { fcp: number; cards: number }; fleetMs: number; renderMs: number }
    device: { charts: number; drawMs: number; drawMinMs: number; drawMaxMs: number }
    load: number
  }>(join(root, 'scripts/bench/browser.ts'), { quick }, 15 * 60_000)
  console.log(
    `\nvigil bench, portal in chromium${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, load average ${r.load}\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  console.log(
    `| dashboard of ${r.devices} devices: first contentful paint | ${r.dashboard.cold.fcp} ms cold / ${r.dashboard.warm.fcp} ms warm | from navigation start; warm: median of reloads with the assets cached |`,
  )
  console.log(
    `| dashboard of ${r.devices} devices: all cards on screen | ${r.dashboard.cold.cards} ms cold / ${r.dashboard.warm.cards} ms warm | the page's vigil:dashboard:devices mark; warm: GET /v1/clients/me/fleet ${r.dashboard.fleetMs} ms, its answer to the cards painted ${r.dashboard.renderMs} ms |`,
  )
  console.log(
    `| device page, 30 days: data arrived → every chart drawn | ${r.device.drawMs} ms | ${r.device.charts} charts; median of loads, fastest ${r.device.drawMinMs} ms, slowest ${r.device.drawMaxMs} ms |`,
  )
}
