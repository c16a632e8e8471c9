import type { SQL } from 'bun'
import { type Raw, numOrNull } from '../../db/pg/rows'
import type { MemberRole } from '../../http/principal'
import type { AcceptCheck, MemberRow, MembersStore, MemberStatus, MembershipRow, NewMember, SeatCounts } from './members.store'

const row = (r: Raw): MemberRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  user_id: (r.user_id as string | null) ?? null,
  invited_email: (r.invited_email as string | null) ?? null,
  role: r.role as MemberRole,
  status: r.status as MemberStatus,
  created_at: Number(r.created_at),
  invite_expires_at: numOrNull(r.invite_expires_at),
})

const first = (rows: Raw[]) => (rows[0] ? row(rows[0]) : null)

const counts = async (tx: SQL, clientId: string): Promise<SeatCounts> => {
  const [r]: { owners: number; seats: number }[] = await tx`SELECT
      count(*) FILTER (WHERE role = 'owner' AND status = 'active')::int AS owners,
      count(*) FILTER (WHERE status != 'disabled')::int AS seats
    FROM members WHERE client_id = ${clientId}`
  return { activeOwners: r!.owners, seatsUsed: r!.seats }
}

/**
 * Locks the client's row until the transaction ends: every change to a client's members takes it
 * first, so they are serialised per client across hubs. Exported for the accounts store, whose
 * registration by invitation joins a client in its own transaction.
 */
export const lockClient = (tx: SQL, clientId: string) => tx`SELECT id FROM clients WHERE id = ${clientId} FOR UPDATE`

const byId = async (tx: SQL, clientId: string, id: string) =>
  first(
    await tx`SELECT id, client_id, user_id, invited_email, role, status, created_at, invite_expires_at
      FROM members WHERE client_id = ${clientId} AND id = ${id}`,
  )
const byUser = async (tx: SQL, clientId: string, userId: string) =>
  first(
    await tx`SELECT id, client_id, user_id, invited_email, role, status, created_at, invite_expires_at
      FROM members WHERE client_id = ${clientId} AND user_id = ${userId}`,
  )

/** an invitation by its secret's hash */
export const invitationByHash = async (tx: SQL, tokenHash: string) =>
  first(
    await tx`SELECT id, client_id, user_id, invited_email, role, status, created_at, invite_expires_at
      FROM members WHERE invite_token_hash = ${tokenHash}`,
  )

/** an active membership (a new client's owner) */
export const insertMember = (tx: SQL, m: NewMember) =>
  tx`INSERT INTO members (id, client_id, user_id, invited_email, role, status, created_at, updated_at)
    VALUES (${m.id}, ${m.client_id}, ${m.user_id}, ${m.invited_email}, ${m.role}, ${m.status}, ${m.now}, ${m.now})`

/** spends an invitation for an account; false when it was no longer a pending invitation */
export async function acceptInvitationRow(tx: SQL, id: string, userId: string, now: number): Promise<boolean> {
  const rows = await tx`UPDATE members SET user_id = ${userId}, status = 'active', invite_token_hash = NULL, invite_expires_at = NULL, updated_at = ${now}
    WHERE id = ${id} AND status = 'invited'`
  return (rows.count as number) > 0
}

/**
 * The members table on PostgreSQL: the same answers as the SQLite store (members.store.contract.test.ts).
 * What checks and writes together locks the client's row first (FOR UPDATE), so the changes to one
 * client's members are serialised across hubs as an IMMEDIATE transaction serialises them on SQLite:
 * two hubs cannot both take the last seat, nor both demote one of the last two owners.
 */
