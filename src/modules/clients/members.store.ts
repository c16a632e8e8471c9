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

export type NewMember = Omit<MemberRow, 'created_at' | 'invite_expires_at'> & { now: number }

/** An invitation: a membership with status 'invited' and the SHA-256 of its one-time secret. */
export type NewInvitation = Omit<NewMember, 'status'> & { invite_token_hash: string; invite_expires_at: number }

/** A membership with its client's name, for the client switcher. */
export type MembershipRow = MemberRow & { client_name: string | null }

/** What a member's client holds while a change to one of its members is decided. */
export interface SeatCounts {
  /** active owners of the client */
  activeOwners: number
  /** members not disabled, pending invitations included */
  seatsUsed: number
}

/** Refuses (throws) to spend an invitation; passing, it holds the row for the accepting account. */
export type AcceptCheck = (row: MemberRow | null, alreadyMember: boolean) => asserts row is MemberRow

/** Refuses (throws) to let a new account join by an invitation; passing, it holds the pending invitation the account takes. */
export type InvitationCheck = (row: MemberRow | null) => asserts row is MemberRow

/** What `change` writes: new role and/or status, or the row's removal. */
export type MemberChange = { role?: MemberRole; status?: MemberStatus } | 'delete'

/**
 * The `members` table (memberships and pending invitations), on either engine (this file:
 * SQLite; members.store.pg.ts: PostgreSQL). Reads and writes of a member name its client;
 * what must check and write together (a seat, the last owner, spending an invitation) is one
 * call, one transaction, serialised per client (the client's row locked on PostgreSQL, an
 * IMMEDIATE transaction on SQLite).
 */
export interface MembersStore {
  /** an active membership (a new client's owner) */
  insert(m: NewMember): Promise<void>
  /** oldest first, ties by id */
  ofClient(clientId: string): Promise<MemberRow[]>
  byId(clientId: string, id: string): Promise<MemberRow | null>
  byUser(clientId: string, userId: string): Promise<MemberRow | null>
  byInvitedEmail(clientId: string, email: string): Promise<MemberRow | null>
  /** the user's role in the client while an active member, else null */
  activeRole(userId: string, clientId: string): Promise<MemberRole | null>
  seatsUsed(clientId: string): Promise<number>
  activeOwners(clientId: string): Promise<number>
  /** the oldest active owner's account, for the operator's list */
  firstOwner(clientId: string): Promise<string | null>
  /** active memberships across every client */
  countActive(): Promise<number>
  /** every client a user belongs to or is invited to, oldest first */
  ofUser(userId: string): Promise<MembershipRow[]>
  /** see sqliteMembers' actingClient */
  actingClient(userId: string, preferred: string | null, home: string | null): Promise<string | null>
  invitationByTokenHash(tokenHash: string): Promise<MemberRow | null>
  /**
   * Inserts an invitation while the client has fewer than `maxUsers` seats in use:
   * 'no_seat' when full, 'taken' when the email, account or secret is already there.
   */
  invite(inv: NewInvitation, maxUsers: number): Promise<'invited' | 'no_seat' | 'taken'>
  /**
   * Reads the member and its client's counts, asks `decide` (which may throw to refuse:
   * nothing is written then) and writes its answer. False when the client has no such member.
   */
  change(clientId: string, id: string, decide: (row: MemberRow, counts: SeatCounts) => MemberChange, now: number): Promise<boolean>
  /**
   * Spends an invitation for an account: finds it by its secret's hash, asks `check` (which
   * throws to refuse) with whether the account is already a member of that client, and makes it
   * an active membership of the account, the secret cleared. Returns the membership.
   */
  accept(tokenHash: string, userId: string, now: number, check: AcceptCheck): Promise<MemberRow>
}

const COLUMNS = 'id, client_id, user_id, invited_email, role, status, created_at, invite_expires_at'

/**
 * SQLite's statements, synchronous. Besides backing `createMembersStore`, they serve the callers
 * behind a synchronous port or inside another domain's SQLite transaction: the member's role read
 * on every request (the authenticator), the acting client and memberships (the users domain), a
 * new account's owner membership or joining by invitation (inside the registration transaction),
 * and the operator's seat counts and owner.
 */
