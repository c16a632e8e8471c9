/**
 * `bun run bench --containers-only`: the hub's side of containers.
 * 1. ingest: POST /v1/metrics/batch with the usual hardware + network body, and with the same
 *    body plus a containers block of 10 containers, on one server (100 devices, 100 connections),
 *    rounds alternating; both go through the same group commits, so the ratio is the cost of
 *    the containers (inventory, state history, one packed series row per batch);
 * 2. reads: GET /v1/containers (the fleet's containers, "needs attention" first, 100 a page) for
 *    one account of 500 devices × 10 containers, seeded through the ingest code into a fresh
 *    database; sequential requests from a second process, p50/p99; and one device's containers.
 */
import { join } from 'node:path'
import { systemClock } from '../../src/lib/clock'
import { applyBlock } from '../../src/modules/containers/containers.ingest'
import { sqliteContainers } from '../../src/modules/containers/containers.store'
import { accessTokens } from '../../src/modules/users/users.tokens'
import { hardwareSample, networkSample } from '../../test/helpers/samples'
import { block, container } from '../../test/modules/containers/fixtures'
import { cpuMs, freePort, median, runJson, stop, waitReady } from './proc'
import { seedAccounts } from './seed'
import { CONNECTIONS, P, freshDb, log, quick, root, secret, startVigil, tmp, type Load, type Reads } from './common'
import { startIngestServer } from './run-ingest'

const FLEET_DEVICES = 500
const PER_DEVICE = 10

/** ten containers as a busy host runs them, one of them unhealthy and one exited */
const tenContainers = () =>
  block(
    Array.from({ length: PER_DEVICE }, (_, i) =>
      container(`svc-${i}`, {
        image: `registry.example/svc-${i}:1.${i}`,
        labels: { 'com.docker.compose.project': 'shop' },
        health: i === 3 ? 'unhealthy' : 'healthy',
        ...(i === 7 ? { state: 'exited' as const, exit_code: 1, cpu_percent: null } : {}),
      }),
    ),
  )

const plain = JSON.stringify({ hardware: hardwareSample(1), network: networkSample(1) })
const withContainers = JSON.stringify({ hardware: hardwareSample(1), network: networkSample(1), containers: tenContainers() })

async function drive(url: string, devices: { key: string; id: string }[], pid: number, body: string, duration: number) {
  const cpu0 = cpuMs(pid) ?? 0
  const r = await runJson<Load>(join(root, 'scripts/bench/load.ts'), { url, body, devices, connections: CONNECTIONS, duration }, (duration + 60) * 1000)
  const cpu = (cpuMs(pid) ?? cpu0) - cpu0
  return { ...r, cpuUsPerReq: r.ok ? (cpu * 1000) / r.ok : 0 }
}

