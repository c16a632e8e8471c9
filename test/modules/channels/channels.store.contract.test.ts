import { describe, expect, test } from 'bun:test'
import { type ChannelRow, type ChannelsStore, createChannelsStore, type NewDelivery } from '../../../src/modules/channels/channels.store'
import { createChannelsStorePg } from '../../../src/modules/channels/channels.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The channels store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): ChannelsStore => (db.sqlite ? createChannelsStore(db.sqlite) : createChannelsStorePg(db.pg!))

const T0 = 1_700_000_000_000
const channel = (over: Partial<ChannelRow> & Pick<ChannelRow, 'id'>): ChannelRow => ({
  client_id: 'c1',
  name: 'ops',
  kind: 'ntfy',
  config: '{"server":"https://ntfy.example.com","topic":"ops"}',
  secrets_enc: null,
  enabled: 1,
  min_severity: 'info',
  created_at: T0,
  updated_at: T0,
  ...over,
})
const delivery = (over: Partial<NewDelivery> & Pick<NewDelivery, 'id'>): NewDelivery => ({
  client_id: 'c1',
  channel_id: 'ch1',
  event: 'firing',
  severity: 'critical',
  notification: '{"title":"x"}',
  status: 'pending',
  next_attempt_at: T0,
  created_at: T0,
  ...over,
})
const attempt = (id: string, delivery_id: string, n: number) => ({
  id,
  delivery_id,
  attempt: n,
  at: T0 + n,
  duration_ms: 12,
  http_status: n === 1 ? 503 : null,
  outcome: n === 1 ? 'http_error' : 'unreachable',
  error: 'down',
  excerpt: n === 1 ? 'busy' : null,
})

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
}

