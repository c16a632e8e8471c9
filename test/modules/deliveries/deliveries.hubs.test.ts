import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import type { SQL } from 'bun'
import { openPostgres } from '../../../src/db/pg/connection'
import { migratePostgres } from '../../../src/db/pg/migrate'
import { manualClock } from '../../../src/lib/clock'
import { enqueueNotification } from '../../../src/modules/channels/channels.delivery'
import { createChannel } from '../../../src/modules/channels/channels.service'
import { pgDueClaims } from '../../../src/modules/deliveries/deliveries.due.pg'
import { PG_QUEUES } from '../../../src/modules/deliveries/deliveries.claim.pg'
import { createEndpoint } from '../../../src/modules/webhooks/webhooks.service'
import { testApp } from '../../helpers/app'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'
import { manualTimers } from '../../helpers/timers'
import { webhookReceiver } from '../../helpers/webhook-receiver'

/**
 * Both delivery workers on several hubs: whole apps (as `vigil serve` builds them) on one fresh
 * PostgreSQL database, each with its own connections, sending to a receiver on 127.0.0.1.
 */
const pg = postgresForTests()
let db: FreshDatabase
const open: SQL[] = []
const secretKey = new Uint8Array(randomBytes(32))
const clock = manualClock(Date.now())
beforeAll(async () => {
  if (!pg.url) return
  db = await pg.freshDatabase('vigil_hubs')
  const sql = openPostgres({ url: db.url, pool: 1 })
  await migratePostgres(sql, clock.now())
  await sql.close()
}, 60_000)
afterAll(async () => {
  for (const s of open) await s.close({ timeout: 0 })
  await db?.drop()
}, 60_000)

const receivers: ReturnType<typeof webhookReceiver>[] = []
const hubs: Hub[] = []
afterEach(async () => {
  for (const h of hubs.splice(0)) {
    await h.t.modules.webhookWorker.stop()
    await h.t.modules.channelsWorker.stop()
  }
  for (const r of receivers.splice(0)) r.stop()
})

interface Hub {
  t: ReturnType<typeof testApp>
  sql: SQL
  timers: ReturnType<typeof manualTimers>
}
/** one hub: the app on its own pool of connections to the shared database; loopback allowed as VIGIL_OUTBOUND_ALLOW_LOCAL does */
function hub(): Hub {
  const sql = openPostgres({ url: db.url, pool: 4 })
  open.push(sql)
  const timers = manualTimers()
  const t = testApp({ pg: sql, clock, timers: timers.timers, secretKey, config: { outbound: { allowPrivate: false, allowLocal: true } } })
  const h = { t, sql, timers }
  hubs.push(h)
  return h
}

function receiver() {
  const r = webhookReceiver()
  receivers.push(r)
  return r
}

