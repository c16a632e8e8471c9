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
}

const COLUMNS = 'id, client_id, user_id, invited_email, role, status, created_at'

export function insertMember(sqlite: Database, m: Omit<MemberRow, 'created_at'> & { now: number }) {
  sqlite
    .query(`INSERT INTO members (${COLUMNS}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(m.id, m.client_id, m.user_id, m.invited_email, m.role, m.status, m.now, m.now)
}

export const membersOf = (sqlite: Database, clientId: string) =>
  sqlite.query<MemberRow, [string]>(`SELECT ${COLUMNS} FROM members WHERE client_id = ? ORDER BY created_at, id`).all(clientId)

export const memberById = (sqlite: Database, clientId: string, id: string) =>
  sqlite.query<MemberRow, [string, string]>(`SELECT ${COLUMNS} FROM members WHERE client_id = ? AND id = ?`).get(clientId, id)

export const memberByUser = (sqlite: Database, clientId: string, userId: string) =>
  sqlite.query<MemberRow, [string, string]>(`SELECT ${COLUMNS} FROM members WHERE client_id = ? AND user_id = ?`).get(clientId, userId)

export const memberByInvitedEmail = (sqlite: Database, clientId: string, email: string) =>
  sqlite.query<MemberRow, [string, string]>(`SELECT ${COLUMNS} FROM members WHERE client_id = ? AND invited_email = ?`).get(clientId, email)

/** Seats in use: everyone not disabled (pending invitations hold a seat). */
export const seatsUsed = (sqlite: Database, clientId: string) =>
  sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM members WHERE client_id = ? AND status != 'disabled'").get(clientId)!.n

export const activeOwners = (sqlite: Database, clientId: string) =>
  sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM members WHERE client_id = ? AND role = 'owner' AND status = 'active'").get(clientId)!.n

export function updateMember(sqlite: Database, id: string, changes: { role?: MemberRole; status?: MemberStatus }, now: number) {
  if (changes.role) sqlite.query('UPDATE members SET role = ?, updated_at = ? WHERE id = ?').run(changes.role, now, id)
  if (changes.status) sqlite.query('UPDATE members SET status = ?, updated_at = ? WHERE id = ?').run(changes.status, now, id)
}

export const deleteMember = (sqlite: Database, id: string) => sqlite.query('DELETE FROM members WHERE id = ?').run(id)

export const setInvitationSecret = (sqlite: Database, id: string, tokenHash: string, expiresAt: number) =>
  sqlite.query('UPDATE members SET invite_token_hash = ?, invite_expires_at = ? WHERE id = ?').run(tokenHash, expiresAt, id)

export const invitationByTokenHash = (sqlite: Database, tokenHash: string) =>
  sqlite
    .query<MemberRow & { invite_expires_at: number | null }, [string]>(`SELECT ${COLUMNS}, invite_expires_at FROM members WHERE invite_token_hash = ?`)
    .get(tokenHash)

/** Accepting spends the secret: the row becomes an active membership of the user. */
export const acceptInvitationRow = (sqlite: Database, id: string, userId: string, now: number) =>
  sqlite
    .query("UPDATE members SET user_id = ?, status = 'active', invite_token_hash = NULL, invite_expires_at = NULL, updated_at = ? WHERE id = ?")
    .run(userId, now, id)

/** Every client a user belongs to or is invited to, with its name, for the client switcher. */
export const membershipsOfUser = (sqlite: Database, userId: string) =>
  sqlite
    .query<MemberRow & { client_name: string | null }, [string]>(
      `SELECT m.id, m.client_id, m.user_id, m.invited_email, m.role, m.status, m.created_at, c.name AS client_name
       FROM members m JOIN clients c ON c.id = m.client_id WHERE m.user_id = ? ORDER BY m.created_at, m.id`,
    )
    .all(userId)

/**
 * The client a session acts for: the preferred one while the user is an active member there,
 * else the home client, else the oldest active membership (else the home client regardless).
 */
export const activeClientOf = (sqlite: Database, userId: string, preferred: string | null, home: string | null) =>
  sqlite
    .query<{ client_id: string }, [string, string, string]>(
      `SELECT client_id FROM members WHERE user_id = ? AND status = 'active'
       ORDER BY (client_id = ?) DESC, (client_id = ?) DESC, created_at LIMIT 1`,
    )
    .get(userId, preferred ?? '', home ?? '')?.client_id ?? home