export function createMembersStorePg(sql: SQL): MembersStore {
  const byTokenHash = invitationByHash
  return {
    async insert(m) {
      await insertMember(sql, m)
    },
    async ofClient(clientId) {
      const rows: Raw[] = await sql`SELECT id, client_id, user_id, invited_email, role, status, created_at, invite_expires_at
        FROM members WHERE client_id = ${clientId} ORDER BY created_at, id`
      return rows.map(row)
    },
    byId: (clientId, id) => byId(sql, clientId, id),
    byUser: (clientId, userId) => byUser(sql, clientId, userId),
    async byInvitedEmail(clientId, email) {
      return first(
        await sql`SELECT id, client_id, user_id, invited_email, role, status, created_at, invite_expires_at
        FROM members WHERE client_id = ${clientId} AND invited_email = ${email}`,
      )
    },
    async activeRole(userId, clientId) {
      const [r]: { role: MemberRole }[] = await sql`SELECT role FROM members WHERE user_id = ${userId} AND client_id = ${clientId} AND status = 'active'`
      return r?.role ?? null
    },
    async seatsUsed(clientId) {
      return (await counts(sql, clientId)).seatsUsed
    },
    async activeOwners(clientId) {
      return (await counts(sql, clientId)).activeOwners
    },
    async firstOwner(clientId) {
      const [r]: { user_id: string }[] = await sql`SELECT user_id FROM members
        WHERE client_id = ${clientId} AND role = 'owner' AND status = 'active' AND user_id IS NOT NULL ORDER BY created_at, id LIMIT 1`
      return r?.user_id ?? null
    },
    async countActive() {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM members WHERE status = 'active'`
      return r!.n
    },
    async ofUser(userId) {
      const rows: Raw[] = await sql`SELECT m.id, m.client_id, m.user_id, m.invited_email, m.role, m.status, m.created_at, m.invite_expires_at,
          c.name AS client_name
        FROM members m JOIN clients c ON c.id = m.client_id WHERE m.user_id = ${userId} ORDER BY m.created_at, m.id`
      return rows.map((r): MembershipRow => ({ ...row(r), client_name: (r.client_name as string | null) ?? null }))
    },
    async actingClient(userId, preferred, home) {
      const [r]: { client_id: string }[] = await sql`SELECT client_id FROM members WHERE user_id = ${userId} AND status = 'active'
        ORDER BY (client_id = ${preferred ?? ''}) DESC, (client_id = ${home ?? ''}) DESC, created_at LIMIT 1`
      return r?.client_id ?? home
    },
    invitationByTokenHash: (tokenHash) => byTokenHash(sql, tokenHash),
    invite: (inv, maxUsers) =>
      sql.begin(async (tx) => {
        await lockClient(tx, inv.client_id)
        if ((await counts(tx, inv.client_id)).seatsUsed >= maxUsers) return 'no_seat' as const
        const rows: Raw[] = await tx`INSERT INTO members
            (id, client_id, user_id, invited_email, role, status, invite_token_hash, invite_expires_at, created_at, updated_at)
          VALUES (${inv.id}, ${inv.client_id}, ${inv.user_id}, ${inv.invited_email}, ${inv.role}, 'invited', ${inv.invite_token_hash},
            ${inv.invite_expires_at}, ${inv.now}, ${inv.now})
          ON CONFLICT DO NOTHING RETURNING id`
        return rows.length > 0 ? ('invited' as const) : ('taken' as const)
      }),
    change: (clientId, id, decide, now) =>
      sql.begin(async (tx) => {
        await lockClient(tx, clientId)
        const found = await byId(tx, clientId, id)
        if (!found) return false
        const change = decide(found, await counts(tx, clientId))
        if (change === 'delete') await tx`DELETE FROM members WHERE client_id = ${clientId} AND id = ${id}`
        else {
          if (change.role) await tx`UPDATE members SET role = ${change.role}, updated_at = ${now} WHERE client_id = ${clientId} AND id = ${id}`
          if (change.status) await tx`UPDATE members SET status = ${change.status}, updated_at = ${now} WHERE client_id = ${clientId} AND id = ${id}`
        }
        return true
      }),
    accept: (tokenHash: string, userId: string, now: number, check: AcceptCheck) =>
      sql.begin(async (tx) => {
        // the client's row is locked before the invitation is read again, in the order every change here takes
        const seen = await byTokenHash(tx, tokenHash)
        if (seen) await lockClient(tx, seen.client_id)
        const invitation = seen && (await byTokenHash(tx, tokenHash))
        check(invitation, invitation !== null && (await byUser(tx, invitation.client_id, userId)) !== null)
        await acceptInvitationRow(tx, invitation.id, userId, now)
        return (await byId(tx, invitation.client_id, invitation.id))!
      }),
  }
}
