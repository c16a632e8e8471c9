/** `bun run bench`, reads: history and summaries on seeded data, the portal's reads (`--portal-only`), a Prometheus scrape (`--metrics-only`). */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { systemClock } from '../../src/lib/clock'
import { accessTokens } from '../../src/modules/users/users.tokens'
import { cpuMs, memoryMb, rssMb, runJson, stop, waitReady } from './proc'
import type { SeededTenant } from './seed'
import { quick, P, IDLE_AFTER_START_MS, root, secret, metricsToken, log, type Reads, seededServer } from './common'

export async function readBench(name: string, tenantCount: number) {
  const total = tenantCount * 10 * P.perDevice * 2
  log(`${name}: seeding ${(total / 1e6).toFixed(1)} M samples`)
  const t0 = performance.now()
  const { dir, tenants, server, base } = await seededServer(name, tenantCount, P.perDevice)
  const seedSeconds = Math.round((performance.now() - t0) / 1000)
  try {
    await waitReady(`${base}/health`, server)
    await Bun.sleep(IDLE_AFTER_START_MS)
    const idleRss = memoryMb(server.pid)!
    const t = tenants[0]!
    const token = await accessTokens(secret, systemClock).sign({ userId: t.userId, clientId: t.clientId, role: 'admin' })
    const id = t.devices[0]!.id
    const reads = await runJson<Reads>(
      join(root, 'scripts/bench/reads.ts'),
      {
        base,
        token,
        n: P.reads,
        rounds: P.readRounds,
        warmup: 200,
        paths: {
          'history limit 120': `/v1/metrics/hardware/${id}?limit=120`,
          'summary 24 h': `/v1/metrics/summary/${id}?hours=24`,
          'summary 168 h': `/v1/metrics/summary/${id}?hours=168`,
        },
      },
      600_000,
    )
    for (const [k, v] of Object.entries(reads)) if (v.status !== 200) throw new Error(`${k}: status ${v.status}`)
    return { total, seedSeconds, reads, idleRss, afterReadsRss: rssMb(server.pid), fileMb: Math.round(statSync(join(dir, 'vigil.db')).size / 1e6) }
  } finally {
    await stop(server)
  }
}

/** 30 days of one device at 10 s, and the dashboard's fleet of 500 devices with an hour and a bit each. */
export const PORTAL = { perDevice: 30 * 8_640, fleetDevices: 500, fleetPerDevice: 400 }

/**
 * The portal's chart and dashboard reads: 20 devices × 30 days at 10 s (10.4 M samples, sealed as
 * a running hub seals them) for the series, history pages, latest sample and summaries of one of
 * them, and a tenant of 500 devices for the fleet overview, in one database.
 */
export async function portalBench() {
  const perDevice = quick ? 8_640 * 3 : PORTAL.perDevice
  const total = 20 * perDevice * 2 + PORTAL.fleetDevices * PORTAL.fleetPerDevice * 2
  log(
    `portal: seeding ${(total / 1e6).toFixed(1)} M samples (20 devices × ${perDevice / 8_640} days, ${PORTAL.fleetDevices} devices × ${PORTAL.fleetPerDevice})`,
  )
  const t0 = performance.now()
  const { tenants, fleet, server, base } = await seededServer('portal', 2, perDevice, { devices: PORTAL.fleetDevices, perDevice: PORTAL.fleetPerDevice })
  const seedSeconds = Math.round((performance.now() - t0) / 1000)
  try {
    await waitReady(`${base}/health`, server)
    const sign = (t: SeededTenant) => accessTokens(secret, systemClock).sign({ userId: t.userId, clientId: t.clientId, role: 'user' })
    const t = tenants[0]!
    const id = t.devices[0]!.id
    const days = perDevice / 8_640
    const since = (ms: number) => new Date(Date.now() - ms).toISOString()
    const series = `/v1/metrics/series/${id}?kind=hardware&fields=cpu_percent,ram_percent`
    const spec = { base, rounds: P.readRounds }
    // one path per reader process, each with a fresh access token (they last 15 minutes)
    // with the server's CPU time per request: steadier than latency on a shared machine
    const all: Record<string, Reads[string] & { cpuMs: number }> = {}
    const read = async (tenant: SeededTenant, name: string, path: string, n = P.reads, warmup = 200) => {
      const token = await sign(tenant)
      const cpu0 = cpuMs(server.pid) ?? 0
      const r = await runJson<Reads>(join(root, 'scripts/bench/reads.ts'), { ...spec, n, warmup, token, paths: { [name]: path } }, 900_000)
      all[name] = { ...r[name]!, cpuMs: ((cpuMs(server.pid) ?? cpu0) - cpu0) / (n * P.readRounds + warmup) }
    }
    await read(t, `series ${days} d, 2 hot fields (auto: ${days >= 13 ? '1h' : '10m'} tier)`, `${series}&start=${since(days * 86_400_000)}`)
    await read(t, 'series 1 h, 2 hot fields (auto: raw)', series)
    // the device page's reads: a history page a day back (sealed blocks), the latest sample, the summaries
    await read(t, 'history limit 120, a day back (sealed)', `/v1/metrics/hardware/${id}?limit=120&offset=8640`)
    await read(t, 'history limit 120, newest', `/v1/metrics/hardware/${id}?limit=120`)
    // a page anywhere in the 30 days: its two or three blocks are seldom among the eight kept decoded,
    // and its start is located by walking the index entries above it (a few ms deep in the month): a tenth of the requests
    await read(
      t,
      'history limit 120, random offset (sealed, cold)',
      `/v1/metrics/hardware/${id}?limit=120&offset={random:${perDevice - 120}}`,
      P.reads / 10,
      20,
    )
    await read(t, 'latest', `/v1/metrics/hardware/${id}/latest`)
    await read(t, 'summary 24 h', `/v1/metrics/summary/${id}?hours=24`)
    await read(t, 'summary 168 h', `/v1/metrics/summary/${id}?hours=168`)
    // each answer reads up to 360 raw samples spread over the day, a page read each: a fifth of the requests
    await read(
      t,
      'series 24 h, cpu_per_core + disk_partitions (auto: 10m, ≤ 360 raw samples)',
      `/v1/metrics/series/${id}?kind=hardware&fields=cpu_per_core,disk_partitions&start=${since(86_400_000)}`,
      P.reads / 5,
      20,
    )
    await read(fleet!, `fleet overview, ${PORTAL.fleetDevices} devices`, '/v1/clients/me/fleet')
    for (const [k, v] of Object.entries(all)) if (v.status !== 200) throw new Error(`${k}: status ${v.status}`)
    const size = async (path: string, tenant: SeededTenant) =>
      (await (await fetch(base + path, { headers: { authorization: `Bearer ${await sign(tenant)}` } })).arrayBuffer()).byteLength
    const seriesBytes = await size(`${series}&start=${since(days * 86_400_000)}`, t)
    const fleetBytes = await size('/v1/clients/me/fleet', fleet!)
    return { total, seedSeconds, reads: all, fleetBytes, seriesBytes, days }
  } finally {
    await stop(server)
  }
}