/** the accounts, as the identity stores would have made them (they are not on PostgreSQL in this build) */
async function accounts(sql: SQL, ids: string[]) {
  for (const id of ids) await sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${id}, ${id}, 0, 0) ON CONFLICT DO NOTHING`
}

/** works every hub's queue until `done` says so: attempts end, timers (the rescans) fire, hubs claim again */
async function work(all: Hub[], worker: 'webhookWorker' | 'channelsWorker', done: () => Promise<boolean>) {
  for (let round = 0; round < 200 && !(await done()); round++) {
    for (const h of all) h.timers.fire()
    await Promise.all(all.map((h) => h.t.modules[worker].idle()))
  }
}

/** rows in `status`, of one account or (the file's database is shared by its tests) of all */
const count = async (sql: SQL, table: string, status: string, clientId: string | null = null) =>
  (
    (await sql.unsafe(`SELECT count(*)::int AS n FROM ${table} WHERE status = $1 AND ($2::text IS NULL OR client_id = $2)`, [status, clientId])) as {
      n: number
    }[]
  )[0]!.n

describe('deliveries across hubs', () => {
  test.skipIf(!pg.url)(`two hubs work one webhook outbox: 120 deliveries of three accounts, each sent once ${pg.skipReason}`, async () => {
    const r = receiver()
    const [a, b] = [hub(), hub()]
    await accounts(a.sql, ['acc_a', 'acc_b', 'acc_c'])
    const rows = []
    for (const client of ['acc_a', 'acc_b', 'acc_c']) {
      for (const e of [0, 1]) {
        const endpoint = await createEndpoint(a.t.modules.webhooks, client, { url: `${r.url}/${client}-${e}`, event_types: ['device.registered'] })
        for (let i = 0; i < 20; i++)
          rows.push({
            id: `whd_${client}_${e}_${i}`,
            client_id: client,
            endpoint_id: endpoint.id,
            message_id: `msg_${client}_${e}_${i}`,
            event_type: 'device.registered',
            payload: JSON.stringify({ n: i }),
            created_at: clock.now(),
          })
      }
    }
    await a.t.modules.webhooks.outbox.enqueue(rows)
    for (const h of [a, b]) {
      await h.t.modules.webhookWorker.start()
      h.t.modules.webhookWorker.wake()
    }
    await work([a, b], 'webhookWorker', async () => (await count(a.sql, 'webhook_deliveries', 'succeeded')) === 120)

    expect(await count(a.sql, 'webhook_deliveries', 'succeeded')).toBe(120)
    expect(r.requests.length).toBe(120)
    expect(new Set(r.requests.map((q) => q.id))).toEqual(new Set(rows.map((d) => d.message_id)))
    const attempts = (await a.sql`SELECT count(*)::int AS n, count(DISTINCT delivery_id)::int AS d FROM webhook_attempts`) as { n: number; d: number }[]
    expect(attempts[0]).toEqual({ n: 120, d: 120 })
  })

  test.skipIf(!pg.url)(`two hubs work one channel queue: 60 notices of two accounts, each sent once ${pg.skipReason}`, async () => {
    const r = receiver()
    const [a, b] = [hub(), hub()]
    await accounts(a.sql, ['acc_x', 'acc_y'])
    const ids: string[] = []
    for (const client of ['acc_x', 'acc_y']) {
      const channel = await createChannel(a.t.modules.channels, client, { name: 'hook', kind: 'webhook', config: { url: r.url } })
      for (let i = 0; i < 30; i++) {
        const notice = {
          event: 'firing' as const,
          severity: 'critical' as const,
          title: `${client} ${i}`,
          body: 'down',
          url: null,
          devices: [],
          rule: null,
          alert_ids: [],
          timestamp: new Date(clock.now()).toISOString(),
        }
        // queued on either hub: what one writes, any claims
        ids.push(...(await enqueueNotification((i % 2 ? a : b).t.modules.channels, client, [channel.id], notice)))
      }
    }
    for (const h of [a, b]) {
      await h.t.modules.channelsWorker.start()
      h.t.modules.channelsWorker.wake()
    }
    await work([a, b], 'channelsWorker', async () => (await count(a.sql, 'channel_deliveries', 'delivered')) === 60)

    expect(await count(a.sql, 'channel_deliveries', 'delivered')).toBe(60)
    expect(r.requests.length).toBe(60)
    const titles = r.requests.map((q) => (JSON.parse(q.body) as { title: string }).title)
    expect(new Set(titles).size).toBe(60)
    const attempts = (await a.sql`SELECT count(*)::int AS n, count(DISTINCT delivery_id)::int AS d FROM channel_attempts`) as { n: number; d: number }[]
    expect(attempts[0]).toEqual({ n: 60, d: 60 })
    expect(ids).toHaveLength(60)
  })

  test.skipIf(!pg.url)(
    `one account's receivers that never answer hold its share of the slots only: another account's delivery goes out at once ${pg.skipReason}`,
    async () => {
      let stalled = 0
      let release = () => {}
      const gate = new Promise<void>((resolve) => (release = resolve))
      const r = webhookReceiver(async (q) => {
        if (!q.id.startsWith('msg_slow')) return new Response('ok')
        stalled++
        // a tarpit: it answers only once the test has looked
        await gate
        return new Response('late')
      })
      receivers.push(r)
      const h = hub()
      await accounts(h.sql, ['acc_slow', 'acc_fast'])
      const slow = await createEndpoint(h.t.modules.webhooks, 'acc_slow', { url: `${r.url}/slow`, event_types: ['device.registered'] })
      const fast = await createEndpoint(h.t.modules.webhooks, 'acc_fast', { url: `${r.url}/fast`, event_types: ['device.registered'] })
      const row = (client: string, endpoint: string, id: string) => ({
        id: `whd_${id}`,
        client_id: client,
        endpoint_id: endpoint,
        message_id: `msg_${id}`,
        event_type: 'device.registered',
        payload: '{}',
        created_at: clock.now(),
      })
      await h.t.modules.webhooks.outbox.enqueue(Array.from({ length: 40 }, (_, i) => row('acc_slow', slow.id, `slow_${i}`)))
      await h.t.modules.webhookWorker.start()
      h.t.modules.webhookWorker.wake()
      while (stalled < 8) await new Promise((resolve) => setTimeout(resolve, 5))
      // the slow account's endpoint holds its 8 slots (the per-endpoint cap); the other account's row, queued after, goes out beside them
      await h.t.modules.webhooks.outbox.enqueue([row('acc_fast', fast.id, 'fast_0')])
      h.t.modules.webhookWorker.wake({ account: 'acc_fast', destinations: [fast.id] })
      for (let i = 0; i < 1000 && (await count(h.sql, 'webhook_deliveries', 'succeeded', 'acc_fast')) === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 5))
      expect(await count(h.sql, 'webhook_deliveries', 'succeeded', 'acc_fast')).toBe(1)
      expect(await count(h.sql, 'webhook_deliveries', 'sending', 'acc_slow')).toBe(8)
      expect(stalled).toBe(8)
      release()
    },
  )

  test.skipIf(!pg.url)(
    `a hub that stops mid-delivery hands its rows back at once: another hub sends them without waiting for the lease ${pg.skipReason}`,
    async () => {
      let hang = true
      let arrived = 0
      const r = webhookReceiver(async () => {
        arrived++
        // the first hub's attempts do not end before it stops
        while (hang) await new Promise((resolve) => setTimeout(resolve, 5))
        return new Response('ok')
      })
      receivers.push(r)
      const [first, second] = [hub(), hub()]
      await accounts(first.sql, ['acc_s'])
      const endpoint = await createEndpoint(first.t.modules.webhooks, 'acc_s', { url: r.url, event_types: ['device.registered'] })
      const rows = Array.from({ length: 4 }, (_, i) => ({
        id: `whd_stop_${i}`,
        client_id: 'acc_s',
        endpoint_id: endpoint.id,
        message_id: `msg_stop_${i}`,
        event_type: 'device.registered',
        payload: '{}',
        created_at: clock.now(),
      }))
      await first.t.modules.webhooks.outbox.enqueue(rows)
      await first.t.modules.webhookWorker.start()
      first.t.modules.webhookWorker.wake()
      while (arrived < 4) await new Promise((resolve) => setTimeout(resolve, 5))
      await first.t.modules.webhookWorker.stop()
      expect(await count(first.sql, 'webhook_deliveries', 'pending', 'acc_s')).toBe(4)
      hang = false
      await second.t.modules.webhookWorker.start()
      second.t.modules.webhookWorker.wake()
      await work([second], 'webhookWorker', async () => (await count(second.sql, 'webhook_deliveries', 'succeeded', 'acc_s')) === 4)
      expect(await count(second.sql, 'webhook_deliveries', 'succeeded', 'acc_s')).toBe(4)
    },
  )

  test.skipIf(!pg.url)(
    `a hub that dies holding deliveries leaves them to another once its lease is over; its late result is not written ${pg.skipReason}`,
    async () => {
      const r = receiver()
      const survivor = hub()
      await accounts(survivor.sql, ['acc_d'])
      const endpoint = await createEndpoint(survivor.t.modules.webhooks, 'acc_d', { url: r.url, event_types: ['device.registered'] })
      const rows = Array.from({ length: 5 }, (_, i) => ({
        id: `whd_dead_${i}`,
        client_id: 'acc_d',
        endpoint_id: endpoint.id,
        message_id: `msg_dead_${i}`,
        event_type: 'device.registered',
        payload: '{}',
        created_at: clock.now(),
      }))
      await survivor.t.modules.webhooks.outbox.enqueue(rows)
      // the hub that dies: it claims the five (with its lease) and is never heard of again
      const dead = pgDueClaims(survivor.sql, PG_QUEUES.webhooks)
      const { claimed } = await dead.claim({ now: clock.now(), limit: 10, caps: { perAccount: 16, perDestination: 8 }, after: null })
      expect(claimed).toHaveLength(5)

      await survivor.t.modules.webhookWorker.start()
      survivor.t.modules.webhookWorker.wake()
      await survivor.t.modules.webhookWorker.idle()
      expect(r.requests).toHaveLength(0) // leased to the other hub

      clock.advance(5 * 60_000 + 1)
      await work([survivor], 'webhookWorker', async () => (await count(survivor.sql, 'webhook_deliveries', 'succeeded', 'acc_d')) === 5)
      expect(r.requests.map((q) => q.id).toSorted()).toEqual(rows.map((d) => d.message_id))
      // the dead hub's result, arriving late under its old lease, writes nothing
      const late = await survivor.t.modules.webhooks.outbox.record(
        'whd_dead_0',
        claimed[0]!.leaseUntil,
        {
          status: 'failed',
          nextAttemptAt: clock.now(),
          attempt: {
            id: 'wha_late',
            delivery_id: 'whd_dead_0',
            attempt: 1,
            at: clock.now(),
            status_code: 500,
            duration_ms: 1,
            error: 'x',
            response_excerpt: null,
          },
        },
        'mark',
      )
      expect(late).toBeNull()
      expect((await survivor.t.modules.webhooks.outbox.byId('acc_d', 'whd_dead_0'))!.status).toBe('succeeded')
    },
  )
})
