import { describe, expect, test } from 'bun:test'
import type { NewRecommendation } from '../../../src/modules/recommendations/recommendations.model'
import { createRecommendationsStore, type RecommendationsStore } from '../../../src/modules/recommendations/recommendations.store'
import { createRecommendationsStorePg } from '../../../src/modules/recommendations/recommendations.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The recommendations store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): RecommendationsStore => (db.sqlite ? createRecommendationsStore(db.sqlite) : createRecommendationsStorePg(db.pg!))

const T0 = 1_700_000_000_000
const rec = (over: Partial<NewRecommendation> = {}): NewRecommendation => ({
  deviceId: 'd1',
  recommendation: 'Add swap',
  category: 'memory',
  severity: 'warning',
  source: 'rules',
  evidence: { used_percent: 93.5, window: '24h' },
  dedupeKey: 'mem:high',
  ...over,
})

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
  for (const [id, c] of [
    ['d1', 'c1'],
    ['d2', 'c1'],
    ['d9', 'c2'],
  ])
    await db.exec("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES (?, ?, ?, 1, 1, '[]')", [id, c, `fp-${id}`])
}

for (const engine of ENGINES) {
  describe(`recommendations store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: RecommendationsStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`an insert answers the stored recommendation, evidence and nulls as given ${engine.skipReason}`, async () => {
      await ready()
      const a = await store.insert('c1', rec(), T0)
      expect(a).toEqual({
        id: expect.stringMatching(/^rec_/),
        client_id: 'c1',
        device_id: 'd1',
        recommendation: 'Add swap',
        category: 'memory',
        severity: 'warning',
        source: 'rules',
        evidence: { used_percent: 93.5, window: '24h' },
        created_at: new Date(T0).toISOString(),
      })
      const b = await store.insert('c1', rec({ evidence: null, dedupeKey: null, source: 'collector', severity: 'info' }), T0 + 1)
      expect(b).toMatchObject({ evidence: null, source: 'collector', severity: 'info' })
      expect((await store.page('c1', 'd1', 0, Number.MAX_SAFE_INTEGER, 10, 0)).items).toEqual([b, a])
    })

    test.skipIf(skip)(
      `a page is one device of one client, newest first, ties by id descending, within [from, to], with its total ${engine.skipReason}`,
      async () => {
        await ready()
        const tie1 = await store.insert('c1', rec({ deviceId: 'd2', dedupeKey: null }), T0 + 10)
        const tie2 = await store.insert('c1', rec({ deviceId: 'd2', dedupeKey: null }), T0 + 10)
        const older = await store.insert('c1', rec({ deviceId: 'd2', dedupeKey: null }), T0 + 5)
        await store.insert('c2', rec({ deviceId: 'd9' }), T0 + 10)
        const ties = [tie1, tie2].sort((x, y) => (x.id < y.id ? 1 : -1))
        const all = await store.page('c1', 'd2', 0, Number.MAX_SAFE_INTEGER, 10, 0)
        expect(all).toEqual({ items: [...ties, older], total: 3 })
        expect(await store.page('c1', 'd2', 0, Number.MAX_SAFE_INTEGER, 1, 1)).toEqual({ items: [ties[1]!], total: 3 })
        expect(await store.page('c1', 'd2', T0 + 5, T0 + 5, 10, 0)).toEqual({ items: [older], total: 1 })
        expect(await store.page('c1', 'd2', T0 + 11, T0 + 20, 10, 0)).toEqual({ items: [], total: 0 })
        // another client's device, or this client's name for it, reads nothing across the line
        expect(await store.page('c2', 'd2', 0, Number.MAX_SAFE_INTEGER, 10, 0)).toEqual({ items: [], total: 0 })
        expect((await store.page('c1', 'd9', 0, Number.MAX_SAFE_INTEGER, 10, 0)).total).toBe(0)
        expect((await store.page('c2', 'd9', 0, Number.MAX_SAFE_INTEGER, 10, 0)).total).toBe(1)
      },
    )

    test.skipIf(skip)(
      `a deduplicated insert skips a key stored for the same device since the window's start, not for another device, client or before it ${engine.skipReason}`,
      async () => {
        await ready()
        // 'mem:high' was stored for c1/d1 at T0
        const r = await store.insertDeduplicated(
          'c1',
          [rec(), rec({ deviceId: 'd2' }), rec({ dedupeKey: 'disk:full' }), rec({ dedupeKey: null }), rec({ deviceId: null })],
          T0 + 100,
          T0,
        )
        expect(r.skipped).toBe(1)
        expect(r.stored.map((s) => [s.device_id, s.created_at])).toEqual([
          ['d2', new Date(T0 + 100).toISOString()],
          ['d1', new Date(T0 + 100).toISOString()],
          ['d1', new Date(T0 + 100).toISOString()],
          [null, new Date(T0 + 100).toISOString()],
        ])
        // a client-wide finding (no device) deduplicates against client-wide ones
        expect((await store.insertDeduplicated('c1', [rec({ deviceId: null })], T0 + 101, T0)).skipped).toBe(1)
        // past the window, the same finding is stored again; in another client it is its own
        expect((await store.insertDeduplicated('c1', [rec()], T0 + 200, T0 + 1)).stored.length).toBe(1)
        expect((await store.insertDeduplicated('c2', [rec({ deviceId: 'd9' })], T0 + 200, T0)).skipped).toBe(1) // c2's own, at T0 + 10
        expect((await store.insertDeduplicated('c2', [rec({ deviceId: 'd9' })], T0 + 200, T0 + 11)).stored.length).toBe(1)
        // the same key twice in one call: the second is the first's duplicate
        const twice = await store.insertDeduplicated('c1', [rec({ dedupeKey: 'net:loss' }), rec({ dedupeKey: 'net:loss' })], T0 + 300, T0)
        expect([twice.stored.length, twice.skipped]).toEqual([1, 1])
      },
    )

    test.skipIf(skip)(`overlapping deduplicated inserts of one finding store it once ${engine.skipReason}`, async () => {
      await ready()
      // on PostgreSQL, two stores are two hubs' connections to one database
      const other = storeOf(handle.db)
      const runs = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? other : store).insertDeduplicated('c1', [rec({ dedupeKey: 'cpu:hot' })], T0 + 400, T0)),
      )
      expect(runs.reduce((n, r) => n + r.stored.length, 0)).toBe(1)
      expect(runs.reduce((n, r) => n + r.skipped, 0)).toBe(5)
    })
  })
}