export async function containersIngestBench() {
  const dir = join(tmp, 'containers-ingest')
  const db = freshDb(dir)
  const tenants = seedAccounts(db.sqlite, { tenants: 10, keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  db.close()
  const vigil = await startIngestServer(dir, tenants)
  try {
    log(`containers ingest: warm-up ${P.warmup}s each`)
    await drive(vigil.url, vigil.devices, vigil.server.pid, plain, P.warmup)
    await drive(vigil.url, vigil.devices, vigil.server.pid, withContainers, P.warmup)
    const runs: { plain: Awaited<ReturnType<typeof drive>>; containers: Awaited<ReturnType<typeof drive>> }[] = []
    for (let i = 0; i < P.rounds; i++) {
      log(`containers ingest round ${i + 1}/${P.rounds}: ${P.duration}s without, ${P.duration}s with 10 containers`)
      const p = await drive(vigil.url, vigil.devices, vigil.server.pid, plain, P.duration)
      runs.push({ plain: p, containers: await drive(vigil.url, vigil.devices, vigil.server.pid, withContainers, P.duration) })
    }
    return runs
  } finally {
    await stop(vigil.server)
  }
}

export async function containersFleetBench() {
  const dir = join(tmp, 'containers-fleet')
  const db = freshDb(dir)
  const now = Date.now()
  const [fleet] = seedAccounts(db.sqlite, { tenants: 1, keysPerTenant: 1, maxDevices: FLEET_DEVICES, devicesPerTenant: FLEET_DEVICES, now, label: 'fleet' })
  log(`containers fleet: seeding ${FLEET_DEVICES} devices × ${PER_DEVICE} containers`)
  const store = sqliteContainers(db.sqlite)
  db.sqlite.transaction(() => {
    for (const d of fleet!.devices) {
      for (const ts of [now - 20_000, now - 10_000]) {
        applyBlock(store, { clientId: fleet!.clientId, deviceId: d.id, deviceSeq: d.seq, ts, sent: true, block: tenContainers() })
      }
    }
  })()
  db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  const port = freePort()
  const server = startVigil(dir, port)
  const base = `http://127.0.0.1:${port}`
  try {
    await waitReady(`${base}/health`, server)
    const token = await accessTokens(secret, systemClock).sign({ userId: fleet!.userId, clientId: fleet!.clientId, role: 'user' })
    const paths = {
      [`GET /v1/containers (${FLEET_DEVICES * PER_DEVICE} containers, attention first, 100 a page)`]: '/v1/containers',
      'GET /v1/containers?needs_attention=true&sort=-cpu': '/v1/containers?needs_attention=true&sort=-cpu',
      'GET /v1/containers?name=svc-3&image=registry': '/v1/containers?name=svc-3&image=registry',
      [`GET /v1/devices/{id}/containers (${PER_DEVICE})`]: `/v1/devices/${fleet!.devices[0]!.id}/containers`,
    }
    const reads = await runJson<Reads>(join(root, 'scripts/bench/reads.ts'), { base, token, paths, n: P.reads, rounds: P.readRounds, warmup: 100 }, 900_000)
    for (const [k, v] of Object.entries(reads)) if (v.status !== 200) throw new Error(`${k}: status ${v.status}`)
    const bytes = (await (await fetch(`${base}/v1/containers`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer()).byteLength
    return { reads, bytes }
  } finally {
    await stop(server)
  }
}

export function containersRows(
  ingest: Awaited<ReturnType<typeof containersIngestBench>>,
  fleet: Awaited<ReturnType<typeof containersFleetBench>>,
): [string, string, string][] {
  const med = (side: 'plain' | 'containers', k: 'rps' | 'p50' | 'p99' | 'cpuUsPerReq') => median(ingest.map((r) => r[side][k]))
  const ratios = ingest.map((r) => r.containers.rps / r.plain.rps)
  const errors = ingest.reduce((n, r) => n + r.plain.non2xx + r.plain.errors + r.containers.non2xx + r.containers.errors, 0)
  const row = (side: 'plain' | 'containers', label: string): [string, string, string] => [
    label,
    `${Math.round(med(side, 'rps'))} req/s`,
    `p50 ${med(side, 'p50')} ms, p99 ${med(side, 'p99')} ms, server CPU ${med(side, 'cpuUsPerReq').toFixed(1)} µs/req`,
  ]
  return [
    row('plain', `ingest ${plain.length} B batch (hardware + network)`),
    row('containers', `ingest ${withContainers.length} B batch (+ 10 containers)`),
    [
      'ingest ratio with / without containers (median of rounds)',
      median(ratios).toFixed(2),
      `rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}; non-2xx + errors ${errors}`,
    ],
    ...Object.entries(fleet.reads).map(([k, v]): [string, string, string] => [k, `p50 ${v.p50} ms`, `p99 ${v.p99} ms (per round: ${v.p99Rounds.join(', ')})`]),
    ['GET /v1/containers answer', `${(fleet.bytes / 1024).toFixed(1)} KiB`, '100 containers with their figures'],
  ]
}

export async function containersOnly() {
  const ingest = await containersIngestBench()
  const fleet = await containersFleetBench()
  console.log(
    `\nvigil bench, containers only${quick ? ' (--quick)' : ''} — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, ${CONNECTIONS} connections, ${P.rounds} rounds of ${P.duration} s per body\n`,
  )
  console.log('| measure | result | detail |\n|---|---|---|')
  for (const r of containersRows(ingest, fleet)) console.log(`| ${r.join(' | ')} |`)
}
