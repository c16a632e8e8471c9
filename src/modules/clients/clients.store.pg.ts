import type { SQL } from 'bun'
import { type Raw, numOrNull } from '../../db/pg/rows'
import { changedColumns, type ClientChanges, type ClientRow, type ClientsStore, type NewClient } from './clients.store'

const row = (r: Raw): ClientRow => ({
  id: r.id as string,
  name: (r.name as string | null) ?? null,
  platform: (r.platform as string | null) ?? null,
  plan_type: r.plan_type as string,
  subscription_status: r.subscription_status as string,
  max_devices: Number(r.max_devices),
  max_users: Number(r.max_users),
  rate_limit: numOrNull(r.rate_limit),
  max_devices_override: numOrNull(r.max_devices_override),
  max_users_override: numOrNull(r.max_users_override),
  billing_email: (r.billing_email as string | null) ?? null,
  created_at: Number(r.created_at),
})

/** A new client, inside the accounts store's transaction (an account made with its client) */
export const insertClient = (tx: SQL, r: NewClient) =>
  tx`INSERT INTO clients (id, name, plan_type, subscription_status, max_devices, max_users, created_at, updated_at)
    VALUES (${r.id}, ${r.name}, ${r.plan_type}, ${r.subscription_status}, ${r.max_devices}, ${r.max_users}, ${r.now}, ${r.now})`

/** The clients table on PostgreSQL: the same answers as the SQLite store (clients.store.contract.test.ts). */
export function createClientsStorePg(sql: SQL): ClientsStore {
  return {
    async insert(r) {
      await insertClient(sql, r)
    },
    async byId(id) {
      const [r]: Raw[] = await sql`SELECT id, name, platform, plan_type, subscription_status, max_devices, max_users, rate_limit,
          max_devices_override, max_users_override, billing_email, created_at
        FROM clients WHERE id = ${id}`
      return r ? row(r) : null
    },
    async update(id, changes: ClientChanges, now) {
      // the column names are checked against the writable set; the values travel as parameters
      const cols = changedColumns(changes)
      if (!cols.length) return
      const sets = cols.map((c, i) => `${c} = $${i + 1}`).join(', ')
      const values = cols.map((c) => changes[c as keyof ClientChanges] ?? null)
      await sql.unsafe(`UPDATE clients SET ${sets}, updated_at = $${cols.length + 1} WHERE id = $${cols.length + 2}`, [...values, now, id])
    },
    async count() {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM clients`
      return r!.n
    },
    async countPaying() {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM clients WHERE subscription_status IN ('active', 'trialing')`
      return r!.n
    },
    async applyPlan(id, p, now) {
      const rows = await sql`UPDATE clients SET plan_type = ${p.planType}, subscription_status = ${p.subscriptionStatus},
          max_devices = coalesce(max_devices_override, ${p.maxDevices}), max_users = coalesce(max_users_override, ${p.maxUsers}), updated_at = ${now}
        WHERE id = ${id}`
      return (rows.count as number) > 0
    },
    async page(limit, offset) {
      const rows: Raw[] = await sql`SELECT id, name, platform, plan_type, subscription_status, max_devices, max_users, rate_limit,
          max_devices_override, max_users_override, billing_email, created_at
        FROM clients ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`
      return rows.map(row)
    },
  }
}
