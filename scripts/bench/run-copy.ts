/**
 * `bun run bench --copy-only [--copy-samples N] [--copy-no-verify]`: what `vigil copy --to` takes for an instance of
 * 1 M samples (10 devices × 100,000 at 10 s, the real sample's values, two devices' texts sealed
 * into blocks as the bench seed does; no rollups), with each way of sending rows through Bun.SQL
 * (one INSERT with a parameter per value, or one array per column unnested by the server), side by
 * side in one run, each into a fresh database made on VIGIL_BENCH_PG_URL or VIGIL_TEST_PG_URL and
 * dropped after. The copy is the command's own (src/db/pg/copy.ts), verification included.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { type CopyMethod, copyPlan, copySqliteToPostgres } from '../../src/db/pg/copy'
import { migratePostgres } from '../../src/db/pg/migrate'
import { ensureMetricTables } from '../../src/db/pg/metrics.partitions'
import { freshDb } from './common'
import { insertSamples, seedAccounts } from './seed'

const argv = process.argv.slice(2)
const opt = (name: string) => {
  const i = argv.indexOf(name)
  return i === -1 ? undefined : argv[i + 1]
}
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

async function freshPg(base: string) {
  const name = `vigil_bench_copy_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new SQL(base, { max: 1 })
  await admin.unsafe(`CREATE DATABASE "${name}"`)
  await admin.close()
  const u = new URL(base)
  u.pathname = `/${name}`
  return {
    url: u.toString(),
    drop: async () => {
      const a = new SQL(base, { max: 1 })
      await a.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await a.close()
    },
  }
}

export async function copyOnly() {
  const base = process.env.VIGIL_BENCH_PG_URL ?? process.env.VIGIL_TEST_PG_URL
  if (!base) throw new Error('--copy-only needs VIGIL_BENCH_PG_URL or VIGIL_TEST_PG_URL (a PostgreSQL superuser URL)')
  const total = Number(opt('--copy-samples') ?? 1_000_000)
  const verify = !argv.includes('--copy-no-verify')
  const devices = 10
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-copy-'))
  try {
    const t0 = performance.now()
    const db = freshDb(dir)
    const end = Date.now()
    const [tenant] = seedAccounts(db.sqlite, { tenants: 1, keysPerTenant: 1, maxDevices: devices, devicesPerTenant: devices, now: end })
    await insertSamples(
      db.sqlite,
      tenant!.devices.map((d) => d.seq),
      Math.ceil(total / devices),
      end,
    )
    db.close()
    // the command's own connection: nothing of the seed's (its temporary tables) on it
    const source = new Database(join(dir, 'vigil.db'), { strict: true })
    console.log(`seeded ${total} samples in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
    const rows: string[] = []
    for (const method of ['insert', 'unnest'] as CopyMethod[]) {
      const target = await freshPg(base)
      const sql = new SQL(target.url, { max: 1 })
      try {
        await migratePostgres(sql, Date.now())
        await ensureMetricTables(sql, Date.now())
        const before = load()
        const started = performance.now()
        const tables = await copySqliteToPostgres(source, sql, copyPlan(), { replace: false, verify: !argv.includes('--copy-no-verify'), method })
        const s = (performance.now() - started) / 1000
        const copied = tables.reduce((n, t) => n + t.rows, 0)
        const biggest = [...tables].sort((a, b) => b.rows - a.rows)[0]!
        rows.push(
          `| ${method} | ${copied.toLocaleString('en')} | ${s.toFixed(1)} s | ${Math.round(copied / s).toLocaleString('en')} | ${biggest.table}: ${biggest.rows.toLocaleString('en')} rows in ${(biggest.ms / 1000).toFixed(1)} s | ${before} |`,
        )
        console.log(rows.at(-1))
      } finally {
        await sql.close()
        await target.drop()
      }
    }
    source.close()
    console.log(`\n| sent as | rows | time (copy${verify ? ' + verify' : ''}) | rows/s | largest table | load average at start |\n|---|---|---|---|---|---|`)
    for (const r of rows) console.log(r)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
