import { describe, expect, test } from 'bun:test'
import { type AttemptOutcome, createOutboxStore, type NewDelivery, type OutboxStore } from '../../../src/modules/webhooks/webhooks.outbox'
import { createOutboxStorePg } from '../../../src/modules/webhooks/webhooks.outbox.pg'
import { createEndpointsStore, type EndpointRow, type EndpointsStore } from '../../../src/modules/webhooks/webhooks.store'
import { createEndpointsStorePg } from '../../../src/modules/webhooks/webhooks.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The webhook endpoints and outbox stores answer the same on SQLite and on PostgreSQL. */
const storesOf = (db: EngineDb): { endpoints: EndpointsStore; outbox: OutboxStore } =>
  db.sqlite
    ? { endpoints: createEndpointsStore(db.sqlite), outbox: createOutboxStore(db.sqlite) }
    : { endpoints: createEndpointsStorePg(db.pg!), outbox: createOutboxStorePg(db.pg!) }

const T0 = 1_700_000_000_000
const endpoint = (over: Partial<EndpointRow> & Pick<EndpointRow, 'id'>): EndpointRow => ({
  client_id: 'c1',
  url: 'https://hooks.example.com/in',
  description: '',
  event_types: '["device.registered","alert.firing"]',
  enabled: 1,
  disabled_reason: null,
  disabled_at: null,
  secret_enc: 'sealed:current',
  previous_secret_enc: null,
  previous_expires_at: null,
  failing_since: null,
  created_at: T0,
  updated_at: T0,
  ...over,
})
const row = (over: Partial<NewDelivery> & Pick<NewDelivery, 'id'>): NewDelivery => ({
  client_id: 'c1',
  endpoint_id: 'e1',
  message_id: `msg_${over.id}`,
  event_type: 'device.registered',
  payload: '{"type":"device.registered"}',
  created_at: T0,
  ...over,
})
const outcome = (id: string, status: AttemptOutcome['status'], at: number, attempt = 1): AttemptOutcome => ({
  status,
  nextAttemptAt: status === 'pending' ? at + 5000 : at,
  attempt: {
    id,
    delivery_id: '',
    attempt,
    at,
    status_code: status === 'succeeded' ? 200 : 503,
    duration_ms: 7,
    error: status === 'succeeded' ? null : 'HTTP 503',
    response_excerpt: 'ok',
  },
})

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
}