export function sqliteMembers(sqlite: Database) {
  const insert = sqlite.query(
    'INSERT INTO members (id, client_id, user_id, invited_email, role, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const invite = sqlite.query(
    `INSERT INTO members (id, client_id, user_id, invited_email, role, status, invite_token_hash, invite_expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'invited', ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
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
  const setRole = sqlite.query('UPDATE members SET role = ?, updated_at = ? WHERE client_id = ? AND id = ?')
  const setStatus = sqlite.query('UPDATE members SET status = ?, updated_at = ? WHERE client_id = ? AND id = ?')
  const remove = sqlite.query('DELETE FROM members WHERE client_id = ? AND id = ?')
  const invitation = sqlite.query<MemberRow, [string]>(`SELECT ${COLUMNS} FROM members WHERE invite_token_hash = ?`)
  const accept = sqlite.query(
    "UPDATE members SET user_id = ?, status = 'active', invite_token_hash = NULL, invite_expires_at = NULL, updated_at = ? WHERE id = ? AND status = 'invited'",
  )
  const ofUser = sqlite.query<MembershipRow, [string]>(
    `SELECT m.id, m.client_id, m.user_id, m.invited_email, m.role, m.status, m.created_at, m.invite_expires_at, c.name AS client_name
     FROM members m JOIN clients c ON c.id = m.client_id WHERE m.user_id = ? ORDER BY m.created_at, m.id`,
  )
  const actingClient = sqlite.query<{ client_id: string }, [string, string, string]>(
    `SELECT client_id FROM members WHERE user_id = ? AND status = 'active'
     ORDER BY (client_id = ?) DESC, (client_id = ?) DESC, created_at LIMIT 1`,
  )
  /** a write transaction that takes the lock up front, so checks inside it hold until commit */
  const immediate = <T>(fn: () => T): T => sqlite.transaction(fn).immediate()
  const counts = (clientId: string): SeatCounts => ({ activeOwners: activeOwners.get(clientId)!.n, seatsUsed: seatsUsed.get(clientId)!.n })
  return {
    insert(m: NewMember) {
      insert.run(m.id, m.client_id, m.user_id, m.invited_email, m.role, m.status, m.now, m.now)
    },
    ofClient: (clientId: string) => ofClient.all(clientId),
    byId: (clientId: string, id: string) => byId.get(clientId, id),
    byUser: (clientId: string, userId: string) => byUser.get(clientId, userId),
    byInvitedEmail: (clientId: string, email: string) => byInvitedEmail.get(clientId, email),
    activeRole: (userId: string, clientId: string) => activeRole.get(userId, clientId)?.role ?? null,
    seatsUsed: (clientId: string) => seatsUsed.get(clientId)!.n,
    activeOwners: (clientId: string) => activeOwners.get(clientId)!.n,
    firstOwner: (clientId: string) => firstOwner.get(clientId)?.user_id ?? null,
    countActive: () => countActive.get()!.n,
    ofUser: (userId: string) => ofUser.all(userId),
    /**
     * The client a session acts for: the preferred one while the user is an active member there,
     * else the home client, else the oldest active membership (else the home client regardless).
     */
    actingClient: (userId: string, preferred: string | null, home: string | null) => actingClient.get(userId, preferred ?? '', home ?? '')?.client_id ?? home,
    invitationByTokenHash: (tokenHash: string) => invitation.get(tokenHash),
    /** Accepting spends the secret: the row becomes an active membership of the user. False when it was no longer an invitation. */
    acceptInvitation: (id: string, userId: string, now: number) => accept.run(userId, now, id).changes > 0,
    invite: (inv: NewInvitation, maxUsers: number) =>
      immediate(() => {
        if (seatsUsed.get(inv.client_id)!.n >= maxUsers) return 'no_seat' as const
        const { changes } = invite.run(
          inv.id,
          inv.client_id,
          inv.user_id,
          inv.invited_email,
          inv.role,
          inv.invite_token_hash,
          inv.invite_expires_at,
          inv.now,
          inv.now,
        )
        return changes > 0 ? ('invited' as const) : ('taken' as const)
      }),
    change: (clientId: string, id: string, decide: (row: MemberRow, counts: SeatCounts) => MemberChange, now: number) =>
      immediate(() => {
        const row = byId.get(clientId, id)
        if (!row) return false
        const change = decide(row, counts(clientId))
        if (change === 'delete') remove.run(clientId, id)
        else {
          if (change.role) setRole.run(change.role, now, clientId, id)
          if (change.status) setStatus.run(change.status, now, clientId, id)
        }
        return true
      }),
    accept: (tokenHash: string, userId: string, now: number, check: AcceptCheck) =>
      immediate(() => {
        const row = invitation.get(tokenHash)
        check(row, row !== null && byUser.get(row.client_id, userId) !== null)
        accept.run(userId, now, row.id)
        return byId.get(row.client_id, row.id)!
      }),
  }
}

export type SqliteMembers = ReturnType<typeof sqliteMembers>

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createMembersStore(members: SqliteMembers): MembersStore {
  return {
    insert: async (m) => members.insert(m),
    ofClient: async (clientId) => members.ofClient(clientId),
    byId: async (clientId, id) => members.byId(clientId, id),
    byUser: async (clientId, userId) => members.byUser(clientId, userId),
    byInvitedEmail: async (clientId, email) => members.byInvitedEmail(clientId, email),
    activeRole: async (userId, clientId) => members.activeRole(userId, clientId),
    seatsUsed: async (clientId) => members.seatsUsed(clientId),
    activeOwners: async (clientId) => members.activeOwners(clientId),
    firstOwner: async (clientId) => members.firstOwner(clientId),
    countActive: async () => members.countActive(),
    ofUser: async (userId) => members.ofUser(userId),
    actingClient: async (userId, preferred, home) => members.actingClient(userId, preferred, home),
    invitationByTokenHash: async (tokenHash) => members.invitationByTokenHash(tokenHash),
    invite: async (inv, maxUsers) => members.invite(inv, maxUsers),
    change: async (clientId, id, decide, now) => members.change(clientId, id, decide, now),
    accept: async (tokenHash, userId, now, check) => members.accept(tokenHash, userId, now, check),
  }
}
