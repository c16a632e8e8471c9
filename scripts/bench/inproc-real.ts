/**
 * In-process CPU cost of one ingest request with the real sample, through the whole app (no
 * sockets): `bun scripts/bench/inproc-real.ts [rounds] [sample.json]`. 200 devices (20 tenants × 10
 * keys) each post the sample (without its recorded_at) once per round, all of a round at once, so
 * they share group commits as under load; a WAL checkpoint runs between rounds, outside the measure.
 * Steadier than the socket bench on a busy machine; the sample is what `dist/vigil agent --once`
 * prints, or the file given.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { systemClock } from '../../src/lib/clock'
import { testApp } from '../../test/helpers/app'
import { createKey, createTenant } from '../../test/helpers/fixtures'
import { realSample } from './storage-samples'

const rounds = Number(process.argv[2] ?? 100)
const file = process.argv[3]
const sample = file ? JSON.parse(readFileSync(file, 'utf8')) : await realSample(join(import.meta.dir, '../../dist/vigil'))
delete sample.recorded_at
const body = JSON.stringify(sample)

const dir = mkdtempSync(join(tmpdir(), 'vigil-inproc-'))
mkdirSync(dir, { recursive: true })
const db = openDatabase(join(dir, 'vigil.db'))
const t = testApp({ db, clock: systemClock, config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never })
const devices: Record<string, string>[] = []
for (let i = 0; i < 20; i++) {
  const tenant = await createTenant(t, { maxDevices: 10 })
  for (let k = 0; k < 10; k++) {
    const key = k === 0 ? tenant.apiKey : createKey(t, tenant.clientId).key
    const reg = await t.request('POST', '/v1/clients/me/devices', {
      headers: { 'x-api-key': key },
      body: { hostname: `h${i}-${k}`, os: 'linux', os_version: '6', arch: 'x86_64', fingerprint: `fp${i}-${k}` },
    })
    if (reg.status !== 201) throw new Error(`device registration: ${reg.status} ${reg.text}`)
    devices.push({ 'x-api-key': key, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-device-id': reg.body.device_id })
  }
}

async function round() {
  const answers = await Promise.all(devices.map((headers) => t.handle(new Request('http://localhost/v1/metrics/batch', { method: 'POST', headers, body }))))
  for (const a of answers) if (a.status !== 201) throw new Error(`status ${a.status} ${await a.text()}`)
  await Promise.all(answers.map((a) => a.arrayBuffer()))
}

for (let i = 0; i < 10; i++) await round()
const perRound: number[] = []
for (let i = 0; i < rounds; i++) {
  db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  const c0 = process.cpuUsage()
  await round()
  const c = process.cpuUsage(c0)
  perRound.push((c.user + c.system) / devices.length)
}
db.close()
rmSync(dir, { recursive: true, force: true })
const sorted = perRound.sort((a, b) => a - b)
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1)
console.log(`${at(0.5)} µs CPU per ingest request (median of ${rounds} rounds of ${devices.length}; p25 ${at(0.25)}, p75 ${at(0.75)}), body ${body.length} B`)
