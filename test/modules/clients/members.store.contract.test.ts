import { describe, expect, test } from 'bun:test'
import { createMembersStore, type MemberRow, type MembersStore, type NewInvitation, sqliteMembers } from '../../../src/modules/clients/members.store'
import { createMembersStorePg } from '../../../src/modules/clients/members.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The members store (memberships and invitations) answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): MembersStore => (db.sqlite ? createMembersStore(sqliteMembers(db.sqlite)) : createMembersStorePg(db.pg!))

const T = 1_700_000_000_000

async function seed(db: EngineDb) {
  for (const [c, name] of [
    ['c1', 'Acme'],
    ['c2', null],
  ])
    await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, name])
  for (const u of ['u1', 'u2', 'u3', 'u4'])
    await db.exec("INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (?, ?, 'x', 1, 1)", [u, `${u}@test`])
}

const invitation = (over: Partial<NewInvitation> & { id: string; invited_email: string }): NewInvitation => ({
  client_id: 'c1',
  user_id: null,
  role: 'member',
  invite_token_hash: `hash-${over.id}`,
  invite_expires_at: T + 86_400_000,
  now: T + 100,
  ...over,
})

/** a check that lets everything through, recording what it was shown */
const seen: { row: MemberRow | null; alreadyMember: boolean }[] = []
function allow(row: MemberRow | null, alreadyMember: boolean): asserts row is MemberRow {
  seen.push({ row, alreadyMember })
  if (!row) throw new Error('no such invitation')
}

