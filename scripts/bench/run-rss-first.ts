/**
 * Part of `bun run bench --rss-only`: each build started from a cold page cache, its RSS, then
 * the first request of each kind. Each round starts every build in turn on a fresh data dir of
 * one tenant with one device (no sample yet), its executable first dropped from the page cache
 * (as after a reboot), and reads its memory as the idle reading does (2 s after /health first
 * answers). The pages of the executable a hub maps depend on how they came into the page cache
 * (a file just written or read whole sits in large folios, which the kernel maps whole around each
 * page touched): started warm, two builds of the same commit differed by 2 MB; started cold,
 * they read within 0.5 MB of each other. Then each kind of request once, one after another,
 * timed from this process (loopback included) and in the hub's CPU time (all its threads,
 * nanosecond clocks: on a busy machine the steadier of the two): a cut of idle memory must not
 * move work into the first requests. Medians of the rounds.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { systemClock } from '../../src/lib/clock'
import { accessTokens } from '../../src/modules/users/users.tokens'
import { dropFromPageCache, freePort, median, memoryMb, stop, waitReady } from './proc'
import { seedAccounts } from './seed'
import { freshDbOf, IDLE_AFTER_START_MS, secret, startVigil, tmp } from './common'
import type { Sample } from './storage-samples'

interface Kind {
  name: string
  method: 'GET' | 'POST'
  path: (device: string) => string
  /** the collector's key; otherwise the portal user's token, or nothing for a public path */
  auth: 'key' | 'user' | 'none'
  body?: string
  status: number
}

/** What a hub meets first after a start: a collector's sample, a portal session, the docs. */
function kinds(sample: Sample): Kind[] {
  return [
    {
      name: 'POST /v1/metrics/batch (the real sample)',
      method: 'POST',
      path: () => '/v1/metrics/batch',
      auth: 'key',
      body: JSON.stringify(sample),
      status: 201,
    },
    { name: 'GET /dashboard (the portal shell)', method: 'GET', path: () => '/dashboard', auth: 'none', status: 200 },
    { name: 'GET /v1/clients/me/devices', method: 'GET', path: () => '/v1/clients/me/devices', auth: 'user', status: 200 },
    { name: 'GET /v1/metrics/hardware/{id}?limit=120', method: 'GET', path: (d) => `/v1/metrics/hardware/${d}?limit=120`, auth: 'user', status: 200 },
    { name: 'GET /v1/metrics/summary/{id}?hours=24', method: 'GET', path: (d) => `/v1/metrics/summary/${d}?hours=24`, auth: 'user', status: 200 },
    { name: 'GET /openapi.json', method: 'GET', path: () => '/openapi.json', auth: 'none', status: 200 },
    { name: 'GET /docs', method: 'GET', path: () => '/docs', auth: 'none', status: 200 },
  ]
}

/** CPU time of every thread of a process so far, in ms (/proc/PID/task/TID/schedstat counts nanoseconds). */
function threadsCpuMs(pid: number): number {
  let ns = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1e6
}

interface Took {
  ms: number
  cpuMs: number
}

type Mem = NonNullable<ReturnType<typeof memoryMb>>

/** One cold start of `bin`: its memory, and wall and CPU ms per kind for its first request. */
async function firstRequests(bin: string, name: string, sample: Sample): Promise<{ cold: Mem; took: Record<string, Took> }> {
  const dir = join(tmp, name)
  const db = freshDbOf(bin, dir)
  const [tenant] = seedAccounts(db.sqlite, { tenants: 1, keysPerTenant: 1, maxDevices: 10, devicesPerTenant: 1, now: Date.now() })
  db.close()
  const device = tenant!.devices[0]!.id
  const token = await accessTokens(secret, systemClock).sign({ userId: tenant!.userId, clientId: tenant!.clientId, role: 'admin' })
  const headers = {
    key: { 'x-api-key': tenant!.keys[0]!, 'x-device-id': device, 'content-type': 'application/json' },
    user: { authorization: `Bearer ${token}` },
    none: {},
  }
  const port = freePort()
  const base = `http://127.0.0.1:${port}`
  dropFromPageCache(bin)
  const server = startVigil(dir, port, bin)
  try {
    await waitReady(`${base}/health`, server)
    await Bun.sleep(IDLE_AFTER_START_MS)
    const cold = memoryMb(server.pid)!
    const took: Record<string, Took> = {}
    for (const k of kinds(sample)) {
      const t0 = performance.now()
      const cpu0 = threadsCpuMs(server.pid)
      const res = await fetch(base + k.path(device), { method: k.method, headers: headers[k.auth], body: k.body })
      await res.arrayBuffer()
      took[k.name] = { ms: performance.now() - t0, cpuMs: threadsCpuMs(server.pid) - cpu0 }
      if (res.status !== k.status) throw new Error(`${name}: ${k.name} answered ${res.status}`)
    }
    return { cold, took }
  } finally {
    await stop(server)
  }
}

/** `rounds` starts of each build, builds alternating within a round. */
export async function firstRequestBench(list: { label: string; bin: string }[], sample: Sample, rounds: number) {
  const runs: Record<string, { cold: Mem; took: Record<string, Took> }[]> = Object.fromEntries(list.map((b) => [b.label, []]))
  for (let round = 0; round < rounds; round++) {
    for (const b of round % 2 ? [...list].reverse() : list) runs[b.label]!.push(await firstRequests(b.bin, `first-${b.label}-${round}`, sample))
  }
  return runs
}

/** The cold-start RSS, then one row per kind: each build's medians, side by side. */
export function firstRequestRows(runs: Awaited<ReturnType<typeof firstRequestBench>>, rounds: number): [string, string, string][] {
  const labels = Object.keys(runs)
  const names = Object.keys(runs[labels[0]!]![0]?.took ?? {})
  const mem = (label: string) => {
    const of = (k: keyof Mem) => median(runs[label]!.map((r) => r.cold[k])).toFixed(1)
    return `${of('rss')} MB (anonymous ${of('anon')} MB + file-backed ${of('file')} MB)`
  }
  const at = (label: string, name: string, what: keyof Took) => median(runs[label]!.map((r) => r.took[name]![what])).toFixed(1)
  const both = (label: string, name: string) => `${at(label, name, 'ms')} ms (server CPU ${at(label, name, 'cpuMs')} ms)`
  const others = (show: (l: string) => string) => [...labels.slice(1).map((l) => `${l}: ${show(l)}`), `median of ${rounds} starts`].join('; ')
  return [
    [`RSS idle after a start from a cold page cache (${labels[0]})`, mem(labels[0]!), others(mem)],
    ...names.map((name): [string, string, string] => [`first ${name} after start (${labels[0]})`, both(labels[0]!, name), others((l) => both(l, name))]),
  ]
}
