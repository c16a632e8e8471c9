import type { Database } from 'bun:sqlite'
import type { SystemRole } from '../../http/principal'
import type { NewClient } from '../clients/clients.store'
import { sqliteClients } from '../clients/clients.store'
import type { InvitationCheck } from '../clients/members.store'
import { sqliteMembers } from '../clients/members.store'
import { type NewUser, sqliteUsers } from './users.store'

export type { InvitationCheck }

/** Where a new account lives: a client of its own, of which it is the owner, or the client an invitation is for. */
export type AccountHome = { kind: 'own'; client: NewClient; ownerMemberId: string } | { kind: 'invitation'; tokenHash: string; check: InvitationCheck }

/**
 * One step that spans three tables (users, clients, members): an account made with its home, on
 * either engine (this file: SQLite; users.accounts.store.pg.ts: PostgreSQL). The users domain
 * owns the step; the clients domain's statements run inside its transaction.
 */
export interface AccountsStore {
  /**
   * In one transaction: `role(first)` decides the account's instance role, told whether no
   * account exists yet (it throws to refuse: nothing is written), the account is inserted, then
   * its home is made: a new client with the account as its active owner, or the invitation
   * found by its secret's hash, checked by `check` (which throws to refuse) and spent for the
   * account. Returns the home client, or 'email_taken' when another account has the email.
   */
  create(user: Omit<NewUser, 'role'>, role: (first: boolean) => SystemRole, home: AccountHome): Promise<{ clientId: string } | 'email_taken'>
}

/** the unique index on users.email refused the insert: another account has the address */
const isEmailTaken = (err: unknown) => String((err as Error)?.message).includes('UNIQUE constraint failed: users.email')

/** The step on SQLite: one IMMEDIATE transaction, so the "first account" count holds until commit. */
export function createAccountsStore(sqlite: Database): AccountsStore {
  const users = sqliteUsers(sqlite)
  const clients = sqliteClients(sqlite)
  const members = sqliteMembers(sqlite)
  const create = (user: Omit<NewUser, 'role'>, role: (first: boolean) => SystemRole, home: AccountHome) =>
    sqlite
      .transaction((): { clientId: string } => {
        users.insert({ ...user, role: role(users.count() === 0) })
        let clientId: string
        if (home.kind === 'own') {
          clients.insert(home.client)
          clientId = home.client.id
          members.insert({ id: home.ownerMemberId, client_id: clientId, user_id: user.id, invited_email: null, role: 'owner', status: 'active', now: user.now })
        } else {
          const check: InvitationCheck = home.check
          const invitation = members.invitationByTokenHash(home.tokenHash)
          check(invitation)
          if (!members.acceptInvitation(invitation.id, user.id, user.now)) check(null)
          clientId = invitation.client_id
        }
        users.setHomeClient(user.id, clientId)
        return { clientId }
      })
      .immediate()
  return {
    async create(user, role, home) {
      try {
        return create(user, role, home)
      } catch (err) {
        if (isEmailTaken(err)) return 'email_taken'
        throw err
      }
    },
  }
}
