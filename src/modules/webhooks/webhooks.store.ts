import type { Database } from 'bun:sqlite'

export interface EndpointRow {
  id: string
  client_id: string
  url: string
  description: string
  event_types: string
  enabled: number
  disabled_reason: 'manual' | 'gone' | 'failing' | null
  disabled_at: number | null
  secret_enc: string
  previous_secret_enc: string | null
  previous_expires_at: number | null
  failing_since: number | null
  created_at: number
  updated_at: number
}

/** What a change may set: the endpoint's settings and secrets; enabling and disabling are their own calls. */
export type EndpointChanges = Partial<
  Pick<EndpointRow, 'url' | 'description' | 'event_types' | 'secret_enc' | 'previous_secret_enc' | 'previous_expires_at' | 'updated_at'>
>

export const ENDPOINT_COLUMNS =
  'id, client_id, url, description, event_types, enabled, disabled_reason, disabled_at, secret_enc, previous_secret_enc, previous_expires_at, failing_since, created_at, updated_at'
export const EDITABLE = ['url', 'description', 'event_types', 'secret_enc', 'previous_secret_enc', 'previous_expires_at', 'updated_at'] as const

/**
 * The webhook_endpoints table, on either engine (this file: SQLite; webhooks.store.pg.ts:
 * PostgreSQL). Every read and write filters by client_id. Turning an endpoint off or on also
 * holds or resumes its waiting deliveries, in the same transaction; of two hubs disabling one
 * endpoint at once, one does it (and tells its owners).
 */
export interface EndpointsStore {
  insert(row: EndpointRow): Promise<void>
  /** oldest first, ties by id */
  list(clientId: string): Promise<EndpointRow[]>
  byId(clientId: string, id: string): Promise<EndpointRow | null>
  /** false when the client has no such endpoint */
  update(clientId: string, id: string, changes: EndpointChanges): Promise<boolean>
  /** on again, its failure record cleared and its held deliveries pending (due by `now` at the latest); false when it was not off */
  enable(clientId: string, id: string, now: number): Promise<boolean>
  /** off for `reason`, its pending deliveries held; the row as it was before, or null when it was not on (nothing written) */
  disable(clientId: string, id: string, reason: 'manual' | 'gone' | 'failing', now: number): Promise<EndpointRow | null>
  /** with its deliveries and their attempts */
  remove(clientId: string, id: string): Promise<boolean>
  count(clientId: string): Promise<number>
}

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createEndpointsStore(sqlite: Database): EndpointsStore {
  const insert = sqlite.query(
    `INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES (${ENDPOINT_COLUMNS.split(', ')
      .map(() => '?')
      .join(', ')})`,
  )
  const list = sqlite.query<EndpointRow, [string]>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE client_id = ? ORDER BY created_at, id`)
  const byId = sqlite.query<EndpointRow, [string, string]>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE client_id = ? AND id = ?`)
  const remove = sqlite.query<{ id: string }, [string, string]>('DELETE FROM webhook_endpoints WHERE client_id = ? AND id = ? RETURNING id')
  const count = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM webhook_endpoints WHERE client_id = ?')
  const turnOn = sqlite.query<{ id: string }, [number, string, string]>(
    `UPDATE webhook_endpoints SET enabled = 1, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL, updated_at = ?
      WHERE client_id = ? AND id = ? AND enabled = 0 RETURNING id`,
  )
  const turnOff = sqlite.query<never, [string, number, number, string, string]>(
    'UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, disabled_at = ?, updated_at = ? WHERE client_id = ? AND id = ? AND enabled = 1',
  )
  const hold = sqlite.query<never, [string]>("UPDATE webhook_deliveries SET status = 'held' WHERE endpoint_id = ? AND status = 'pending'")
  const unhold = sqlite.query<never, [number, string]>(
    "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = min(next_attempt_at, ?) WHERE endpoint_id = ? AND status = 'held'",
  )
  const enable = sqlite.transaction((clientId: string, id: string, now: number) => {
    if (!turnOn.get(now, clientId, id)) return false
    unhold.run(now, id)
    return true
  })
  const disable = sqlite.transaction((clientId: string, id: string, reason: string, now: number) => {
    const before = byId.get(clientId, id)
    if (before?.enabled !== 1) return null
    turnOff.run(reason, now, now, clientId, id)
    hold.run(id)
    return before
  })

  return {
    async insert(row) {
      insert.run(...ENDPOINT_COLUMNS.split(', ').map((c) => row[c as keyof EndpointRow]))
    },
    list: async (clientId) => list.all(clientId),
    byId: async (clientId, id) => byId.get(clientId, id),
    async update(clientId, id, changes) {
      const cols = EDITABLE.filter((c) => c in changes)
      if (!cols.length) return byId.get(clientId, id) !== null
      return (
        sqlite
          .query(`UPDATE webhook_endpoints SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE client_id = ? AND id = ?`)
          .run(...cols.map((c) => changes[c] ?? null), clientId, id).changes > 0
      )
    },
    enable: async (clientId, id, now) => enable(clientId, id, now),
    disable: async (clientId, id, reason, now) => disable(clientId, id, reason, now),
    remove: async (clientId, id) => remove.all(clientId, id).length > 0,
    count: async (clientId) => count.get(clientId)!.n,
  }
}