for (const engine of ENGINES) {
  describe(`channels store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: ChannelsStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`channels: insert, read within the client only, list oldest first (ties by id), count ${engine.skipReason}`, async () => {
      await ready()
      await store.insertChannel(channel({ id: 'ch1', secrets_enc: 'sealed:abc' }))
      await store.insertChannel(channel({ id: 'ch0', created_at: T0, enabled: 0, min_severity: 'critical' }))
      await store.insertChannel(channel({ id: 'ch2', created_at: T0 - 5 }))
      await store.insertChannel(channel({ id: 'cx', client_id: 'c2' }))
      expect(await store.channel('c1', 'ch1')).toEqual(channel({ id: 'ch1', secrets_enc: 'sealed:abc' }))
      expect(await store.channel('c1', 'ch0')).toEqual(channel({ id: 'ch0', enabled: 0, min_severity: 'critical' }))
      expect(await store.channel('c2', 'ch1')).toBeNull()
      expect(await store.channel('c1', 'nope')).toBeNull()
      expect((await store.channels('c1')).map((c) => c.id)).toEqual(['ch2', 'ch0', 'ch1'])
      expect(await store.count('c1')).toBe(3)
      expect(await store.count('c2')).toBe(1)
      // these of the client's: another client's id and unknown ones are skipped, duplicates once
      expect((await store.channelsIn('c1', ['ch1', 'cx', 'zz', 'ch2', 'ch1'])).map((c) => c.id)).toEqual(['ch2', 'ch1'])
      expect(await store.channelsIn('c1', [])).toEqual([])
    })

    test.skipIf(skip)(`a change or a delete never reaches another client's channel ${engine.skipReason}`, async () => {
      await ready()
      const changed = channel({ id: 'ch1', name: 'renamed', config: '{}', secrets_enc: null, enabled: 0, min_severity: 'warning', updated_at: T0 + 9 })
      expect(await store.updateChannel(changed)).toBe(true)
      expect(await store.channel('c1', 'ch1')).toEqual(changed)
      expect(await store.updateChannel({ ...changed, client_id: 'c2', name: 'stolen' })).toBe(false)
      expect(await store.updateChannel({ ...changed, id: 'nope' })).toBe(false)
      expect((await store.channel('c1', 'ch1'))!.name).toBe('renamed')
      expect(await store.deleteChannel('c2', 'ch1')).toBe(false)
      expect(await store.deleteChannel('c1', 'ch0')).toBe(true)
      expect(await store.deleteChannel('c1', 'ch0')).toBe(false)
      expect(await store.channel('c1', 'ch0')).toBeNull()
    })

    test.skipIf(skip)(`deliveries are queued all or none; the next due time counts pending rows only ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.nextDueAt()).toBeNull()
      await store.addDeliveries([delivery({ id: 'd1', next_attempt_at: T0 + 50 }), delivery({ id: 'd2', next_attempt_at: T0 + 20, created_at: T0 + 1 })])
      // a duplicate id fails the whole batch: d3 is not written
      await expect(store.addDeliveries([delivery({ id: 'd3' }), delivery({ id: 'd1' })])).rejects.toThrow()
      expect(await store.deliveriesIn(['d3'])).toEqual([])
      // a test send: sending, with no due time
      await store.addDeliveries([delivery({ id: 't1', status: 'sending', next_attempt_at: null, created_at: T0 + 2 })])
      expect(await store.nextDueAt()).toBe(T0 + 20)
      const rows = (await store.deliveriesIn(['d1', 't1', 'gone'])).toSorted((a, b) => (a.id < b.id ? -1 : 1))
      expect(rows).toEqual([
        { ...delivery({ id: 'd1', next_attempt_at: T0 + 50 }), attempts: 0, finished_at: null },
        { ...delivery({ id: 't1', status: 'sending', next_attempt_at: null, created_at: T0 + 2 }), attempts: 0, finished_at: null },
      ])
      expect(await store.deliveriesIn([])).toEqual([])
    })

    test.skipIf(skip)(`a result is written only on the row still sending with the due time its claimer saw ${engine.skipReason}`, async () => {
      await ready()
      await handle.db.exec("UPDATE channel_deliveries SET status = 'sending' WHERE id = 'd2'")
      const result = { status: 'pending', attempts: 1, nextAttemptAt: T0 + 30_000, finishedAt: null }
      // another worker's lease (a different next_attempt_at), or a row not sending: nothing written
      expect(await store.settle('d2', T0 + 21, result, attempt('a0', 'd2', 1))).toBe(false)
      expect(await store.settle('d1', T0 + 50, result, attempt('a0', 'd1', 1))).toBe(false)
      expect(await store.settle('gone', T0, result, attempt('a0', 'gone', 1))).toBe(false)
      expect(await store.settle('d2', T0 + 20, result, attempt('a1', 'd2', 1))).toBe(true)
      // written once: the row is pending again, so the same claim cannot write twice
      expect(await store.settle('d2', T0 + 20, result, attempt('a9', 'd2', 1))).toBe(false)
      await handle.db.exec("UPDATE channel_deliveries SET status = 'sending' WHERE id = 'd2'")
      expect(await store.settle('d2', T0 + 30_000, { status: 'failed', attempts: 2, nextAttemptAt: null, finishedAt: T0 + 99 }, attempt('a2', 'd2', 2))).toBe(
        true,
      )
      // the test send (no due time) settles with null
      expect(await store.settle('t1', null, { status: 'delivered', attempts: 1, nextAttemptAt: null, finishedAt: T0 + 3 }, attempt('a3', 't1', 1))).toBe(true)
      const [d2] = await store.deliveriesIn(['d2'])
      expect(d2).toMatchObject({ status: 'failed', attempts: 2, next_attempt_at: null, finished_at: T0 + 99 })
    })

    test.skipIf(skip)(`the log: newest first, paged, filtered by status, with attempts in order; another client's is empty ${engine.skipReason}`, async () => {
      await ready()
      const page = await store.deliveries('c1', 'ch1', null, 10, 0)
      expect(page.items.map((d) => d.id)).toEqual(['t1', 'd2', 'd1'])
      expect(page.total).toBe(3)
      const { id: _, ...first } = attempt('a1', 'd2', 1)
      expect(page.attempts[0]).toEqual(first)
      expect(page.attempts.map((a) => [a.delivery_id, a.attempt, a.http_status, a.excerpt])).toEqual([
        ['d2', 1, 503, 'busy'],
        ['d2', 2, null, null],
        ['t1', 1, 503, 'busy'],
      ])
      const second = await store.deliveries('c1', 'ch1', null, 2, 1)
      expect([second.items.map((d) => d.id), second.total]).toEqual([['d2', 'd1'], 3])
      const failed = await store.deliveries('c1', 'ch1', 'failed', 10, 0)
      expect([failed.items.map((d) => d.id), failed.total]).toEqual([['d2'], 1])
      expect(await store.deliveries('c2', 'ch1', null, 10, 0)).toEqual({ items: [], attempts: [], total: 0 })
    })

    test.skipIf(skip)(`at a single hub's start: sending rows are queued again, a test send cut short is failed ${engine.skipReason}`, async () => {
      await ready()
      await store.addDeliveries([
        delivery({ id: 'd5', status: 'sending', next_attempt_at: T0 + 7 }),
        delivery({ id: 't2', status: 'sending', next_attempt_at: null }),
      ])
      expect(await store.unclaimAll(T0 + 100)).toBe(1)
      const rows = (await store.deliveriesIn(['d5', 't2'])).toSorted((a, b) => (a.id < b.id ? -1 : 1))
      expect(rows.map((r) => [r.id, r.status, r.finished_at])).toEqual([
        ['d5', 'pending', null],
        ['t2', 'failed', T0 + 100],
      ])
      // a channel deleted takes its deliveries and their attempts with it
      expect(await store.deleteChannel('c1', 'ch1')).toBe(true)
      expect(await store.deliveriesIn(['d1', 'd2', 'd5'])).toEqual([])
    })
  })
}