for (const engine of ENGINES) {
  describe(`webhook stores on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let s: { endpoints: EndpointsStore; outbox: OutboxStore }
    let seeded = false
    const ready = async () => {
      s = storesOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }
    const status = async (id: string) => (await s.outbox.byId('c1', id))?.status

    test.skipIf(skip)(`endpoints: insert, read within the client only, oldest first, count; changes only the client's own ${engine.skipReason}`, async () => {
      await ready()
      await s.endpoints.insert(endpoint({ id: 'e1' }))
      await s.endpoints.insert(endpoint({ id: 'e0', created_at: T0, event_types: '["alert.firing"]' }))
      await s.endpoints.insert(endpoint({ id: 'ex', client_id: 'c2' }))
      expect(await s.endpoints.byId('c1', 'e1')).toEqual(endpoint({ id: 'e1' }))
      expect(await s.endpoints.byId('c2', 'e1')).toBeNull()
      expect((await s.endpoints.list('c1')).map((e) => e.id)).toEqual(['e0', 'e1'])
      expect([await s.endpoints.count('c1'), await s.endpoints.count('c2')]).toEqual([2, 1])
      const changes = { url: 'https://hooks.example.com/v2', previous_secret_enc: 'sealed:old', previous_expires_at: T0 + 9, updated_at: T0 + 1 }
      expect(await s.endpoints.update('c1', 'e1', changes)).toBe(true)
      expect(await s.endpoints.byId('c1', 'e1')).toEqual(endpoint({ id: 'e1', ...changes }))
      expect(await s.endpoints.update('c2', 'e1', { url: 'https://evil.example.com' })).toBe(false)
      expect(await s.endpoints.update('c1', 'nope', { url: 'https://evil.example.com' })).toBe(false)
      expect(await s.endpoints.update('c1', 'e1', {})).toBe(true)
      expect((await s.endpoints.byId('c1', 'e1'))!.url).toBe('https://hooks.example.com/v2')
    })

    test.skipIf(skip)(`an event is written for the client's enabled endpoints subscribed to its type, all in one go ${engine.skipReason}`, async () => {
      await ready()
      const made: string[][] = []
      const rowsFor = (ids: string[]) => {
        made.push(ids)
        return ids.map((e, i) => row({ id: `reg${i}`, endpoint_id: e, created_at: T0 + 1 }))
      }
      expect(await s.outbox.enqueueEvent('c1', 'device.registered', rowsFor)).toEqual(['e1'])
      expect(await s.outbox.enqueueEvent('c1', 'alert.firing', (ids) => ids.map((e) => row({ id: `fire_${e}`, endpoint_id: e, created_at: T0 + 2 })))).toEqual([
        'e0',
        'e1',
      ])
      // nobody subscribed: nothing asked of rowsFor, nothing written
      expect(await s.outbox.enqueueEvent('c1', 'device.deleted', rowsFor)).toEqual([])
      expect(await s.outbox.enqueueEvent('c2', 'alert.resolved', rowsFor)).toEqual([])
      expect(made).toEqual([['e1']])
      expect(await s.outbox.byId('c1', 'reg0')).toMatchObject({ endpoint_id: 'e1', status: 'pending', attempts: 0, next_attempt_at: T0 + 1 })
      expect(await s.outbox.byId('c2', 'reg0')).toBeNull()
      expect(await s.outbox.nextDueAt()).toBe(T0 + 1)
      // a batch with a duplicate id is refused whole
      await expect(s.outbox.enqueue([row({ id: 'new1' }), row({ id: 'reg0' })])).rejects.toThrow()
      expect(await s.outbox.byId('c1', 'new1')).toBeNull()
    })

    test.skipIf(skip)(`disabling holds the endpoint's pending rows, once; enabling resumes them by now at the latest ${engine.skipReason}`, async () => {
      await ready()
      expect(await s.endpoints.disable('c2', 'e0', 'manual', T0 + 3)).toBeNull()
      const before = await s.endpoints.byId('c1', 'e0')
      expect(await s.endpoints.disable('c1', 'e0', 'gone', T0 + 3)).toEqual(before)
      // already off: nothing written, nothing returned (another hub's verdict came first)
      expect(await s.endpoints.disable('c1', 'e0', 'failing', T0 + 4)).toBeNull()
      expect(await s.endpoints.byId('c1', 'e0')).toMatchObject({ enabled: 0, disabled_reason: 'gone', disabled_at: T0 + 3, updated_at: T0 + 3 })
      expect(await status('fire_e0')).toBe('held')
      expect(await status('fire_e1')).toBe('pending')
      // a disabled endpoint gets no new events
      expect(await s.outbox.enqueueEvent('c1', 'alert.firing', (ids) => ids.map((e) => row({ id: `fire2_${e}`, endpoint_id: e })))).toEqual(['e1'])
      expect(await s.endpoints.enable('c2', 'e0', T0)).toBe(false)
      await handle.db.exec('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?', [T0, 'e0'])
      expect(await s.endpoints.enable('c1', 'e0', T0 + 1)).toBe(true)
      expect(await s.endpoints.enable('c1', 'e0', T0 + 1)).toBe(false)
      expect(await s.endpoints.byId('c1', 'e0')).toMatchObject({ enabled: 1, disabled_reason: null, disabled_at: null, failing_since: null })
      expect(await s.outbox.byId('c1', 'fire_e0')).toMatchObject({ status: 'pending', next_attempt_at: T0 + 1 })
    })

    test.skipIf(skip)(`two hubs disabling one endpoint at once: one of them does it (and would tell the owners) ${engine.skipReason}`, async () => {
      await ready()
      await s.endpoints.insert(endpoint({ id: 'race', event_types: '["device.deleted"]' }))
      const other = storesOf(handle.db)
      const verdicts = await Promise.all([s.endpoints.disable('c1', 'race', 'failing', T0 + 5), other.endpoints.disable('c1', 'race', 'gone', T0 + 6)])
      expect(verdicts.filter((v) => v !== null)).toHaveLength(1)
      expect((await s.endpoints.byId('c1', 'race'))!.enabled).toBe(0)
      expect(await s.endpoints.remove('c1', 'race')).toBe(true)
    })

    test.skipIf(skip)(`a claimed row's result is written once, by the worker holding it, with the endpoint's failure record ${engine.skipReason}`, async () => {
      await ready()
      await handle.db.exec("UPDATE webhook_deliveries SET status = 'sending' WHERE id = ?", ['reg0'])
      const [claimed] = await s.outbox.claimedIn(['reg0', 'gone'])
      expect(claimed).toEqual({
        id: 'reg0',
        client_id: 'c1',
        endpoint_id: 'e1',
        message_id: 'msg_reg0',
        payload: '{"type":"device.registered"}',
        attempts: 0,
        schedule_from: 0,
        next_attempt_at: T0 + 1,
        url: 'https://hooks.example.com/v2',
        secret_enc: 'sealed:current',
        previous_secret_enc: 'sealed:old',
        previous_expires_at: T0 + 9,
        failing_since: null,
      })
      // another lease, a row not sending, a row gone: nothing written
      expect(await s.outbox.record('reg0', T0 + 2, outcome('w0', 'pending', T0 + 10), 'mark')).toBeNull()
      expect(await s.outbox.record('fire_e1', T0 + 2, outcome('w0', 'pending', T0 + 10), 'mark')).toBeNull()
      expect(await s.outbox.record('gone', T0, outcome('w0', 'pending', T0 + 10), 'mark')).toBeNull()
      expect(await s.outbox.record('reg0', T0 + 1, outcome('w1', 'pending', T0 + 10), 'mark')).toEqual({ failingSince: T0 + 10 })
      expect(await s.outbox.record('reg0', T0 + 1, outcome('w2', 'pending', T0 + 11), 'mark')).toBeNull()
      expect(await s.outbox.byId('c1', 'reg0')).toMatchObject({
        status: 'pending',
        attempts: 1,
        next_attempt_at: T0 + 5010,
        last_attempt_at: T0 + 10,
        last_status_code: 503,
        last_error: 'HTTP 503',
        delivered_at: null,
      })
      // a later failure keeps when the failures began
      await handle.db.exec("UPDATE webhook_deliveries SET status = 'sending' WHERE id = ?", ['reg0'])
      expect(await s.outbox.record('reg0', T0 + 5010, outcome('w3', 'pending', T0 + 20, 2), 'mark')).toEqual({ failingSince: T0 + 10 })
      // the endpoint disabled while an attempt was in flight: its retry is held
      await s.endpoints.disable('c1', 'e1', 'manual', T0 + 21)
      await handle.db.exec("UPDATE webhook_deliveries SET status = 'sending' WHERE id = ?", ['reg0'])
      expect(await s.outbox.record('reg0', T0 + 5020, outcome('w4', 'pending', T0 + 30, 3), 'mark')).toEqual({ failingSince: T0 + 10 })
      expect(await status('reg0')).toBe('held')
      await s.endpoints.enable('c1', 'e1', T0 + 40)
      // a success clears the failure record (enabling cleared it already: set it again to see it go)
      await handle.db.exec('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?', [T0 + 10, 'e1'])
      await handle.db.exec("UPDATE webhook_deliveries SET status = 'sending' WHERE id = ?", ['reg0'])
      const held = (await s.outbox.byId('c1', 'reg0'))!.next_attempt_at
      expect(await s.outbox.record('reg0', held, outcome('w5', 'succeeded', T0 + 50, 4), 'clear')).toEqual({ failingSince: null })
      expect(await s.outbox.byId('c1', 'reg0')).toMatchObject({ status: 'succeeded', attempts: 4, delivered_at: T0 + 50 })
      expect((await s.endpoints.byId('c1', 'e1'))!.failing_since).toBeNull()
      expect((await s.outbox.attempts('c1', 'reg0')).map((a) => [a.id, a.attempt, a.status_code])).toEqual([
        ['w1', 1, 503],
        ['w3', 2, 503],
        ['w4', 3, 503],
        ['w5', 4, 200],
      ])
      expect(await s.outbox.attempts('c2', 'reg0')).toEqual([])
    })

    test.skipIf(skip)(
      `the log pages newest first by endpoint and status; resend restarts the schedule; prune keeps the unfinished ${engine.skipReason}`,
      async () => {
        await ready()
        const all = await s.outbox.page('c1', {}, 10, 0)
        expect(all.items.map((d) => d.id)).toEqual(['fire_e1', 'fire_e0', 'reg0', 'fire2_e1'])
        expect(all.total).toBe(4)
        const byEndpoint = await s.outbox.page('c1', { endpointId: 'e1' }, 1, 1)
        expect([byEndpoint.items.map((d) => d.id), byEndpoint.total]).toEqual([['reg0'], 3])
        const done = await s.outbox.page('c1', { status: 'succeeded' }, 10, 0)
        expect([done.items.map((d) => d.id), done.total]).toEqual([['reg0'], 1])
        expect(await s.outbox.page('c2', {}, 10, 0)).toEqual({ items: [], total: 0 })
        expect(await s.outbox.resend('c2', 'reg0', T0 + 60)).toBeNull()
        expect(await s.outbox.resend('c1', 'reg0', T0 + 60)).toMatchObject({ id: 'reg0', status: 'pending', next_attempt_at: T0 + 60, schedule_from: 4 })
        await handle.db.exec("UPDATE webhook_deliveries SET status = 'sending' WHERE id = ?", ['fire_e1'])
        expect(await s.outbox.resend('c1', 'fire_e1', T0 + 60)).toBeNull()
        // at a single hub's start, what it was sending is pending again
        await s.outbox.releaseClaims()
        expect(await status('fire_e1')).toBe('pending')
        await handle.db.exec("UPDATE webhook_deliveries SET status = 'failed' WHERE id IN ('fire_e1', 'fire2_e1')")
        await handle.db.exec("UPDATE webhook_deliveries SET created_at = ? WHERE id = 'fire2_e1'", [T0 + 100])
        expect(await s.outbox.prune(T0 + 50)).toBe(1)
        expect((await s.outbox.page('c1', {}, 10, 0)).items.map((d) => d.id)).toEqual(['fire2_e1', 'fire_e0', 'reg0'])
        // an endpoint removed takes its deliveries along; another client's cannot be removed
        expect(await s.endpoints.remove('c2', 'e1')).toBe(false)
        expect(await s.endpoints.remove('c1', 'e1')).toBe(true)
        expect(await s.endpoints.remove('c1', 'e1')).toBe(false)
        expect((await s.outbox.page('c1', {}, 10, 0)).items.map((d) => d.id)).toEqual(['fire_e0'])
      },
    )
  })
}
