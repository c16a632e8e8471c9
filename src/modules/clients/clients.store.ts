import type { Database } from 'bun:sqlite'

export interface ClientRow {
  id: string
  name: string | null
  platform: string | null
  plan_type: string
  subscription_status: string
  max_devices: number
  max_users: number
  rate_limit: number | null
  max_devices_override: number | null
  max_users_override: number | null
  billing_email: string | null
  created_at: number
}

const CLIENT_COLUMNS =
  'id, name, platform, plan_type, subscription_status, max_devices, max_users, rate_limit, max_devices_override, max_users_override, billing_email, created_at'

/** The `clients` table. */
export function createClientsStore(sqlite: Database) {
  const insert = sqlite.query(
    'INSERT INTO clients (id, name, plan_type, subscription_status, max_devices, max_users, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const byId = sqlite.query<ClientRow, [string]>(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE id = ?`)
  const count = sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM clients')
  const countPaying = sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM clients WHERE subscription_status IN ('active', 'trialing')")
  const page = sqlite.query<ClientRow, [number, number]>(`SELECT ${CLIENT_COLUMNS} FROM clients ORDER BY created_at, id LIMIT ? OFFSET ?`)
  return {
    insert(row: Pick<ClientRow, 'id' | 'name' | 'plan_type' | 'subscription_status' | 'max_devices' | 'max_users'> & { now: number }) {
      insert.run(row.id, row.name, row.plan_type, row.subscription_status, row.max_devices, row.max_users, row.now, row.now)
    },
    byId: (id: string) => byId.get(id),
    /** Writes only the named columns; callers decide which fields a caller may change. */
    update(id: string, changes: Record<string, string | number | null>, now: number) {
      const cols = Object.keys(changes)
      if (!cols.length) return
      const sets = cols.map((c) => `${c} = ?`).join(', ')
      sqlite.query(`UPDATE clients SET ${sets}, updated_at = ? WHERE id = ?`).run(...(Object.values(changes) as (string | number | null)[]), now, id)
    },
    count: () => count.get()!.n,
    /** clients with a live subscription (active or trialing) */
    countPaying: () => countPaying.get()!.n,
    /** one page of clients, oldest first */
    page: (limit: number, offset: number) => page.all(limit, offset),
  }
}

export type ClientsStore = ReturnType<typeof createClientsStore>
