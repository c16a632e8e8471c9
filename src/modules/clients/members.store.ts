import type { Database } from 'bun:sqlite'
import type { MemberRole } from '../../http/principal'

export type MemberStatus = 'active' | 'invited' | 'disabled'

export interface MemberRow {
  id: string
  client_id: string
  user_id: string | null
  invited_email: string | null
  role: MemberRole
  status: MemberStatus
  created_at: number
  invite_expires_at: number | null
}

const COLUMNS = 'id, client_id, user_id, invited_email, role, status, created_at, invite_expires_at'

/** The `members` table: memberships and pending invitations. */
export function createMembersStore(sqlite: Database) {
  const insert = sqlite.query(
    'INSERT INTO members (id, client_id, user_id, invited_email, role, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const ofClient = sqlite.query<MemberRow, [string]>(`SELECT ${COLUMNS} FROM members WHERE client_id = ? ORDER BY created_at, id`)
  const byId = sqlite.query<MemberRow, [string, string]>(`SELECT ${COLUMNS} FROM members WHERE client_id = ? AND id = ?`)
  const byUser = sqlite.query<MemberRow, [string, string]>(`SELECT ${COLUMNS} FROM members WHERE client_id = ? AND user_id = ?`)
  const byInvitedEmail = sqlite.query<MemberRow, [string, string]>(`SELECT ${COLUMNS} FROM members WHERE client_id = ? AND invited_email = ?`)
  const activeRole = sqlite.query<{ role: MemberRole }, [string, string]>("SELECT role FROM members WHERE user_id = ? AND client_id = ? AND status = 'active'")
  const seatsUsed = sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM members WHERE client_id = ? AND status != 'disabled'")
  const activeOwners = sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM members WHERE client_id = ? AND role = 'owner' AND status = 'active'")
  const firstOwner = sqlite.query<{ user_id: string }, [string]>(
    "SELECT user_id FROM members WHERE client_id = ? AND role = 'owner' AND status = 'active' AND user_id IS NOT NULL ORDER BY created_at, id LIMIT 1",
  )
  const countActive = sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM members WHERE status = 'active'")
  const setRole = sqlite.query('UPDATE members SET role = ?, updated_at = ? WHERE id = ?')
  const setStatus = sqlite.query('UPDATE members SET status = ?, updated_at = ? WHERE id = ?')
  const remove = sqlite.query('DELETE FROM members WHERE id = ?')
  const setSecret = sqlite.query('UPDATE members SET invite_token_hash = ?, invite_expires_at = ? WHERE id = ?')
  const invitation = sqlite.query<MemberRow, [string]>(`SELECT ${COLUMNS} FROM members WHERE invite_token_hash = ?`)
  const accept = sqlite.query(
    "UPDATE members SET user_id = ?, status = 'active', invite_token_hash = NULL, invite_expires_at = NULL, updated_at = ? WHERE id = ?",
  )
  const ofUser = sqlite.query<MemberRow & { client_name: string | null }, [string]>(
    `SELECT m.id, m.client_id, m.user_id, m.invited_email, m.role, m.status, m.created_at, m.invite_expires_at, c.name AS client_name
     FROM members m JOIN clients c ON c.id = m.client_id WHERE m.user_id = ? ORDER BY m.created_at, m.id`,
  )
  const actingClient = sqlite.query<{ client_id: string }, [string, string, string]>(
    `SELECT client_id FROM members WHERE user_id = ? AND status = 'active'
     ORDER BY (client_id = ?) DESC, (client_id = ?) DESC, created_at LIMIT 1`,
  )
  return {
    insert(m: Omit<MemberRow, 'created_at' | 'invite_expires_at'> & { now: number }) {
      insert.run(m.id, m.client_id, m.user_id, m.invited_email, m.role, m.status, m.now, m.now)
    },
    ofClient: (clientId: string) => ofClient.all(clientId),
    byId: (clientId: string, id: string) => byId.get(clientId, id),
    byUser: (clientId: string, userId: string) => byUser.get(clientId, userId),
    byInvitedEmail: (clientId: string, email: string) => byInvitedEmail.get(clientId, email),
    /** the user's role in the client while an active member, else null (indexed: read per request) */
    activeRole: (userId: string, clientId: string) => activeRole.get(userId, clientId)?.role ?? null,
    /** Seats in use: everyone not disabled (pending invitations hold a seat). */
    seatsUsed: (clientId: string) => seatsUsed.get(clientId)!.n,
    activeOwners: (clientId: string) => activeOwners.get(clientId)!.n,
    /** the oldest active owner's account, for the operator's list */
    firstOwner: (clientId: string) => firstOwner.get(clientId)?.user_id ?? null,
    /** active memberships across every client */
    countActive: () => countActive.get()!.n,
    update(id: string, changes: { role?: MemberRole; status?: MemberStatus }, now: number) {
      if (changes.role) setRole.run(changes.role, now, id)
      if (changes.status) setStatus.run(changes.status, now, id)
    },
    delete: (id: string) => void remove.run(id),
    setInvitationSecret: (id: string, tokenHash: string, expiresAt: number) => void setSecret.run(tokenHash, expiresAt, id),
    invitationByTokenHash: (tokenHash: string) => invitation.get(tokenHash),
    /** Accepting spends the secret: the row becomes an active membership of the user. */
    acceptInvitation: (id: string, userId: string, now: number) => void accept.run(userId, now, id),
    /** Every client a user belongs to or is invited to, with its name, for the client switcher. */
    ofUser: (userId: string) => ofUser.all(userId),
    /**
     * The client a session acts for: the preferred one while the user is an active member there,
     * else the home client, else the oldest active membership (else the home client regardless).
     */
    actingClient: (userId: string, preferred: string | null, home: string | null) => actingClient.get(userId, preferred ?? '', home ?? '')?.client_id ?? home,
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn)(),
    /** a write transaction that takes the lock up front, so checks inside it hold until commit */
    immediate: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
  }
}

export type MembersStore = ReturnType<typeof createMembersStore>
