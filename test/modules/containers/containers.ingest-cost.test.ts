import type { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { createContainersIngest, ENGINE_TIMES_EVERY_MS } from '../../../src/modules/containers/containers.ingest'
import { observedContainers } from '../../../src/modules/containers/containers.observe'
import { sqliteContainers } from '../../../src/modules/containers/containers.store'
import { testApp } from '../../helpers/app'
import { account, block, container } from './fixtures'

// Every collector sends a containers block with every sample, an empty one on a host without
// Docker: what such a block costs is paid on every ingest request.

const noEngine = block([], { engine: null, unavailable_reason: 'no Docker or Podman socket found' })

test("a containers block writes the device's last_seen_at at most once every 5 s, as the samples do", async () => {
  const t = testApp()
  const { collector, deviceId } = await account(t)
  const seen = () =>
    t.db.sqlite.query<{ at: number }, [string]>('SELECT s.at FROM devices d JOIN device_seen s ON s.seq = d.seq WHERE d.id = ?').get(deviceId)!.at
  const send = async () => expect((await t.request('POST', '/v1/metrics/batch', { body: { containers: noEngine }, headers: collector })).status).toBe(201)
  const t0 = t.clock.now()
  await send()
  expect(seen()).toBe(t0)
  t.clock.advance(1_000)
  await send()
  expect(seen()).toBe(t0)
  t.clock.advance(4_000)
  await send()
  expect(seen()).toBe(t0 + 5_000)
})

test('empty blocks that mark nothing gone share the group transaction without a savepoint each; blocks that list containers keep theirs', async () => {
  const t = testApp()
  const { deviceId } = await account(t)
  const seq = t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(deviceId)!.seq
  const store = sqliteContainers(t.db.sqlite)
  let transactions = 0
  const counted = {
    ...store,
    transaction: <T>(fn: () => T): T => {
      transactions++
      return store.transaction(fn)
    },
  }
  const ingest = createContainersIngest({ store: counted })
  const clientId = t.db.sqlite.query<{ c: string }, [string]>('SELECT client_id AS c FROM devices WHERE id = ?').get(deviceId)!.c
  const job = (ts: number, b: typeof noEngine) => ingest.submit({ clientId, deviceId, deviceSeq: seq, ts, sent: true, block: b })
  const now = t.clock.now()
  await Promise.all([job(now, noEngine), job(now + 1, noEngine), job(now + 2, block([]))])
  // the group's own transaction, and one savepoint for the block whose engine answered (it may mark containers gone)
  expect(transactions).toBe(2)
  transactions = 0
  await Promise.all([job(now + 3, block([container('web')])), job(now + 4, noEngine)])
  expect(transactions).toBe(2)
  expect(store.engine(deviceId)).toMatchObject({ ts: now + 4, kind: null, unavailable_reason: 'no Docker or Podman socket found' })
  expect(store.ofDevice(deviceId).map((c) => c.name)).toEqual(['web'])
})

test('a device without containers is observed as such without a query of its restarts', () => {
  const store = {
    restartsSince: () => {
      throw new Error('queried')
    },
  }
  expect(observedContainers(store, { clientId: 'cli_x', deviceId: 'dev_x', ts: 0, rows: [] })).toEqual({ containers: [] })
})

/** The containers' statements on `sqlite`, each counted as it runs (its first words), and the transactions begun. */
function counted(sqlite: Database) {
  const ran: string[] = []
  let transactions = 0
  const wrap = (sql: string, st: object) =>
    new Proxy(st, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target)
        if (typeof v !== 'function') return v
        if (prop !== 'run' && prop !== 'get' && prop !== 'all') return v.bind(target)
        return (...args: unknown[]) => {
          ran.push(sql.trim().split(/\s+/).slice(0, 2).join(' '))
          return v.apply(target, args)
        }
      },
    })
  const db = new Proxy(sqlite, {
    get(target, prop) {
      if (prop === 'query') return (sql: string) => wrap(sql, target.query(sql))
      if (prop === 'transaction')
        return (fn: () => unknown) => {
          const tx = target.transaction(fn)
          return () => {
            transactions++
            return tx()
          }
        }
      const v = Reflect.get(target, prop, target)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
  return { store: sqliteContainers(db), ran, transactions: () => transactions }
}

async function oneDevice() {
  const t = testApp()
  const { deviceId } = await account(t)
  const row = t.db.sqlite.query<{ seq: number; c: string }, [string]>('SELECT seq, client_id AS c FROM devices WHERE id = ?').get(deviceId)!
  const stored = () =>
    t.db.sqlite
      .query<{ ts: number; reason: string | null }, [string]>('SELECT ts, unavailable_reason AS reason FROM container_engines WHERE device_id = ?')
      .get(deviceId)
  return { t, deviceId, seq: row.seq, clientId: row.c, stored }
}

test('a host without Docker: its blocks after the first write nothing and take no transaction; the engine row reads as of the newest block, and the times are written every ENGINE_TIMES_EVERY_MS', async () => {
  const { t, deviceId, seq, clientId, stored } = await oneDevice()
  const c = counted(t.db.sqlite)
  const seen: number[] = []
  const applied: number[] = []
  const ingest = createContainersIngest({ store: c.store, clock: t.clock, seen: (s) => seen.push(s), applied: (a) => applied.push(a.ts) })
  const send = (ts: number, b: typeof noEngine, sent = true) => ingest.submit({ clientId, deviceId, deviceSeq: seq, ts, sent, block: b, withSamples: true })
  const t0 = t.clock.now()
  await send(t0, noEngine)
  expect(c.transactions()).toBe(1)
  expect(stored()).toEqual({ ts: t0, reason: noEngine.unavailable_reason })
  const ran = c.ran.length
  for (let i = 1; i <= 2; i++) {
    t.clock.advance(10_000)
    await send(t0 + i * 10_000, noEngine)
  }
  // stamped by the hub in the millisecond of the one before: still the newer block
  await send(t0 + 20_000, noEngine, false)
  expect(c.transactions()).toBe(1)
  expect(c.ran.length).toBe(ran)
  // what the device's page shows is the newest block's time; the table still holds the first
  expect(c.store.engine(deviceId)!.ts).toBe(t0 + 20_001)
  expect(stored()!.ts).toBe(t0)
  // the samples' writer marks the device seen: the blocks do not; each newer one is told to the alert rules
  expect(seen).toEqual([])
  expect(applied).toEqual([t0, t0 + 10_000, t0 + 20_000, t0 + 20_000])
  // a replay older than the newest changes nothing and is told to no rule
  await send(t0 + 5_000, noEngine)
  expect(c.store.engine(deviceId)!.ts).toBe(t0 + 20_001)
  expect(applied.length).toBe(4)
  // a block every 10 s until ENGINE_TIMES_EVERY_MS after the first write: only then is the held time written, in one transaction
  const due = t0 + ENGINE_TIMES_EVERY_MS
  for (let ts = t0 + 30_000; ts < due; ts += 10_000) {
    t.clock.set(ts)
    await send(ts, noEngine)
  }
  expect(c.transactions()).toBe(1)
  t.clock.set(due)
  await send(due, noEngine)
  await new Promise((r) => setImmediate(r))
  expect(c.transactions()).toBe(2)
  expect(stored()!.ts).toBe(due)
  expect(c.ran.slice(ran)).toEqual(['UPDATE container_engines'])
  // what a restart reads: the row as written
  expect(sqliteContainers(t.db.sqlite).engine(deviceId)!.ts).toBe(due)
})

test('a block that says something else of the engine, lists containers, or comes without samples is written at once', async () => {
  const { t, deviceId, seq, clientId, stored } = await oneDevice()
  const c = counted(t.db.sqlite)
  const seen: number[] = []
  const ingest = createContainersIngest({ store: c.store, clock: t.clock, seen: (s) => seen.push(s) })
  const send = (ts: number, b: typeof noEngine, withSamples = true) =>
    ingest.submit({ clientId, deviceId, deviceSeq: seq, ts, sent: true, block: b, withSamples })
  const t0 = t.clock.now()
  await send(t0, noEngine)
  const other = block([], { engine: null, unavailable_reason: 'permission denied on /var/run/docker.sock' })
  await send(t0 + 1_000, other)
  expect(stored()).toEqual({ ts: t0 + 1_000, reason: 'permission denied on /var/run/docker.sock' })
  // Docker comes up: its answer may mark containers gone, so the inventory is read and the row written
  await send(t0 + 2_000, block([]))
  expect(stored()).toEqual({ ts: t0 + 2_000, reason: null })
  await send(t0 + 3_000, block([container('web')]))
  expect(c.store.ofDevice(deviceId).map((r) => [r.name, r.state])).toEqual([['web', 'running']])
  // with a container, every block writes its figures (the group's transaction and the block's savepoint)
  const before = c.transactions()
  await send(t0 + 4_000, block([container('web', { cpu_percent: 50 })]))
  expect(c.transactions()).toBe(before + 2)
  expect(c.store.ofDevice(deviceId)[0]!.cpu_percent).toBe(50)
  // a batch of containers only is the device's sign of life: it is marked seen, in a transaction
  expect(seen).toEqual([])
  await send(t0 + 5_000, block([container('web')]), false)
  expect(seen).toEqual([seq])
  expect(c.transactions()).toBe(before + 4)
})

test('through the API: the engine shows the newest block of a host without Docker', async () => {
  const t = testApp()
  const { portal, collector, deviceId } = await account(t)
  const at = (ms: number) => new Date(ms).toISOString()
  const t0 = t.clock.now()
  for (let i = 0; i < 3; i++) {
    const r = await t.request('POST', '/v1/metrics/batch', {
      body: { recorded_at: at(t0 + i * 10_000), hardware: { cpu_percent: 5 }, containers: noEngine },
      headers: collector,
    })
    expect(r.status).toBe(201)
    t.clock.advance(10_000)
  }
  const list = await t.request('GET', `/v1/devices/${deviceId}/containers`, { headers: portal })
  expect(list.body.engine).toMatchObject({ kind: null, unavailable_reason: noEngine.unavailable_reason, recorded_at: at(t0 + 20_000) })
})

test('a device deleted is forgotten: its next block is a 404 as before', async () => {
  const t = testApp()
  const { portal, collector, deviceId } = await account(t)
  const send = () => t.request('POST', '/v1/metrics/batch', { body: { containers: noEngine }, headers: { ...collector, 'x-device-id': deviceId } })
  expect((await send()).status).toBe(201)
  expect((await send()).status).toBe(201)
  expect((await t.request('DELETE', `/v1/clients/me/devices/${deviceId}`, { headers: portal })).status).toBe(204)
  expect((await send()).status).toBe(404)
})
