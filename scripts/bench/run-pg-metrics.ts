/**
 * `bun run bench --pg-metrics-only [--pg-metrics-rounds N]`: what a sample costs on each engine,
 * in process, side by side in one run. The whole app (no sockets) on SQLite (a database file in a
 * temporary dir) and on PostgreSQL (a fresh database made on VIGIL_BENCH_PG_URL or
 * VIGIL_TEST_PG_URL, dropped after); 100 devices (10 tenants × 10) each post a batch of the real
 * sample (`vigil agent --once`'s, moved along 10 s a round as a machine's readings move) per round,
 * all of a round at once so they share group commits; rounds alternate between the engines.
 *
 * Prints per engine: the hub's CPU per request (this process), PostgreSQL's own CPU per request
 * (its backends' utime + stime from /proc), and the bytes per sample the samples take on disk
 * (PostgreSQL: pg_total_relation_size of metric_records' partitions, their indexes and TOAST,
 * and the reference records; SQLite: the record files beside the database, where samples of the
 * last hour live).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { openDatabase } from '../../src/db/connection'
import { openPostgres } from '../../src/db/pg/connection'
import { migratePostgres } from '../../src/db/pg/migrate'
import { systemClock } from '../../src/lib/clock'
import { testApp, type TestApp } from '../../test/helpers/app'
import { createKey, createTenant } from '../../test/helpers/fixtures'
import { evolve, type Sample } from './storage-samples'

const argv = process.argv.slice(2)
const opt = (name: string) => {
  const i = argv.indexOf(name)
  return i === -1 ? undefined : argv[i + 1]
}
const ROUNDS = Number(opt('--pg-metrics-rounds') ?? 60)
const TENANTS = 10
const PER_TENANT = 10
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
const base = process.env.VIGIL_BENCH_PG_URL ?? process.env.VIGIL_TEST_PG_URL
if (!base) {
  console.log('pg-metrics: set VIGIL_BENCH_PG_URL or VIGIL_TEST_PG_URL')
  process.exit(1)
}

const sampleFile = opt('--sample') ?? join(import.meta.dir, '../../test/fixtures/agent-sample.json')
const real = JSON.parse(readFileSync(sampleFile, 'utf8')) as Sample
const start = Date.now() - (ROUNDS + 5) * 10_000
const walk = evolve(real, ROUNDS, start, 10_000)

async function world(t: TestApp, sql: SQL | null) {
  const devices: { headers: Record<string, string> }[] = []
  for (let i = 0; i < TENANTS; i++) {
    const tenant = await createTenant(t, { maxDevices: PER_TENANT })
    for (let k = 0; k < PER_TENANT; k++) {
      const key = k === 0 ? tenant.apiKey : createKey(t, tenant.clientId).key
      const reg = await t.request('POST', '/v1/clients/me/devices', {
        headers: { 'x-api-key': key },
        body: { hostname: `h${i}-${k}`, os: 'linux', os_version: '6', arch: 'x86_64', fingerprint: `fp${i}-${k}` },
      })
      if (reg.status !== 201) throw new Error(`device registration: ${reg.status} ${reg.text}`)
      devices.push({ headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-device-id': reg.body.device_id } })
    }
    if (sql) {
      // the devices' store is not chosen on PostgreSQL yet: the metric tables' foreign key finds them there
      await sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${tenant.clientId}, 'bench', 1, 1) ON CONFLICT DO NOTHING`
    }
  }
  if (sql) {
    for (const d of t.db.sqlite
      .query<{ id: string; client_id: string; seq: number; fingerprint: string }, []>('SELECT id, client_id, seq, fingerprint FROM devices')
      .all()) {
      await sql`INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, seq) VALUES (${d.id}, ${d.client_id}, ${d.fingerprint}, 1, 1, ${d.seq}) ON CONFLICT DO NOTHING`
    }
  }
  return async (i: number) => {
    const body = JSON.stringify(walk[i])
    const answers = await Promise.all(
      devices.map((d) => t.handle(new Request('http://localhost/v1/metrics/batch', { method: 'POST', headers: d.headers, body }))),
    )
    for (const a of answers) if (a.status !== 201) throw new Error(`status ${a.status} ${await a.text()}`)
    await Promise.all(answers.map((a) => a.arrayBuffer()))
  }
}

/** PostgreSQL's backends of one database: their CPU (µs) from /proc */
async function backendCpu(sql: SQL, db: string): Promise<number> {
  const rows: { pid: number }[] = await sql`SELECT pid FROM pg_stat_activity WHERE datname = ${db}`
  const tick = 1e6 / 100 // USER_HZ
  let sum = 0
  for (const { pid } of rows) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      sum += (Number(f[11]) + Number(f[12])) * tick
    } catch {}
  }
  return sum
}

