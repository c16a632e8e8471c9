import { describe, expect, test } from 'bun:test'
import { createHealthStore, type HealthStore } from '../../../src/modules/health/health.store'
import { createHealthStorePg } from '../../../src/modules/health/health.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The health store answers the same on SQLite and on PostgreSQL: the database answers, and how large it is. */
async function storeOf(db: EngineDb): Promise<HealthStore> {
  if (db.sqlite) return createHealthStore(db.sqlite)
  const store = createHealthStorePg(db.pg!, { now: () => 0, url: 'postgres://vigil@localhost/vigil' })
  await store.refresh() // the first read starts with the store; the test waits for it
  return store
}

for (const engine of ENGINES) {
  describe(`health store on ${engine.name}`, () => {
    const handle = engine.lifecycle()

    test.skipIf(engine.skip)(`a database that answers: ping resolves, and its size is that of its migrated tables ${engine.skipReason}`, async () => {
      const store = await storeOf(handle.db)
      await expect(store.ping()).resolves.toBeUndefined()
      const stats = store.stats()
      // an in-memory SQLite database with the migrations holds some hundred pages; PostgreSQL's several MB
      expect(stats.database_bytes).toBeGreaterThan(100_000)
      expect(Number.isInteger(stats.database_bytes)).toBe(true)
    })

    test.skipIf(engine.skip)(`the size grows with what is written ${engine.skipReason}`, async () => {
      const before = (await storeOf(handle.db)).stats().database_bytes
      await handle.db.exec('CREATE TABLE health_grow (pad text)')
      // random text: neither engine can compress it away
      for (let i = 0; i < 20; i++)
        await handle.db.exec('INSERT INTO health_grow (pad) VALUES (?)', [Buffer.from(crypto.getRandomValues(new Uint8Array(40_000))).toString('base64')])
      expect((await storeOf(handle.db)).stats().database_bytes).toBeGreaterThan(before)
    })
  })
}
