/** `bun run bench`, hostile traffic beside quiet ingest (nested and oversized bodies from another tenant); `--hostile-only`. */
import { join } from 'node:path'
import { median, runJson, stop } from './proc'
import { seedAccounts, type SeededTenant } from './seed'
import { startIngestServer } from './run-ingest'
import { quick, P, DEVICES, CONNECTIONS, root, tmp, log, freshDb, drive, type Run } from './common'

export const HOSTILE_CLIENTS = 10

/**
 * Ingest and /health alone ("quiet") and while HOSTILE_CLIENTS clients send nested and oversized
 * bodies ("hostile"), alternating phases of P.duration s on one fresh server; medians of rounds.
 * The probe and the attackers are processes of their own, like the load generator.
 */
export async function hostileBench() {
  const dir = join(tmp, 'hostile')
  const db = freshDb(dir)
  // two more tenants than the collectors need: their keys are the attackers'. The first has the
  // bench's unlimited rate (an attacker the operator trusted); the second its plan's 60/min.
  const tenants = seedAccounts(db.sqlite, { tenants: 12, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  const [unlimited, limited] = tenants.splice(-2) as [SeededTenant, SeededTenant]
  db.sqlite.query('UPDATE clients SET rate_limit = ? WHERE id = ?').run(ATTACKER_PLAN_LIMIT, limited.clientId)
  db.close()
  const vigil = await startIngestServer(dir, tenants)
  const collectors = vigil.devices.slice(0, DEVICES)
  const base = vigil.url.replace('/v1/metrics/batch', '')
  const helper = join(root, 'scripts/bench/hostile.ts')
  const spec = { base, keys: unlimited.keys, duration: P.duration, clients: HOSTILE_CLIENTS }
  type Probe = { n: number; p50: number; p99: number; max: number }
  type Phase = { load: Run; health: Probe; attack?: Record<string, number> }
  const phase = async (keys: string[] | null): Promise<Phase> => {
    const [load, health, attack] = await Promise.all([
      drive(vigil.url, collectors, vigil.server.pid, P.duration),
      runJson<Probe>(helper, { ...spec, mode: 'probe' }, 120_000),
      // At the lowest CPU priority, standing in for senders on other machines: on two cores an
      // attacker at normal priority takes a core from the server and the load generator alike,
      // which measures the box, not the service. What the server spends on the attacks still counts.
      keys ? runJson<Record<string, number>>(helper, { ...spec, keys, mode: 'attack' }, 120_000, { lowestPriority: true }) : undefined,
    ])
    return { load, health, attack }
  }
  try {
    log(`hostile: warm-up ${P.warmup}s`)
    await drive(vigil.url, collectors, vigil.server.pid, P.warmup)
    const phases: { quiet: Phase; hostile: Phase; limited: Phase }[] = []
    for (let i = 0; i < P.hostileRounds; i++) {
      log(
        `hostile round ${i + 1}/${P.hostileRounds}: ${P.duration}s quiet, ${P.duration}s with ${HOSTILE_CLIENTS} unlimited attackers, ${P.duration}s with them at ${ATTACKER_PLAN_LIMIT}/min`,
      )
      phases.push({ quiet: await phase(null), hostile: await phase(unlimited.keys), limited: await phase(limited.keys) })
    }
    return phases
  } finally {
    await stop(vigil.server)
  }
}

/** the free plan's requests per minute: what an attacking tenant gets unless the operator raised it */
export const ATTACKER_PLAN_LIMIT = 60

export function hostileRows(phases: Awaited<ReturnType<typeof hostileBench>>): [string, string, string][] {
  const med = (f: (p: (typeof phases)[number]) => number) => median(phases.map(f))
  const ms = (n: number) => `${Math.round(n * 100) / 100} ms`
  const failed = phases.reduce((n, p) => n + [p.quiet, p.hostile, p.limited].reduce((m, ph) => m + ph.load.non2xx + ph.load.errors, 0), 0)
  const attackRow = (which: 'hostile' | 'limited', label: string): [string, string, string] => {
    const attack: Record<string, number> = {}
    for (const p of phases) for (const [k, n] of Object.entries(p[which].attack ?? {})) attack[k] = (attack[k] ?? 0) + n
    const total = Object.values(attack).reduce((a, b) => a + b, 0)
    return [
      `hostile: attack requests answered (${label})`,
      `${total} in ${phases.length} × ${P.duration} s`,
      Object.entries(attack)
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join(', '),
    ]
  }
  const loadRow = (which: 'hostile' | 'limited', label: string): [string, string, string] => {
    const ratio = med((p) => p[which].load.rps / p.quiet.load.rps)
    return [
      `hostile: ingest quiet / with ${HOSTILE_CLIENTS} attackers (${label})`,
      `${Math.round(med((p) => p.quiet.load.rps))} / ${Math.round(med((p) => p[which].load.rps))} req/s (ratio ${ratio.toFixed(2)})`,
      `p99 ${ms(med((p) => p.quiet.load.p99))} / ${ms(med((p) => p[which].load.p99))}; server CPU ${med((p) => p.quiet.load.cpuUsPerReq).toFixed(1)} / ${med((p) => p[which].load.cpuUsPerReq).toFixed(1)} µs per ingest request (attacks included); peak RSS ${med((p) => p.quiet.load.peakRss).toFixed(1)} / ${med((p) => p[which].load.peakRss).toFixed(1)} MB`,
    ]
  }
  const healthRow = (which: 'hostile' | 'limited', label: string): [string, string, string] => [
    `hostile: GET /health quiet / with ${HOSTILE_CLIENTS} attackers (${label})`,
    `p99 ${ms(med((p) => p.quiet.health.p99))} / ${ms(med((p) => p[which].health.p99))}`,
    `p50 ${ms(med((p) => p.quiet.health.p50))} / ${ms(med((p) => p[which].health.p50))}, max ${ms(med((p) => p.quiet.health.max))} / ${ms(med((p) => p[which].health.max))}`,
  ]
  return [
    loadRow('limited', `at the plan's ${ATTACKER_PLAN_LIMIT}/min`),
    healthRow('limited', `at the plan's ${ATTACKER_PLAN_LIMIT}/min`),
    attackRow('limited', `at the plan's ${ATTACKER_PLAN_LIMIT}/min`),
    loadRow('hostile', 'unlimited rate'),
    healthRow('hostile', 'unlimited rate'),
    attackRow('hostile', 'unlimited rate'),
    [
      'hostile: collector requests failed',
      String(failed),
      'non-2xx + errors of the ingest load, all phases (deep = 100k-deep array, declared/chunked = 2 MiB over the 1 MiB cap)',
    ],
  ]
}

export async function hostileOnly() {
  const rows = hostileRows(await hostileBench())
  console.log(
    `\nvigil bench, hostile traffic only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} collector connections\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}
