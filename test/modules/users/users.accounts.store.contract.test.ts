import { describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { NEW_CLIENT } from '../../../src/modules/clients/clients.model'
import type { InvitationCheck, MemberRow } from '../../../src/modules/clients/members.store'
import { type AccountsStore, createAccountsStore } from '../../../src/modules/users/users.accounts.store'
import { createAccountsStorePg } from '../../../src/modules/users/users.accounts.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The accounts store (an account made with its home client, or joining one by invitation) answers the same on both engines. */
const storeOf = (db: EngineDb): AccountsStore => (db.sqlite ? createAccountsStore(db.sqlite) : createAccountsStorePg(db.pg!))

const T = 1_700_000_000_000
const newUser = (id: string, email = `${id}@test`) => ({ id, email, password_hash: `hash-${id}`, first_name: 'Ada', last_name: null, now: T })
const own = (clientId: string, memberId: string) => ({
  kind: 'own' as const,
  client: { id: clientId, name: `Client ${clientId}`, ...NEW_CLIENT, now: T },
  ownerMemberId: memberId,
})
const firstIsAdmin = (first: boolean) => (first ? ('admin' as const) : ('user' as const))

/** a check that lets any pending invitation through, as the service's does with the right email */
const pending: InvitationCheck = (row: MemberRow | null): asserts row is MemberRow => {
  if (row?.status !== 'invited' || row.user_id !== null) throw new Error('unusable invitation')
}

const rows = (db: EngineDb, text: string, params: unknown[] = []) => db.all(text, params)
const ints = (r: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]))

