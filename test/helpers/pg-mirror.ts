/**
 * For HTTP-level tests on PostgreSQL while some domains still keep their rows in the app's SQLite
 * file: copies the clients and devices the fixtures made there into the PostgreSQL database, so
 * the rows of a store built on PostgreSQL find what their foreign keys name. Rows already there
 * (made by a domain that runs on PostgreSQL) are left as they are.
 */
import type { SQL } from 'bun'
import type { TestApp } from './app'

const CLIENT_COLS = ['id', 'name', 'plan_type', 'subscription_status', 'max_devices', 'max_users', 'created_at', 'updated_at']
const DEVICE_COLS = [
  'id',
  'client_id',
  'fingerprint',
  'hostname',
  'os',
  'os_version',
  'arch',
  'created_at',
  'updated_at',
  'last_seen_at',
  'seq',
  'name',
  'tags',
]

async function copy(t: TestApp, sql: SQL, table: string, cols: string[]) {
  const rows = t.db.sqlite.query<Record<string, unknown>, []>(`SELECT ${cols.join(', ')} FROM ${table}`).all()
  for (const r of rows) {
    await sql.unsafe(
      `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING`,
      cols.map((c) => r[c] ?? null),
    )
  }
}

/** copies the SQLite file's clients and devices into PostgreSQL (call after making them with the fixtures) */
export async function mirrorToPg(t: TestApp, sql: SQL) {
  await copy(t, sql, 'clients', CLIENT_COLS)
  await copy(t, sql, 'devices', DEVICE_COLS)
}