function dirBytes(dir: string): number {
  if (!existsSync(dir)) return 0
  return readdirSync(dir).reduce((s, f) => s + statSync(join(dir, f)).size, 0)
}

const tmp = mkdtempSync(join(tmpdir(), 'vigil-pgm-'))
const name = `vigil_bench_metrics_${process.pid}`
const admin = new SQL(base, { max: 1 })
await admin.unsafe(`CREATE DATABASE "${name}"`)
const url = new URL(base)
url.pathname = `/${name}`
const sql = openPostgres({ url: url.toString(), pool: 4 })
try {
  await migratePostgres(sql, Date.now())
  const config = { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never
  const liteDb = openDatabase(join(tmp, 'vigil.db'))
  const lite = await world(testApp({ db: liteDb, clock: systemClock, config }), null)
  const pgApp = testApp({ db: openDatabase(join(tmp, 'unused.db')), clock: systemClock, config, pg: sql })
  const pg = await world(pgApp, sql)
  const cpu = { sqlite: 0, pg: 0, server: 0 }
  const load0 = load()
  for (let i = 0; i < ROUNDS; i++) {
    let c0 = process.cpuUsage()
    await lite(i)
    let c = process.cpuUsage(c0)
    cpu.sqlite += c.user + c.system
    const s0 = await backendCpu(admin, name)
    c0 = process.cpuUsage()
    await pg(i)
    c = process.cpuUsage(c0)
    cpu.pg += c.user + c.system
    cpu.server += (await backendCpu(admin, name)) - s0
  }
  const samples = ROUNDS * TENANTS * PER_TENANT
  liteDb.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  const liteBytes = dirBytes(join(tmp, 'vigil.db-hot'))
  await sql`CHECKPOINT`.catch(() => {})
  const [{ b }] = await sql`SELECT sum(pg_total_relation_size(inhrelid))::bigint AS b FROM pg_inherits WHERE inhparent = 'metric_records'::regclass`
  const [{ r }] = await sql`SELECT pg_total_relation_size('metric_record_refs')::bigint AS r`
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM metric_records`
  if (n !== samples) throw new Error(`PostgreSQL holds ${n} samples, expected ${samples}`)
  const requests = samples
  console.log(`pg-metrics: ${ROUNDS} rounds × ${TENANTS * PER_TENANT} devices, real sample (${JSON.stringify(real).length} B), load ${load0} → ${load()}`)
  console.log('| engine | hub CPU per request | database server CPU per request | bytes per sample on disk |')
  console.log('|---|---|---|---|')
  console.log(`| SQLite | ${(cpu.sqlite / requests).toFixed(1)} µs | (in process) | ${(liteBytes / samples).toFixed(0)} B (record files) |`)
  console.log(
    `| PostgreSQL | ${(cpu.pg / requests).toFixed(1)} µs | ${(cpu.server / requests).toFixed(1)} µs | ${((Number(b) + Number(r)) / samples).toFixed(0)} B (partitions with index and TOAST ${(Number(b) / samples).toFixed(0)} B, references ${(Number(r) / samples).toFixed(0)} B) |`,
  )
  liteDb.close()
} finally {
  await sql.close()
  await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await admin.close()
  rmSync(tmp, { recursive: true, force: true })
}
process.exit(0)
