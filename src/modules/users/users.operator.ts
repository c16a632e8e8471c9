import type { Database } from 'bun:sqlite'

/**
 * Whether a client is an instance operator's own: the home client of a user with the instance
 * role admin who is still an active member of it. Being invited into a tenant's client does not
 * make that client the operator's; what the operator may reach (the LAN) stays with their own.
 */
export function operatorClients(sqlite: Database): (clientId: string) => boolean {
  const q = sqlite.query<{ one: number }, [string]>(
    `SELECT 1 AS one FROM users u JOIN members m ON m.user_id = u.id AND m.client_id = u.client_id
     WHERE u.client_id = ? AND u.role = 'admin' AND m.status = 'active' LIMIT 1`,
  )
  return (clientId) => q.get(clientId) !== null
}
