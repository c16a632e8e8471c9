import { describe, expect, test } from 'bun:test'
import { createAiStore, type AiStore } from '../../../src/modules/ai/ai.store'
import { createAiStorePg } from '../../../src/modules/ai/ai.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The AI store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): AiStore => (db.sqlite ? createAiStore(db.sqlite) : createAiStorePg(db.pg!))

const T0 = 1_700_000_000_000
const entry = { deviceId: 'd1', kind: 'generate', provider: 'openai', model: 'gpt-x' }

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2', 'c3', 'c4']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
}

for (const engine of ENGINES) {
  describe(`AI store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: AiStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`a client without settings has no row; an update makes it with the columns given, enabled as 1 or 0 ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.config('c1')).toBeNull()
      const made = await store.update('c1', { provider: 'openai', api_key_enc: 'sealed:abc', temperature: 0.35, max_tokens: 512 }, T0)
      expect(made).toEqual({
        client_id: 'c1',
        provider: 'openai',
        model: null,
        base_url: null,
        api_key_enc: 'sealed:abc',
        temperature: 0.35,
        max_tokens: 512,
        schedule: null,
        enabled: 1,
        prompt: null,
        last_run_at: null,
        updated_at: T0,
      })
      expect(await store.config('c1')).toEqual(made)
      expect(await store.update('c1', { enabled: false, schedule: '*/5 * * * *', api_key_enc: null }, T0 + 1)).toMatchObject({
        enabled: 0,
        schedule: '*/5 * * * *',
        api_key_enc: null,
        provider: 'openai',
        updated_at: T0 + 1,
      })
      expect((await store.update('c1', { enabled: true }, T0 + 2)).enabled).toBe(1)
      // nothing to change: the row stays as it was, its time too
      expect((await store.update('c1', {}, T0 + 3)).updated_at).toBe(T0 + 2)
      // another client's row is its own
      expect(await store.config('c2')).toBeNull()
      expect(await store.update('c2', {}, T0 + 4)).toMatchObject({ client_id: 'c2', provider: null, enabled: 1, updated_at: T0 + 4 })
      expect((await store.config('c1'))!.provider).toBe('openai')
    })

    test.skipIf(skip)(`the schedule of given clients comes in their order, nulls for those without a row ${engine.skipReason}`, async () => {
      await ready()
      await store.update('c2', { enabled: false }, T0 + 5)
      expect(await store.scheduleOf(['c3', 'c2', 'c1'])).toEqual([
        { client_id: 'c3', enabled: null, schedule: null, last_run_at: null },
        { client_id: 'c2', enabled: 0, schedule: null, last_run_at: null },
        { client_id: 'c1', enabled: 1, schedule: '*/5 * * * *', last_run_at: null },
      ])
      expect(await store.scheduleOf([])).toEqual([])
    })

    test.skipIf(skip)(`a run is claimed only from the last run seen, with or without a row, once among many at once ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.claimRun('c1', null, T0 + 10)).toBe(true)
      expect(await store.claimRun('c1', null, T0 + 11)).toBe(false)
      expect((await store.config('c1'))!.last_run_at).toBe(T0 + 10)
      expect(await store.claimRun('c1', T0 + 10, T0 + 20)).toBe(true)
      // a client without a row: the claim makes it, enabled by default
      expect(await store.claimRun('c3', null, T0 + 30)).toBe(true)
      expect(await store.config('c3')).toMatchObject({ enabled: 1, last_run_at: T0 + 30, updated_at: T0 + 30 })
      // two hubs (two stores on one database on PostgreSQL) seeing the same last run: one wins
      const other = storeOf(handle.db)
      const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? other : store).claimRun('c4', null, T0 + 40 + i)))
      expect(claims.filter(Boolean).length).toBe(1)
      expect((await store.config('c2'))!.last_run_at).toBeNull()
    })

    test.skipIf(skip)(`reservations count against the day's budget per client, never past it at once ${engine.skipReason}`, async () => {
      await ready()
      const other = storeOf(handle.db)
      const ids = await Promise.all(Array.from({ length: 7 }, (_, i) => (i % 2 ? other : store).reserveCall('c1', 3, T0, entry, T0 + 100 + i)))
      expect(ids.filter((id) => id !== null).length).toBe(3)
      expect(ids.filter((id) => id !== null).every((id) => id!.startsWith('aiu_'))).toBe(true)
      expect(await store.callsSince('c1', T0)).toBe(3)
      expect(await store.reserveCall('c1', 3, T0, entry, T0 + 200)).toBeNull()
      // a new day, or another client, has its own budget
      expect(await store.reserveCall('c1', 3, T0 + 150, entry, T0 + 200)).not.toBeNull()
      expect(await store.reserveCall('c2', 3, T0, { ...entry, deviceId: null, kind: 'test' }, T0 + 200)).not.toBeNull()
      expect(await store.callsSince('c2', T0)).toBe(1)
      expect(await store.callsSince('c1', T0 + 150)).toBe(1)
    })

    test.skipIf(skip)(`the usage log is the client's calls in range, newest first, ties by id, with totals ${engine.skipReason}`, async () => {
      await ready()
      const a = (await store.reserveCall('c3', 10, 0, entry, T0 + 500))!
      const b = (await store.reserveCall('c3', 10, 0, { ...entry, kind: 'test', deviceId: null, model: null }, T0 + 500))!
      const c = (await store.reserveCall('c3', 10, 0, entry, T0 + 400))!
      await store.finishCall(a, { status: 'ok', error: null, tokensIn: 1200, tokensOut: 300, latencyMs: 850, model: 'gpt-x-2024' })
      await store.finishCall(c, { status: 'timeout', error: 'timed out', tokensIn: null, tokensOut: null, latencyMs: 30_000, model: 'gpt-x' })
      const page = await store.usage('c3', 0, Number.MAX_SAFE_INTEGER, 10, 0)
      const ties = [a, b].sort().reverse()
      expect(page.items.map((u) => u.id)).toEqual([...ties, c])
      expect(page.items.find((u) => u.id === a)).toEqual({
        id: a,
        client_id: 'c3',
        device_id: 'd1',
        kind: 'generate',
        provider: 'openai',
        model: 'gpt-x-2024',
        tokens_in: 1200,
        tokens_out: 300,
        latency_ms: 850,
        status: 'ok',
        error: null,
        created_at: T0 + 500,
      })
      expect(page.items.find((u) => u.id === b)).toMatchObject({ status: 'pending', device_id: null, model: null, tokens_in: null, latency_ms: null })
      expect(page.items.find((u) => u.id === c)).toMatchObject({ status: 'timeout', error: 'timed out', latency_ms: 30_000 })
      expect(page.totals).toEqual({ calls: 3, ok: 1, tokens_in: 1200, tokens_out: 300 })
      expect(await store.usage('c3', 0, Number.MAX_SAFE_INTEGER, 1, 2)).toEqual({ items: [page.items[2]!], totals: page.totals })
      expect(await store.usage('c3', T0 + 450, T0 + 600, 10, 0)).toMatchObject({ totals: { calls: 2, ok: 1 } })
      expect(await store.usage('c4', 0, Number.MAX_SAFE_INTEGER, 10, 0)).toEqual({ items: [], totals: { calls: 0, ok: 0, tokens_in: 0, tokens_out: 0 } })
    })
  })
}
