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

export type NewClient = Pick<ClientRow, 'id' | 'name' | 'plan_type' | 'subscription_status' | 'max_devices' | 'max_users'> & { now: number }

/** The columns a caller may write through `update`; the service decides which caller writes which. */
export type ClientChanges = Partial<
  Pick<
    ClientRow,
    'name' | 'billing_email' | 'plan_type' | 'subscription_status' | 'max_devices' | 'max_users' | 'max_devices_override' | 'max_users_override' | 'rate_limit'
  >
>

const WRITABLE = new Set<string>([
  'name',
  'billing_email',
  'plan_type',
  'subscription_status',
  'max_devices',
  'max_users',
  'max_devices_override',
  'max_users_override',
  'rate_limit',
])

/** The changes' columns, refusing any name outside ClientChanges: they are spliced into the SQL. */
export function changedColumns(changes: ClientChanges): string[] {
  const cols = Object.keys(changes).filter((c) => changes[c as keyof ClientChanges] !== undefined)
  for (const c of cols) if (!WRITABLE.has(c)) throw new Error(`clients: ${c} is not a writable column`)
  return cols
}

/**
 * The `clients` table (the tenants), on either engine (this file: SQLite; clients.store.pg.ts:
 * PostgreSQL). A client is its own tenant: every read and write names its id.
 */
export interface ClientsStore {
  insert(row: NewClient): Promise<void>
  byId(id: string): Promise<ClientRow | null>
  /** writes only the named columns (and updated_at); no columns, no write */
  update(id: string, changes: ClientChanges, now: number): Promise<void>
  count(): Promise<number>
  /** clients with a live subscription (active or trialing) */
  countPaying(): Promise<number>
  /** one page of clients, oldest first, ties by id */
  page(limit: number, offset: number): Promise<ClientRow[]>
  /**
   * Puts a plan in force in one statement: its type and status, and its limits where the
   * operator set none (an override wins). False when there is no such client.
   */
  applyPlan(id: string, plan: PlanInForce, now: number): Promise<boolean>
}

/** A plan billing decided on: its type, the subscription's status and the plan's limits. */
export interface PlanInForce {
  planType: string
  subscriptionStatus: string
  maxDevices: number
  maxUsers: number
}

const CLIENT_COLUMNS =
  'id, name, platform, plan_type, subscription_status, max_devices, max_users, rate_limit, max_devices_override, max_users_override, billing_email, created_at'

/**
 * SQLite's statements, synchronous. Besides backing `createClientsStore`, they serve a new
 * account's client inside the accounts store's SQLite transaction, and the first read of a
 * client's rate limit on a SQLite hub (answered at once, then cached).
 */
export function sqliteClients(sqlite: Database) {
  const insert = sqlite.query(
    'INSERT INTO clients (id, name, plan_type, subscription_status, max_devices, max_users, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const byId = sqlite.query<ClientRow, [string]>(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE id = ?`)
  const count = sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM clients')
  const countPaying = sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM clients WHERE subscription_status IN ('active', 'trialing')")
  const page = sqlite.query<ClientRow, [number, number]>(`SELECT ${CLIENT_COLUMNS} FROM clients ORDER BY created_at, id LIMIT ? OFFSET ?`)
  const applyPlan = sqlite.query<never, [string, string, number, number, number, string]>(
    `UPDATE clients SET plan_type = ?, subscription_status = ?, max_devices = coalesce(max_devices_override, ?),
       max_users = coalesce(max_users_override, ?), updated_at = ? WHERE id = ?`,
  )
  return {
    insert(row: NewClient) {
      insert.run(row.id, row.name, row.plan_type, row.subscription_status, row.max_devices, row.max_users, row.now, row.now)
    },
    byId: (id: string): ClientRow | null => byId.get(id),
    update(id: string, changes: ClientChanges, now: number) {
      const cols = changedColumns(changes)
      if (!cols.length) return
      const sets = cols.map((c) => `${c} = ?`).join(', ')
      const values = cols.map((c) => changes[c as keyof ClientChanges] as string | number | null)
      sqlite.query(`UPDATE clients SET ${sets}, updated_at = ? WHERE id = ?`).run(...values, now, id)
    },
    count: () => count.get()!.n,
    countPaying: () => countPaying.get()!.n,
    page: (limit: number, offset: number) => page.all(limit, offset),
    applyPlan: (id: string, p: PlanInForce, now: number) => applyPlan.run(p.planType, p.subscriptionStatus, p.maxDevices, p.maxUsers, now, id).changes > 0,
  }
}

export type SqliteClients = ReturnType<typeof sqliteClients>

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createClientsStore(clients: SqliteClients): ClientsStore {
  return {
    insert: async (row) => clients.insert(row),
    byId: async (id) => clients.byId(id),
    update: async (id, changes, now) => clients.update(id, changes, now),
    count: async () => clients.count(),
    countPaying: async () => clients.countPaying(),
    page: async (limit, offset) => clients.page(limit, offset),
    applyPlan: async (id, plan, now) => clients.applyPlan(id, plan, now),
  }
}
