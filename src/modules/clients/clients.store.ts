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

export interface ClientUsage {
  devices: number
  members: number
  api_keys: number
}

const CLIENT_COLUMNS =
  'id, name, platform, plan_type, subscription_status, max_devices, max_users, rate_limit, max_devices_override, max_users_override, billing_email, created_at'

export function insertClient(sqlite: Database, row: { id: string; name: string | null; now: number }) {
  sqlite
    .query("INSERT INTO clients (id, name, plan_type, subscription_status, max_devices, max_users, created_at, updated_at) VALUES (?, ?, 'free', 'none', 1, 50, ?, ?)")
    .run(row.id, row.name, row.now, row.now)
}

export const clientById = (sqlite: Database, id: string) =>
  sqlite.query<ClientRow, [string]>(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE id = ?`).get(id)

/** Writes only the named columns; callers decide which fields a caller may change. */
export function updateClientColumns(sqlite: Database, id: string, changes: Record<string, string | number | null>, now: number) {
  const cols = Object.keys(changes)
  if (!cols.length) return
  const sets = cols.map((c) => `${c} = ?`).join(', ')
  sqlite.query(`UPDATE clients SET ${sets}, updated_at = ? WHERE id = ?`).run(...(Object.values(changes) as (string | number | null)[]), now, id)
}

export const countClients = (sqlite: Database) => sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM clients').get()!.n

/** One page of clients, oldest first, with what each uses (devices, seats, active keys). */
export function listClientsWithUsage(sqlite: Database, limit: number, offset: number) {
  return sqlite
    .query<ClientRow & ClientUsage, [number, number]>(
      `SELECT ${CLIENT_COLUMNS},
        (SELECT count(*) FROM devices d WHERE d.client_id = c.id) AS devices,
        (SELECT count(*) FROM members m WHERE m.client_id = c.id AND m.status != 'disabled') AS members,
        (SELECT count(*) FROM api_keys k WHERE k.client_id = c.id AND k.is_active = 1) AS api_keys
       FROM clients c ORDER BY created_at, id LIMIT ? OFFSET ?`,
    )
    .all(limit, offset)
}
