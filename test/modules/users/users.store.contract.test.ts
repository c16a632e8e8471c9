import { describe, expect, test } from 'bun:test'
import { createUsersStore, sqliteUsers, type UsersStore } from '../../../src/modules/users/users.store'
import { createUsersStorePg } from '../../../src/modules/users/users.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The users store (accounts) answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): UsersStore => (db.sqlite ? createUsersStore(sqliteUsers(db.sqlite)) : createUsersStorePg(db.pg!))

const user = (id: string, email: string, role: 'admin' | 'user', clientId: string | null, createdAt: number) =>
  [id, email, `hash-${id}`, clientId, role, createdAt, createdAt] as unknown[]

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2', 'c3']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
  const insert = 'INSERT INTO users (id, email, password_hash, client_id, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)'
  await db.exec(insert, user('u-op2', 'op2@test', 'admin', 'c1', 20))
  await db.exec(insert, user('u-op1', 'op1@test', 'admin', 'c1', 10))
  await db.exec(insert, user('u-opB', 'opb@test', 'admin', 'c2', 20)) // same time as op2: ties by id
  await db.exec(insert, user('u-t', 'tenant@test', 'user', 'c3', 30))
  await db.exec(insert, user('u-none', 'nohome@test', 'admin', null, 40))
  // op1 is an active member of c1; opB is disabled in c2; the tenant owns c3
  const member = "INSERT INTO members (id, client_id, user_id, role, status, created_at, updated_at) VALUES (?, ?, ?, 'owner', ?, 1, 1)"
  await db.exec(member, ['m1', 'c1', 'u-op1', 'active'])
  await db.exec(member, ['m2', 'c2', 'u-opB', 'disabled'])
  await db.exec(member, ['m3', 'c3', 'u-t', 'active'])
}

for (const engine of ENGINES) {
  describe(`users store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: UsersStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`an account reads back by email and by id, with nulls as nulls; unknown ones are null ${engine.skipReason}`, async () => {
      await ready()
      const t = await store.byEmail('tenant@test')
      expect(t).toEqual({ id: 'u-t', email: 'tenant@test', password_hash: 'hash-u-t', first_name: null, last_name: null, client_id: 'c3', role: 'user' })
      expect(await store.byId('u-t')).toEqual(t)
      expect((await store.byId('u-none'))!.client_id).toBeNull()
      expect(await store.byEmail('TENANT@test')).toBeNull() // stored lower-cased; the service normalises
      expect(await store.byEmail('nobody@test')).toBeNull()
      expect(await store.byId('nope')).toBeNull()
      expect(await store.roleOf('u-op1')).toBe('admin')
      expect(await store.roleOf('u-t')).toBe('user')
      expect(await store.roleOf('nope')).toBeNull()
    })

    test.skipIf(skip)(`counts, operators oldest first (ties by id), operators homed at a client ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.count()).toBe(5)
      expect(await store.countOperators()).toBe(4)
      expect(await store.operators()).toEqual([
        { email: 'op1@test', id: 'u-op1' },
        { email: 'op2@test', id: 'u-op2' },
        { email: 'opb@test', id: 'u-opB' },
        { email: 'nohome@test', id: 'u-none' },
      ])
      expect(await store.operatorsHomedAt('c1')).toEqual(['u-op1', 'u-op2'])
      expect(await store.operatorsHomedAt('c3')).toEqual([])
      // an operator's own client needs the operator's active membership there: c2's operator is disabled
      expect(await store.operatorClients()).toEqual(['c1'])
    })

    test.skipIf(skip)(`setRole changes one account's role; an unknown account is false and nothing changes ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.setRole('u-t', 'admin', 99)).toBe(true)
      expect(await store.roleOf('u-t')).toBe('admin')
      expect(await store.operatorClients()).toEqual(['c1', 'c3'])
      expect(await store.setRole('u-t', 'user', 100)).toBe(true)
      expect(await store.roleOf('u-t')).toBe('user')
      expect(await store.setRole('nope', 'admin', 101)).toBe(false)
      expect(await store.countOperators()).toBe(4)
    })
  })
}
