import { describe, expect, test } from 'bun:test'
import { createEnrolmentsStore, type EnrolmentsStore, type NewEnrolment, sqliteEnrolments } from '../../../src/modules/enrolments/enrolments.store'
import { createEnrolmentsStorePg } from '../../../src/modules/enrolments/enrolments.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The enrolments store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): EnrolmentsStore => (db.sqlite ? createEnrolmentsStore(sqliteEnrolments(db.sqlite)) : createEnrolmentsStorePg(db.pg!))

const enrolment = (over: Partial<NewEnrolment> & { id: string }): NewEnrolment => ({
  client_id: 'c1',
  token_hash: `hash-${over.id}`,
  created_by: 'usr_1',
  created_at: 1_700_000_000_000,
  expires_at: 1_700_003_600_000,
  ...over,
})

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
  await db.exec("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES ('d1', 'c1', 'fp1', 1, 1, '[]')")
  await db.exec("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES ('d2', 'c1', 'fp2', 1, 1, '[]')")
}

for (const engine of ENGINES) {
  describe(`enrolments store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: EnrolmentsStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`an enrolment reads back by its token's hash, unused, with numbers as numbers ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(enrolment({ id: 'e1' }))
      await store.insert(enrolment({ id: 'e2', client_id: 'c2' }))
      expect(await store.byHash('hash-e1')).toEqual({
        id: 'e1',
        client_id: 'c1',
        created_by: 'usr_1',
        created_at: 1_700_000_000_000,
        expires_at: 1_700_003_600_000,
        used_at: null,
        device_id: null,
      })
      expect((await store.byHash('hash-e2'))!.client_id).toBe('c2')
      expect(await store.byHash('nope')).toBeNull()
    })

    test.skipIf(skip)(`a token hash is unique ${engine.skipReason}`, async () => {
      await ready()
      await expect(store.insert(enrolment({ id: 'e1-twin', token_hash: 'hash-e1' }))).rejects.toThrow()
      expect((await store.byHash('hash-e1'))!.id).toBe('e1')
    })

    test.skipIf(skip)(`a token is spent once: the second markUsed changes nothing and says so ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.markUsed('e1', 1_700_000_100_000, 'd1')).toBe(true)
      expect(await store.markUsed('e1', 1_700_000_200_000, 'd2')).toBe(false)
      const spent = await store.byHash('hash-e1')
      expect([spent!.used_at, spent!.device_id]).toEqual([1_700_000_100_000, 'd1'])
      expect(await store.markUsed('unknown', 1, 'd1')).toBe(false)
      expect((await store.byHash('hash-e2'))!.used_at).toBeNull()
    })

    test.skipIf(skip)(`prune drops the rows expired before the time given, used or not, and keeps the rest ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(enrolment({ id: 'e3', expires_at: 1_700_010_000_000 }))
      await store.prune(1_700_003_600_000) // strictly before: e1 and e2 expire at that instant and stay
      expect(await store.byHash('hash-e1')).not.toBeNull()
      await store.prune(1_700_003_600_001)
      expect(await store.byHash('hash-e1')).toBeNull()
      expect(await store.byHash('hash-e2')).toBeNull()
      expect((await store.byHash('hash-e3'))!.id).toBe('e3')
    })
  })
}
