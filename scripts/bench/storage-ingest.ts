/**
 * Ingest with the real sample: dist/vigil beside the group-commit baseline (bare-group.ts), both
 * up at once, 200 devices (one connection each, as collectors post), rounds alternating between
 * the two so a busy machine weighs on both alike; medians of req/s and of each server's CPU time
 * per request.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { cpuMs, freePort, median, runJson, stop, waitReady } from './proc'
import { seedAccounts } from './seed'
import { registerDevices } from './register'

interface Load {
  rps: number
  p99: number
  ok: number
}

export async function ingestVsGroupCommit(vigil: string, dir: string, body: string, opts: { devices: number; rounds: number; seconds: number }) {
  mkdirSync(dir, { recursive: true })
  const db = openDatabase(join(dir, 'vigil.db'))
  migrate(db.sqlite, Date.now())
  const tenants = seedAccounts(db.sqlite, { tenants: Math.ceil(opts.devices / 10), keysPerTenant: 10, maxDevices: 10, devicesPerTenant: 0, now: Date.now() })
  db.close()
  const port = freePort()
  const server = Bun.spawn([vigil, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], {
    env: { ...process.env, VIGIL_RATE_LIMIT_FREE: '10000000', VIGIL_RATE_LIMIT_ANONYMOUS: '10000000', VIGIL_MODE: 'service', VIGIL_LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const barePort = freePort()
  const bare = Bun.spawn([process.execPath, join(import.meta.dir, 'bare-group.ts'), String(barePort), join(dir, 'bare.db')], {
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const url = `http://127.0.0.1:${port}`
  try {
    await waitReady(`${url}/health`, server)
    await waitReady(`http://127.0.0.1:${barePort}/`, bare)
    const devices = await registerDevices(url, tenants.flatMap((t) => t.keys).slice(0, opts.devices))
    const bareDevices = devices.map((d, i) => ({ key: d.key, id: `d${i}` }))
    const drive = async (target: string, pid: number, devs: { key: string; id: string }[], seconds: number) => {
      const cpu0 = cpuMs(pid) ?? 0
      const r = await runJson<Load>(
        join(import.meta.dir, 'load.ts'),
        { url: target, body, devices: devs, connections: devs.length, duration: seconds },
        (seconds + 60) * 1000,
      )
      return { ...r, cpuUs: r.ok ? (((cpuMs(pid) ?? cpu0) - cpu0) * 1000) / r.ok : 0 }
    }
    await drive(`${url}/v1/metrics/batch`, server.pid, devices, 2)
    await drive(`http://127.0.0.1:${barePort}/v1/metrics/batch`, bare.pid, bareDevices, 2)
    const runs: { vigil: Awaited<ReturnType<typeof drive>>; bare: Awaited<ReturnType<typeof drive>> }[] = []
    for (let i = 0; i < opts.rounds; i++) {
      const v = await drive(`${url}/v1/metrics/batch`, server.pid, devices, opts.seconds)
      runs.push({ vigil: v, bare: await drive(`http://127.0.0.1:${barePort}/v1/metrics/batch`, bare.pid, bareDevices, opts.seconds) })
    }
    const med = (side: 'vigil' | 'bare', k: 'rps' | 'cpuUs' | 'p99') => median(runs.map((r) => r[side][k]))
    return {
      vigil: { rps: med('vigil', 'rps'), cpuUs: med('vigil', 'cpuUs'), p99: med('vigil', 'p99') },
      bare: { rps: med('bare', 'rps'), cpuUs: med('bare', 'cpuUs'), p99: med('bare', 'p99') },
      ratio: med('vigil', 'rps') / med('bare', 'rps'),
      ratios: runs.map((r) => r.vigil.rps / r.bare.rps),
    }
  } finally {
    await stop(server)
    await stop(bare)
  }
}
