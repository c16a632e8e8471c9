/**
 * What PostgreSQL pays for one sample's row, for the capacity estimate in docs/scale-out.md
 * ("What 10,000 devices at 10 s need"): a stand-in table with one row per sample holding a
 * compact record of the real sample's size (357 B, docs/storage.md), keyed by device and time,
 * written as the hub's group commit would (one multi-row INSERT per round of all devices).
 * Prints the WAL bytes per row, the table's and index's bytes per row, and the writing process's
 * CPU per row. It is not the metrics store's own schema: that one's figures go in
 * docs/performance.md once metrics run on PostgreSQL.
 *
 *   VIGIL_TEST_PG_URL=postgres://… bun scripts/bench/pg-capacity.ts [devices=200] [rounds=300]
 */
import { SQL } from 'bun'
import { loadavg } from 'node:os'
import { postgresForTests } from '../../test/helpers/postgres'

const RECORD_BYTES = 357
const devices = Number(process.argv[2] ?? 200)
const rounds = Number(process.argv[3] ?? 300)

const pg = postgresForTests()
if (!pg.url) throw new Error('set VIGIL_TEST_PG_URL')
const fresh = await pg.freshDatabase('vigil_capacity')
const sql = new SQL(fresh.url, { max: 4 })
try {
  await sql`CREATE TABLE sample_rows (device_id text NOT NULL, ts bigint NOT NULL, record bytea NOT NULL, PRIMARY KEY (device_id, ts))`
  const ids = Array.from({ length: devices }, (_, i) => `dev_${String(i).padStart(6, '0')}_${crypto.randomUUID().slice(0, 8)}`)
  const record = () => crypto.getRandomValues(new Uint8Array(RECORD_BYTES))
  const [{ lsn: before }] = await sql`SELECT pg_current_wal_lsn()::text AS lsn`
  const load = loadavg()[0]!.toFixed(1)
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let r = 0; r < rounds; r++) {
    const ts = Date.UTC(2026, 0, 1) + r * 10_000
    const rows = ids.map((id) => ({ device_id: id, ts, record: record() }))
    await sql`INSERT INTO sample_rows ${sql(rows)}`
  }
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  await sql`CHECKPOINT`.catch(() => {}) // superuser only; the sizes are read either way
  const [{ wal }] = await sql`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ${before}::pg_lsn)::bigint AS wal`
  const [{ heap, total }] = await sql`SELECT pg_relation_size('sample_rows')::bigint AS heap, pg_total_relation_size('sample_rows')::bigint AS total`
  const n = devices * rounds
  console.log(`rows ${n} (${devices} devices × ${rounds} rounds), load average ${load} at the start, ${loadavg()[0]!.toFixed(1)} at the end`)
  console.log(`WAL written per row        ${(Number(wal) / n).toFixed(0)} B`)
  console.log(`table per row              ${(Number(heap) / n).toFixed(0)} B`)
  console.log(`table + index per row      ${(Number(total) / n).toFixed(0)} B`)
  console.log(`writer CPU per row         ${(((cpu.user + cpu.system) / n) | 0).toFixed(0)} µs (Bun.SQL, one INSERT of ${devices} rows per round)`)
  console.log(`wall per round             ${(wallMs / rounds).toFixed(1)} ms`)
} finally {
  await sql.close()
  await fresh.drop()
}
