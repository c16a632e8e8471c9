/**
 * The PostgreSQL driver choice, measured: the stores' typical queries through Bun.SQL's tagged
 * templates (what src/modules/*\/*.store.pg.ts use) beside the same queries through drizzle's
 * bun-sql adapter (its query builder, and its prepared query), on one fresh database of the
 * server VIGIL_BENCH_PG_URL (else VIGIL_TEST_PG_URL) names: `bun scripts/bench/pg-driver.ts
 * [queries]`, or `bun run bench --pg-driver-only`. Each query: the API key lookup by hash (a read
 * by a unique index) and the last_used_at write. Blocks of each driver alternate, 3 rounds; the
 * figures are medians of the rounds: wall time per query with one in flight (latency), and this
 * process's CPU time per query with 32 in flight (the hub's cost; the server's own CPU is not in
 * it). The database is dropped at the end.
 */
import { SQL } from 'bun'
import { eq, sql as dsql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sql'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import { openPostgres } from '../../src/db/pg/connection'
import { migratePostgres } from '../../src/db/pg/migrate'
import { api_keys } from '../../src/db/pg/twins.table'

const base = process.env.VIGIL_BENCH_PG_URL ?? process.env.VIGIL_TEST_PG_URL
if (!base) {
  console.error('set VIGIL_BENCH_PG_URL (or VIGIL_TEST_PG_URL) to a PostgreSQL superuser URL; the bench makes and drops its own database')
  process.exit(2)
}
const QUERIES = Number(process.argv[2] ?? 2000)
const ROUNDS = 3
const KEYS = 1000
const name = `vigil_bench_driver_${process.pid}`

const admin = new SQL(base, { max: 1 })
await admin.unsafe(`CREATE DATABASE "${name}"`)
const url = new URL(base)
url.pathname = `/${name}`
const sql = openPostgres({ url: url.toString(), pool: 4 })

try {
  await migratePostgres(sql, Date.now())
  await sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'bench', 1, 1)`
  for (let i = 0; i < KEYS; i++) {
    await sql`INSERT INTO api_keys (id, client_id, name, key_prefix, key_hash, scopes, is_active, created_at)
      VALUES (${`k${i}`}, 'c1', 'k', 'vk_x', ${`hash-${i}`}, '["metrics:write"]', true, 1)`
  }
  const db = drizzle({ client: sql })
  // the twins are keyed by their SQL names
  const t = api_keys as unknown as Record<string, AnyPgColumn>
  const cols = Object.fromEntries(['id', 'client_id', 'scopes', 'device_id', 'is_active', 'expires_at', 'last_used_at'].map((c) => [c, t[c]!]))
  const prepared = db
    .select(cols)
    .from(api_keys)
    .where(eq(t.key_hash!, dsql.placeholder('hash')))
    .prepare('bench_by_hash')
  const preparedTouch = db
    .update(api_keys)
    .set({ last_used_at: dsql.placeholder('now') } as never)
    .where(eq(t.id!, dsql.placeholder('id')))
    .prepare('bench_touch')

  type Op = (i: number) => Promise<unknown>
  const drivers: Record<string, { read: Op; write: Op }> = {
    'Bun.SQL (tagged template)': {
      read: (i) => sql`SELECT id, client_id, scopes, device_id, is_active, expires_at, last_used_at FROM api_keys WHERE key_hash = ${`hash-${i % KEYS}`}`,
      write: (i) => sql`UPDATE api_keys SET last_used_at = ${i} WHERE id = ${`k${i % KEYS}`}`,
    },
    'drizzle bun-sql (query builder)': {
      read: (i) =>
        db
          .select(cols)
          .from(api_keys)
          .where(eq(t.key_hash!, `hash-${i % KEYS}`)),
      write: (i) =>
        db
          .update(api_keys)
          .set({ last_used_at: i } as never)
          .where(eq(t.id!, `k${i % KEYS}`)),
    },
    'drizzle bun-sql (prepared)': {
      read: (i) => prepared.execute({ hash: `hash-${i % KEYS}` }),
      write: (i) => preparedTouch.execute({ now: i, id: `k${i % KEYS}` }),
    },
  }

  const sequential = async (op: Op) => {
    const t0 = performance.now()
    for (let i = 0; i < QUERIES; i++) await op(i)
    return ((performance.now() - t0) * 1000) / QUERIES
  }
  const concurrent = async (op: Op) => {
    const c0 = process.cpuUsage()
    let next = 0
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < QUERIES) await op(next++)
      }),
    )
    const c = process.cpuUsage(c0)
    return (c.user + c.system) / QUERIES
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

  // warm-up: connections made, statements planned
  for (const d of Object.values(drivers)) {
    await sequential(d.read)
    await sequential(d.write)
  }
  const results: Record<string, Record<string, number[]>> = {}
  for (let r = 0; r < ROUNDS; r++) {
    for (const [label, d] of Object.entries(drivers)) {
      const m = (results[label] ??= { readWall: [], readCpu: [], writeWall: [], writeCpu: [] })
      m.readWall!.push(await sequential(d.read))
      m.readCpu!.push(await concurrent(d.read))
      m.writeWall!.push(await sequential(d.write))
      m.writeCpu!.push(await concurrent(d.write))
    }
  }
  const load = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
  console.log(`\nPostgreSQL driver, ${QUERIES} queries per block, ${ROUNDS} rounds, ${KEYS} keys; bun ${Bun.version}, load average ${load}\n`)
  console.log(
    '| driver | key by hash: µs per query (1 in flight) | key by hash: CPU µs per query (32 in flight) | last_used_at write: µs (1 in flight) | write: CPU µs (32 in flight) |',
  )
  console.log('|---|---|---|---|---|')
  for (const [label, m] of Object.entries(results)) {
    const f = (k: string) => median(m[k]!).toFixed(0)
    console.log(`| ${label} | ${f('readWall')} | ${f('readCpu')} | ${f('writeWall')} | ${f('writeCpu')} |`)
  }
} finally {
  await sql.close()
  await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await admin.close()
}