for (const engine of ENGINES) {
  describe(`accounts store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip

    test.skipIf(skip)(
      `the first account is told it is first; it is made with its own client, of which it is the active owner ${engine.skipReason}`,
      async () => {
        const store = storeOf(handle.db)
        const told: boolean[] = []
        const made = await store.create(
          newUser('u1'),
          (first) => {
            told.push(first)
            return firstIsAdmin(first)
          },
          own('c1', 'm1'),
        )
        expect(made).toEqual({ clientId: 'c1' })
        expect(told).toEqual([true])
        expect((await rows(handle.db, 'SELECT id, email, role, client_id, first_name, last_name FROM users')).map(ints)).toEqual([
          { id: 'u1', email: 'u1@test', role: 'admin', client_id: 'c1', first_name: 'Ada', last_name: null },
        ])
        expect((await rows(handle.db, 'SELECT id, name, plan_type, subscription_status, max_devices, max_users, created_at FROM clients')).map(ints)).toEqual([
          { id: 'c1', name: 'Client c1', plan_type: 'free', subscription_status: 'none', max_devices: 1, max_users: 50, created_at: T },
        ])
        expect((await rows(handle.db, 'SELECT id, client_id, user_id, role, status FROM members')).map(ints)).toEqual([
          { id: 'm1', client_id: 'c1', user_id: 'u1', role: 'owner', status: 'active' },
        ])
        // the next one is not first
        expect(
          await store.create(
            newUser('u2'),
            (first) => {
              told.push(first)
              return firstIsAdmin(first)
            },
            own('c2', 'm2'),
          ),
        ).toEqual({ clientId: 'c2' })
        expect(told).toEqual([true, false])
        expect((await rows(handle.db, "SELECT role FROM users WHERE id = 'u2'"))[0]!.role).toBe('user')
      },
    )

    test.skipIf(skip)(`a taken email, or a refusal by the role decision, writes nothing at all ${engine.skipReason}`, async () => {
      const store = storeOf(handle.db)
      expect(await store.create(newUser('u3', 'u1@test'), firstIsAdmin, own('c3', 'm3'))).toBe('email_taken')
      const refused = store.create(
        newUser('u4'),
        () => {
          throw new Error('registration closed')
        },
        own('c4', 'm4'),
      )
      await expect(refused).rejects.toThrow('registration closed')
      expect((await rows(handle.db, 'SELECT id FROM users ORDER BY id')).map((r) => r.id)).toEqual(['u1', 'u2'])
      expect((await rows(handle.db, 'SELECT id FROM clients ORDER BY id')).map((r) => r.id)).toEqual(['c1', 'c2'])
      expect((await rows(handle.db, 'SELECT id FROM members ORDER BY id')).map((r) => r.id)).toEqual(['m1', 'm2'])
    })

    test.skipIf(skip)(
      `joining by invitation spends it for the account, which has no client of its own; a refused check writes nothing ${engine.skipReason}`,
      async () => {
        const store = storeOf(handle.db)
        const invite = `INSERT INTO members (id, client_id, user_id, invited_email, role, status, invite_token_hash, invite_expires_at, created_at, updated_at)
        VALUES (?, 'c1', NULL, ?, 'admin', 'invited', ?, ?, 1, 1)`
        await handle.db.exec(invite, ['inv1', 'new@test', 'hash-1', T + 1000])
        await handle.db.exec(invite, ['inv2', 'other@test', 'hash-2', T + 1000])
        const refuse: InvitationCheck = () => {
          throw new Error('sent to another email')
        }
        await expect(store.create(newUser('u5', 'new@test'), firstIsAdmin, { kind: 'invitation', tokenHash: 'hash-2', check: refuse })).rejects.toThrow(
          'sent to another email',
        )
        expect(await rows(handle.db, "SELECT id FROM users WHERE id = 'u5'")).toEqual([])
        const seen: (MemberRow | null)[] = []
        const watching: InvitationCheck = (row) => {
          seen.push(row)
          pending(row)
        }
        expect(await store.create(newUser('u5', 'new@test'), firstIsAdmin, { kind: 'invitation', tokenHash: 'hash-1', check: watching })).toEqual({
          clientId: 'c1',
        })
        expect(seen).toEqual([
          {
            id: 'inv1',
            client_id: 'c1',
            user_id: null,
            invited_email: 'new@test',
            role: 'admin',
            status: 'invited',
            created_at: 1,
            invite_expires_at: T + 1000,
          },
        ])
        expect((await rows(handle.db, "SELECT client_id, role FROM users WHERE id = 'u5'"))[0]).toEqual({ client_id: 'c1', role: 'user' })
        expect((await rows(handle.db, "SELECT user_id, status, role, invite_token_hash, invite_expires_at FROM members WHERE id = 'inv1'"))[0]).toEqual({
          user_id: 'u5',
          status: 'active',
          role: 'admin',
          invite_token_hash: null,
          invite_expires_at: null,
        })
        expect((await rows(handle.db, 'SELECT id FROM clients ORDER BY id')).map((r) => r.id)).toEqual(['c1', 'c2'])
        // spent: the same secret again finds nothing
        const again: (MemberRow | null)[] = []
        await expect(
          store.create(newUser('u6', 'new2@test'), firstIsAdmin, {
            kind: 'invitation',
            tokenHash: 'hash-1',
            check: (row) => {
              again.push(row)
              pending(row)
            },
          }),
        ).rejects.toThrow('unusable invitation')
        expect(again).toEqual([null])
        expect(await rows(handle.db, "SELECT id FROM users WHERE id = 'u6'")).toEqual([])
      },
    )
  })
}

/** Two hubs on one PostgreSQL: two stores, each with its own pool, racing for what must happen once. */
describe('accounts store: two hubs on one PostgreSQL', () => {
  const pgEngine = ENGINES.find((e) => e.name === 'postgres')!
  const handle = pgEngine.lifecycle()
  const skip = pgEngine.skip
  const hubs = () => [createAccountsStorePg(handle.db.pg!), createAccountsStorePg(handle.db.pg! as SQL)]

  test.skipIf(skip)(`of registrations racing on an empty instance exactly one is the first (the operator) ${pgEngine.skipReason}`, async () => {
    const [a, b] = hubs()
    const made = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a! : b!).create(newUser(`r${i}`), firstIsAdmin, own(`rc${i}`, `rm${i}`))))
    expect(made.every((m) => m !== 'email_taken')).toBe(true)
    const roles = (await rows(handle.db, 'SELECT role FROM users')).map((r) => r.role)
    expect(roles.filter((r) => r === 'admin').length).toBe(1)
    expect(roles.length).toBe(6)
  })

  test.skipIf(skip)(`of two registrations of one email at once, one is made and the other is told the email is taken ${pgEngine.skipReason}`, async () => {
    const [a, b] = hubs()
    const made = await Promise.all([
      a!.create(newUser('e1', 'same@test'), firstIsAdmin, own('ec1', 'em1')),
      b!.create(newUser('e2', 'same@test'), firstIsAdmin, own('ec2', 'em2')),
    ])
    expect(made.filter((m) => m === 'email_taken').length).toBe(1)
    expect((await rows(handle.db, "SELECT count(*)::int AS n FROM clients WHERE id IN ('ec1', 'ec2')"))[0]!.n).toBe(1)
  })

  test.skipIf(skip)(`of two accounts joining by one invitation at once, one joins and the other is refused ${pgEngine.skipReason}`, async () => {
    await handle.db.exec(
      `INSERT INTO members (id, client_id, user_id, invited_email, role, status, invite_token_hash, invite_expires_at, created_at, updated_at)
       VALUES ('race-inv', 'rc0', NULL, 'x@test', 'member', 'invited', 'race-hash', ?, 1, 1)`,
      [T + 1000],
    )
    const [a, b] = hubs()
    const joins = await Promise.allSettled([
      a!.create(newUser('j1', 'j1@test'), firstIsAdmin, { kind: 'invitation', tokenHash: 'race-hash', check: pending }),
      b!.create(newUser('j2', 'j2@test'), firstIsAdmin, { kind: 'invitation', tokenHash: 'race-hash', check: pending }),
    ])
    expect(joins.filter((j) => j.status === 'fulfilled').length).toBe(1)
    expect(joins.filter((j) => j.status === 'rejected').length).toBe(1)
    expect((await rows(handle.db, "SELECT count(*)::int AS n FROM users WHERE id IN ('j1', 'j2')"))[0]!.n).toBe(1)
  })
})
