import { describe, expect, test } from 'bun:test'
import { createStorageStore, type StorageStore } from '../../../src/modules/storage/storage.store'
import { createStorageStorePg } from '../../../src/modules/storage/storage.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The storage store answers alike on SQLite and on PostgreSQL: the database's own figures of its size. */
const storeOf = (db: EngineDb): StorageStore => (db.sqlite ? createStorageStore(db.sqlite) : createStorageStorePg(db.pg!))

for (const engine of ENGINES) {
  describe(`storage store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip

    test.skipIf(skip)(`a table's bytes (its indexes included) grow with its rows; the database's size holds them all ${engine.skipReason}`, async () => {
      const store = storeOf(handle.db)
      const before = await store.bytesPerTable()
      expect(before.has('recommendations')).toBe(true)
      await handle.db.exec("INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'c1', 1, 1)")
      for (let i = 0; i < 300; i++)
        await handle.db.exec("INSERT INTO recommendations (id, client_id, recommendation, source, dedupe_key, created_at) VALUES (?, 'c1', ?, 'rules', ?, ?)", [
          `rec_${i}`,
          'x'.repeat(200),
          `k${i}`,
          i,
        ])
      const after = await store.bytesPerTable()
      expect(after.get('recommendations')!).toBeGreaterThan(before.get('recommendations')!)
      const used = await store.usedBytes()
      expect(used).toBeGreaterThanOrEqual(after.get('recommendations')!)
      expect(await store.fileBytes()).toBeGreaterThanOrEqual(used)
      // every name is a table's (an index counts with its table)
      expect(after.has('recommendations_dedupe')).toBe(false)
    })
  })
}

const pg = ENGINES.find((e) => e.name === 'postgres')!
describe('storage store on postgres: a partitioned table', () => {
  const handle = pg.lifecycle()
  test.skipIf(pg.skip)(`counts every partition under the table it partitions, as one name ${pg.skipReason}`, async () => {
    await handle.db.exec('CREATE TABLE samples_t (ts bigint NOT NULL, v double precision) PARTITION BY RANGE (ts)')
    await handle.db.exec('CREATE TABLE samples_t_a PARTITION OF samples_t FOR VALUES FROM (0) TO (1000)')
    await handle.db.exec('CREATE TABLE samples_t_b PARTITION OF samples_t FOR VALUES FROM (1000) TO (2000)')
    await handle.db.exec('INSERT INTO samples_t SELECT g, g FROM generate_series(0, 1999) g')
    const store = createStorageStorePg(handle.db.pg!)
    const per = await store.bytesPerTable()
    expect(per.has('samples_t_a')).toBe(false)
    expect(per.has('samples_t_b')).toBe(false)
    const [{ a, b }] = await handle.db.pg!`SELECT pg_total_relation_size('samples_t_a')::float8 AS a, pg_total_relation_size('samples_t_b')::float8 AS b`
    expect(per.get('samples_t')).toBe(a + b)
    expect(a).toBeGreaterThan(0)
  })
})
