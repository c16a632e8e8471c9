import type { SQL } from 'bun'
import { insertClient } from '../clients/clients.store.pg'
import { acceptInvitationRow, insertMember, invitationByHash, lockClient } from '../clients/members.store.pg'
import type { AccountsStore, InvitationCheck } from './users.accounts.store'
import { countUsers, insertUser, setHomeClient } from './users.store.pg'

/** Every account's creation takes this transaction lock first ('vigil.accounts'): of two first registrations, one is the operator. */
const ACCOUNTS_LOCK = 'vigil.accounts'

/** the unique constraint on users.email refused the insert */
const isEmailTaken = (err: unknown) => {
  const e = err as { errno?: string; constraint?: string; message?: string }
  return e?.errno === '23505' && (e.constraint === 'users_email_unique' || String(e.message).includes('users_email_unique'))
}

/**
 * An account made with its home on PostgreSQL, in one transaction: the same answers as the
 * SQLite store (users.accounts.store.contract.test.ts). Account creations wait on one advisory
 * lock, so the first account is decided once across hubs (creations are rare, and the password
 * is hashed before). Joining by invitation locks the client's row, as every change to its
 * members does (members.store.pg.ts), then reads the invitation again under it: of two hubs
 * spending one invitation, one wins and the other finds it spent.
 */
export function createAccountsStorePg(sql: SQL): AccountsStore {
  return {
    async create(user, role, home) {
      try {
        return await sql.begin(async (tx) => {
          await tx`SELECT pg_advisory_xact_lock(hashtextextended(${ACCOUNTS_LOCK}, 0))`
          const t = tx as unknown as SQL
          await insertUser(t, { ...user, role: role((await countUsers(t)) === 0) })
          let clientId: string
          if (home.kind === 'own') {
            await insertClient(t, home.client)
            clientId = home.client.id
            await insertMember(t, {
              id: home.ownerMemberId,
              client_id: clientId,
              user_id: user.id,
              invited_email: null,
              role: 'owner',
              status: 'active',
              now: user.now,
            })
          } else {
            const seen = await invitationByHash(t, home.tokenHash)
            if (seen) await lockClient(t, seen.client_id)
            const invitation = seen && (await invitationByHash(t, home.tokenHash))
            const check: InvitationCheck = home.check
            check(invitation)
            if (!(await acceptInvitationRow(t, invitation.id, user.id, user.now))) check(null)
            clientId = invitation.client_id
          }
          await setHomeClient(t, user.id, clientId)
          return { clientId }
        })
      } catch (err) {
        if (isEmailTaken(err)) return 'email_taken' as const
        throw err
      }
    },
  }
}