for (const engine of ENGINES) {
  describe(`members store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: MembersStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`memberships read back within their client only, oldest first, ties by id ${engine.skipReason}`, async () => {
      await ready()
      await store.insert({ id: 'm1', client_id: 'c1', user_id: 'u1', invited_email: null, role: 'owner', status: 'active', now: T })
      await store.insert({ id: 'm3', client_id: 'c1', user_id: 'u2', invited_email: null, role: 'admin', status: 'active', now: T + 10 })
      await store.insert({ id: 'm2', client_id: 'c1', user_id: 'u3', invited_email: null, role: 'member', status: 'disabled', now: T + 10 })
      await store.insert({ id: 'm9', client_id: 'c2', user_id: 'u1', invited_email: null, role: 'owner', status: 'active', now: T + 5 })
      expect(await store.byId('c1', 'm1')).toEqual({
        id: 'm1',
        client_id: 'c1',
        user_id: 'u1',
        invited_email: null,
        role: 'owner',
        status: 'active',
        created_at: T,
        invite_expires_at: null,
      })
      expect((await store.ofClient('c1')).map((m) => m.id)).toEqual(['m1', 'm2', 'm3'])
      expect((await store.ofClient('c2')).map((m) => m.id)).toEqual(['m9'])
      expect(await store.byId('c2', 'm1')).toBeNull()
      expect((await store.byUser('c1', 'u2'))!.id).toBe('m3')
      expect(await store.byUser('c2', 'u2')).toBeNull()
      // one membership per account and client
      await expect(
        store.insert({ id: 'm1-twin', client_id: 'c1', user_id: 'u1', invited_email: null, role: 'member', status: 'active', now: T }),
      ).rejects.toThrow()
    })

    test.skipIf(skip)(`roles, counts, the first owner and every client of a user ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.activeRole('u1', 'c1')).toBe('owner')
      expect(await store.activeRole('u3', 'c1')).toBeNull() // disabled
      expect(await store.activeRole('u2', 'c2')).toBeNull() // not a member there
      expect(await store.seatsUsed('c1')).toBe(2)
      expect(await store.activeOwners('c1')).toBe(1)
      expect(await store.firstOwner('c1')).toBe('u1')
      expect(await store.firstOwner('c9')).toBeNull()
      expect(await store.countActive()).toBe(3)
      const ofU1 = await store.ofUser('u1')
      expect(ofU1.map((m) => [m.id, m.client_name])).toEqual([
        ['m1', 'Acme'],
        ['m9', null],
      ])
      expect(ofU1[0]).toMatchObject({ role: 'owner', status: 'active', created_at: T })
      expect(await store.ofUser('u4')).toEqual([])
    })

    test.skipIf(skip)(`the acting client: the preferred one, else home, else the oldest active membership, else home ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.actingClient('u1', 'c2', 'c1')).toBe('c2')
      expect(await store.actingClient('u1', 'c7', 'c1')).toBe('c1')
      expect(await store.actingClient('u1', null, 'c2')).toBe('c2')
      expect(await store.actingClient('u1', null, null)).toBe('c1')
      expect(await store.actingClient('u3', 'c1', 'c1')).toBe('c1') // no active membership: home regardless
      expect(await store.actingClient('u4', null, null)).toBeNull()
    })

    test.skipIf(skip)(
      `an invitation takes a free seat, holds its secret's hash and expiry, and is refused when full or taken ${engine.skipReason}`,
      async () => {
        await ready()
        expect(await store.invite(invitation({ id: 'i1', invited_email: 'new@test' }), 3)).toBe('invited')
        const i1 = await store.invitationByTokenHash('hash-i1')
        expect(i1).toEqual({
          id: 'i1',
          client_id: 'c1',
          user_id: null,
          invited_email: 'new@test',
          role: 'member',
          status: 'invited',
          created_at: T + 100,
          invite_expires_at: T + 86_400_000,
        })
        expect((await store.byInvitedEmail('c1', 'new@test'))!.id).toBe('i1')
        expect(await store.byInvitedEmail('c2', 'new@test')).toBeNull()
        expect(await store.seatsUsed('c1')).toBe(3)
        // three seats in use: a fourth is refused under a limit of 3, and nothing is written
        expect(await store.invite(invitation({ id: 'i2', invited_email: 'more@test' }), 3)).toBe('no_seat')
        expect(await store.byId('c1', 'i2')).toBeNull()
        // the same email, the same account or the same secret again: taken
        expect(await store.invite(invitation({ id: 'i3', invited_email: 'new@test', invite_token_hash: 'hash-i3' }), 10)).toBe('taken')
        expect(await store.invite(invitation({ id: 'i4', invited_email: 'u2@test', user_id: 'u2' }), 10)).toBe('taken')
        expect(await store.invite(invitation({ id: 'i5', invited_email: 'other@test', invite_token_hash: 'hash-i1' }), 10)).toBe('taken')
        expect((await store.ofClient('c1')).map((m) => m.id)).toEqual(['m1', 'm2', 'm3', 'i1'])
        // the same email in another client is another invitation
        expect(await store.invite(invitation({ id: 'i6', client_id: 'c2', invited_email: 'new@test' }), 10)).toBe('invited')
        expect(await store.invitationByTokenHash('nope')).toBeNull()
      },
    )

    test.skipIf(skip)(
      `change shows the counts, writes what decide answers, and nothing when it refuses or the member is another client's ${engine.skipReason}`,
      async () => {
        await ready()
        let shown: unknown
        expect(
          await store.change(
            'c1',
            'm3',
            (row, counts) => {
              shown = { id: row.id, ...counts }
              return { role: 'owner' }
            },
            T + 200,
          ),
        ).toBe(true)
        expect(shown).toEqual({ id: 'm3', activeOwners: 1, seatsUsed: 3 })
        expect(await store.activeOwners('c1')).toBe(2)
        expect(await store.change('c1', 'm2', () => ({ status: 'active', role: 'admin' }), T + 200)).toBe(true)
        expect(await store.byId('c1', 'm2')).toMatchObject({ status: 'active', role: 'admin' })
        // a refusal rolls back: nothing written
        await expect(
          store.change(
            'c1',
            'm1',
            () => {
              throw new Error('refused')
            },
            T + 300,
          ),
        ).rejects.toThrow('refused')
        expect((await store.byId('c1', 'm1'))!.role).toBe('owner')
        // another client's member is not found, and decide is never asked
        let asked = false
        expect(
          await store.change(
            'c2',
            'm3',
            () => {
              asked = true
              return 'delete'
            },
            T,
          ),
        ).toBe(false)
        expect(asked).toBe(false)
        expect(await store.byId('c1', 'm3')).not.toBeNull()
        expect(await store.change('c1', 'm3', () => 'delete', T + 400)).toBe(true)
        expect(await store.byId('c1', 'm3')).toBeNull()
        expect(await store.change('c1', 'm3', () => 'delete', T + 400)).toBe(false)
      },
    )

    test.skipIf(skip)(`accept spends the invitation for the account: active, secret cleared, once ${engine.skipReason}`, async () => {
      await ready()
      seen.length = 0
      // a refusal writes nothing
      await expect(
        store.accept('hash-i1', 'u4', T + 500, () => {
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect((await store.invitationByTokenHash('hash-i1'))!.status).toBe('invited')
      const accepted = await store.accept('hash-i1', 'u4', T + 500, allow)
      expect(seen.map((s) => [s.row?.id, s.alreadyMember])).toEqual([['i1', false]])
      expect(accepted).toEqual({
        id: 'i1',
        client_id: 'c1',
        user_id: 'u4',
        invited_email: 'new@test',
        role: 'member',
        status: 'active',
        created_at: T + 100,
        invite_expires_at: null,
      })
      expect(await store.activeRole('u4', 'c1')).toBe('member')
      // the secret is spent: the hash finds nothing any more
      expect(await store.invitationByTokenHash('hash-i1')).toBeNull()
      await expect(store.accept('hash-i1', 'u4', T + 600, allow)).rejects.toThrow('no such invitation')
      expect(seen.at(-1)).toEqual({ row: null, alreadyMember: false })
      // the check is told when the account is already a member of the inviting client
      expect(await store.invite(invitation({ id: 'i7', invited_email: 'u1@test', invite_token_hash: 'hash-i7' }), 10)).toBe('invited')
      await expect(
        store.accept('hash-i7', 'u1', T + 700, (row, alreadyMember) => {
          if (!row || alreadyMember) throw new Error('already a member')
        }),
      ).rejects.toThrow('already a member')
      expect((await store.invitationByTokenHash('hash-i7'))!.status).toBe('invited')
    })

    test.skipIf(skip)(`of two invitations racing for a client's last seat, one is invited and the other refused ${engine.skipReason}`, async () => {
      await ready()
      // c2 holds two seats (m9, i6); a limit of 3 leaves one. On PostgreSQL the two run on two pooled connections at once.
      const outcomes = await Promise.all([
        store.invite(invitation({ id: 'r1', client_id: 'c2', invited_email: 'r1@test' }), 3),
        store.invite(invitation({ id: 'r2', client_id: 'c2', invited_email: 'r2@test' }), 3),
      ])
      expect(outcomes.sort()).toEqual(['invited', 'no_seat'])
      expect(await store.seatsUsed('c2')).toBe(3)
    })

    test.skipIf(skip)(`of two owners demoting each other at once, the last owner stays ${engine.skipReason}`, async () => {
      await ready()
      await store.insert({ id: 'o2', client_id: 'c2', user_id: 'u2', invited_email: null, role: 'owner', status: 'active', now: T + 50 })
      const demote = (id: string) =>
        store.change(
          'c2',
          id,
          (row, counts) => {
            if (row.role === 'owner' && counts.activeOwners <= 1) throw new Error('last owner')
            return { role: 'admin' }
          },
          T + 800,
        )
      const results = await Promise.allSettled([demote('m9'), demote('o2')])
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
      expect(await store.activeOwners('c2')).toBe(1)
    })
  })
}