export function portalRows(p: Awaited<ReturnType<typeof portalBench>>): [string, string, string][] {
  const label = `${(p.total / 1e6).toFixed(1)} M samples`
  const rows: [string, string, string][] = Object.entries(p.reads).map(([k, v]) => [
    `${k} (${label})`,
    `p50 ${v.p50} ms`,
    `p99 ${v.p99} ms${v.p99Rounds.length > 1 ? ` (per round: ${v.p99Rounds.join(', ')})` : ''}; server CPU ${v.cpuMs.toFixed(2)} ms/req`,
  ])
  rows.push([
    'answer sizes',
    `${(p.seriesBytes / 1e3).toFixed(0)} KB / ${(p.fleetBytes / 1e3).toFixed(0)} KB`,
    `series ${p.days} d (2 fields, values/min/max) / fleet overview of ${PORTAL.fleetDevices} devices`,
  ])
  rows.push(['portal seeding', `${p.seedSeconds} s`, label])
  return rows
}

export async function portalOnly() {
  const rows = portalRows(await portalBench())
  console.log(`\nvigil bench, portal reads only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

/** A Prometheus scrape of a fleet of 1,000 devices, each with a fresh sample. */
export async function metricsBench() {
  const { tenants, server, base } = await seededServer('metrics', 100, 2)
  try {
    await waitReady(`${base}/health`, server)
    const first = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
    const text = await first.text()
    if (first.status !== 200) throw new Error(`/metrics: status ${first.status}`)
    const gzipped = Bun.gzipSync(Buffer.from(text)).length
    const reads = await runJson<Reads>(
      join(root, 'scripts/bench/reads.ts'),
      { base, token: metricsToken, n: P.reads / 5, rounds: P.readRounds, warmup: 20, paths: { 'GET /metrics': '/metrics' } },
      600_000,
    )
    const r = reads['GET /metrics']!
    const series = text.split('\n').filter((l) => l && !l.startsWith('#')).length
    return { devices: tenants.length * 10, p50: r.p50, p99: r.p99, bytes: text.length, gzipped, series }
  } finally {
    await stop(server)
  }
}

export function metricsRows(m: Awaited<ReturnType<typeof metricsBench>>): [string, string, string][] {
  return [
    [
      `GET /metrics, ${m.devices} devices (metrics token)`,
      `p50 ${m.p50} ms`,
      `p99 ${m.p99} ms; ${(m.bytes / 1e6).toFixed(2)} MB, ${m.series} series (${(m.gzipped / 1e3).toFixed(0)} KB gzipped)`,
    ],
  ]
}

export async function metricsOnly() {
  const rows = metricsRows(await metricsBench())
  console.log(`\nvigil bench, /metrics only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}\n`)
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}
