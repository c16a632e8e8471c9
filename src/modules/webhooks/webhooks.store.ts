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

export type EndpointChanges = Partial<Omit<EndpointRow, 'id' | 'client_id' | 'created_at'>>

const COLUMNS =
  'id, client_id, url, description, event_types, enabled, disabled_reason, disabled_at, secret_enc, previous_secret_enc, previous_expires_at, failing_since, created_at, updated_at'
const EDITABLE = new Set(COLUMNS.split(', ').filter((c) => !['id', 'client_id', 'created_at'].includes(c)))

/** The webhook_endpoints table. */
export function createEndpointsStore(sqlite: Database) {
  const insert = sqlite.query(
    `INSERT INTO webhook_endpoints (${COLUMNS}) VALUES (${COLUMNS.split(', ')
      .map(() => '?')
      .join(', ')})`,
  )
  const list = sqlite.query<EndpointRow, [string]>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE client_id = ? ORDER BY created_at, id`)
  const byId = sqlite.query<EndpointRow, [string, string]>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE client_id = ? AND id = ?`)
  const subscribed = sqlite.query<Pick<EndpointRow, 'id' | 'event_types'>, [string]>(
    'SELECT id, event_types FROM webhook_endpoints WHERE client_id = ? AND enabled = 1',
  )
  const remove = sqlite.query<{ id: string }, [string, string]>('DELETE FROM webhook_endpoints WHERE client_id = ? AND id = ? RETURNING id')
  const count = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM webhook_endpoints WHERE client_id = ?')
  const markFailing = sqlite.query<never, [number, string]>('UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = ?')
  const markHealthy = sqlite.query<never, [string]>('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL')
  const failingSince = sqlite.query<{ failing_since: number | null }, [string]>('SELECT failing_since FROM webhook_endpoints WHERE id = ?')

  return {
    insert(row: EndpointRow) {
      insert.run(...COLUMNS.split(', ').map((c) => row[c as keyof EndpointRow]))
    },
    list: (clientId: string) => list.all(clientId),
    byId: (clientId: string, id: string) => byId.get(clientId, id),
    /** the enabled endpoints of a client with what they subscribe to (the listener's cache fills from this) */
    subscribed: (clientId: string) => subscribed.all(clientId),
    update(clientId: string, id: string, changes: EndpointChanges) {
      const cols = Object.keys(changes).filter((c) => EDITABLE.has(c))
      if (!cols.length) return
      sqlite
        .query(`UPDATE webhook_endpoints SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE client_id = ? AND id = ?`)
        .run(...cols.map((c) => changes[c as keyof EndpointChanges] ?? null), clientId, id)
    },
    remove: (clientId: string, id: string) => remove.all(clientId, id).length > 0,
    count: (clientId: string) => count.get(clientId)!.n,
    /** after a failed attempt: when the failures began (kept if they began earlier) */
    markFailing(id: string, now: number): number {
      markFailing.run(now, id)
      return failingSince.get(id)?.failing_since ?? now
    },
    markHealthy: (id: string) => void markHealthy.run(id),
  }
}

export type EndpointsStore = ReturnType<typeof createEndpointsStore>
