import { describe, expect, test } from 'bun:test'
import { AppError } from '../../../src/http/errors'
import { manualClock } from '../../../src/lib/clock'
import { createClientsStore, sqliteClients } from '../../../src/modules/clients/clients.store'
import { createClientsStorePg } from '../../../src/modules/clients/clients.store.pg'
import { acceptInvitation } from '../../../src/modules/clients/invitations.service'
import { changeMember, inviteMember, listMembers, removeMember } from '../../../src/modules/clients/members.service'
import { createMembersStore, sqliteMembers } from '../../../src/modules/clients/members.store'
import { createMembersStorePg } from '../../../src/modules/clients/members.store.pg'
import { directMemberRoles } from '../../../src/modules/clients/clients.roles'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/**
 * Managing members through the services on either engine's stores: the same refusals and the
 * same answers, so the services do not care which engine is behind them.
 */
const EMAILS: Record<string, string> = { u1: 'owner@test', u2: 'second@test', u3: 'third@test' }

const depsOf = (db: EngineDb) => {
  const clock = manualClock()
  return {
    clock,
    store: db.sqlite ? createClientsStore(sqliteClients(db.sqlite)) : createClientsStorePg(db.pg!),
    members: db.sqlite ? createMembersStore(sqliteMembers(db.sqlite)) : createMembersStorePg(db.pg!),
    roles: directMemberRoles(() => null),
    accounts: {
      userIdByEmail: async (email: string) => Object.keys(EMAILS).find((u) => EMAILS[u] === email) ?? null,
      emailOf: async (userId: string) => EMAILS[userId] ?? null,
    },
    ownLimits: null,
  }
}

async function seed(db: EngineDb) {
  await db.exec("INSERT INTO clients (id, name, max_users, created_at, updated_at) VALUES ('c1', 'Acme', 3, 1, 1)")
  await db.exec("INSERT INTO clients (id, name, max_users, created_at, updated_at) VALUES ('c2', 'Other', 3, 1, 1)")
  for (const [u, email] of Object.entries(EMAILS))
    await db.exec("INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (?, ?, 'x', 1, 1)", [u, email])
  await db.exec("INSERT INTO members (id, client_id, user_id, role, status, created_at, updated_at) VALUES ('own1', 'c1', 'u1', 'owner', 'active', 1, 1)")
  await db.exec("INSERT INTO members (id, client_id, user_id, role, status, created_at, updated_at) VALUES ('own2', 'c2', 'u2', 'owner', 'active', 1, 1)")
}

const code = async (p: Promise<unknown>) => {
  try {
    await p
    return 'ok'
  } catch (err) {
    if (err instanceof AppError) return err.code
    throw err
  }
}

for (const engine of ENGINES) {
  describe(`managing members on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip

    test.skipIf(skip)(`invite, accept, change and remove: the same answers and refusals ${engine.skipReason}`, async () => {
      await seed(handle.db)
      const deps = depsOf(handle.db)
      const invited = await inviteMember(deps, 'c1', 'owner', { email: 'Second@Test', role: 'admin' })
      expect(invited).toMatchObject({ client_id: 'c1', user_id: 'u2', status: 'invited', role: 'admin', email: 'second@test' })
      expect(invited.invitation_token).toStartWith('vin_')
      // the same email again is a conflict; an admin may not make owners
      expect(await code(inviteMember(deps, 'c1', 'owner', { email: 'second@test' }))).toBe('conflict')
      expect(await code(inviteMember(deps, 'c1', 'admin', { email: 'new@test', role: 'owner' }))).toBe('forbidden')
      // three seats: the owner, the invitation and one more; the fourth is refused
      await inviteMember(deps, 'c1', 'owner', { email: 'third@test' })
      expect(await code(inviteMember(deps, 'c1', 'owner', { email: 'fourth@test' }))).toBe('user_limit_reached')

      // only the invited account accepts, once
      expect(await code(acceptInvitation(deps, 'u3', invited.invitation_token))).toBe('forbidden')
      expect(await acceptInvitation(deps, 'u2', invited.invitation_token)).toMatchObject({ id: invited.id, status: 'active', role: 'admin' })
      expect(await code(acceptInvitation(deps, 'u2', invited.invitation_token))).toBe('not_found')

      // the last owner stays; another client's member is not found here
      expect(await code(changeMember(deps, 'c1', 'owner', 'own1', { role: 'member' }))).toBe('last_owner')
      expect(await code(removeMember(deps, 'c1', 'owner', 'own1'))).toBe('last_owner')
      expect(await code(removeMember(deps, 'c1', 'owner', 'own2'))).toBe('not_found')
      expect(await code(changeMember(deps, 'c1', 'owner', 'own2', { role: 'member' }))).toBe('not_found')
      expect(await changeMember(deps, 'c1', 'owner', invited.id, { role: 'owner' })).toMatchObject({ role: 'owner' })
      expect(await changeMember(deps, 'c1', 'owner', 'own1', { status: 'disabled' })).toMatchObject({ status: 'disabled' })
      // re-enabling needs a seat: two are in use (the new owner and the third invitation) of three
      expect(await changeMember(deps, 'c1', 'owner', 'own1', { status: 'active' })).toMatchObject({ status: 'active' })
      await removeMember(deps, 'c1', 'admin', (await listMembers(deps, 'c1')).find((m) => m.email === 'third@test')!.id)
      expect((await listMembers(deps, 'c1')).map((m) => [m.email, m.role, m.status])).toEqual([
        ['owner@test', 'owner', 'active'],
        ['second@test', 'owner', 'active'],
      ])
      expect((await listMembers(deps, 'c2')).map((m) => m.id)).toEqual(['own2'])
    })
  })
}
