import { expect, test } from 'bun:test'
import { createContainersIngest } from '../../../src/modules/containers/containers.ingest'
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

test("a device's empty blocks after the first read nothing; a block that lists containers is read and stored as before", async () => {
  const t = testApp()
  const { deviceId } = await account(t)
  const seq = t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(deviceId)!.seq
  const clientId = t.db.sqlite.query<{ c: string }, [string]>('SELECT client_id AS c FROM devices WHERE id = ?').get(deviceId)!.c
  const store = sqliteContainers(t.db.sqlite)
  const reads: string[] = []
  const counted = {
    ...store,
    engine: (id: string) => {
      reads.push('engine')
      return store.engine(id)
    },
    ofDevice: (id: string) => {
      reads.push('ofDevice')
      return store.ofDevice(id)
    },
  }
  const applied: number[] = []
  const ingest = createContainersIngest({ store: counted, applied: (a) => applied.push(a.rows.length) })
  const send = (ts: number, b: typeof noEngine, sent = true) => ingest.submit({ clientId, deviceId, deviceSeq: seq, ts, sent, block: b })
  const now = t.clock.now()
  await send(now, noEngine)
  expect(reads).toEqual(['engine', 'ofDevice'])
  await send(now + 10_000, noEngine)
  // stamped by the hub in the millisecond of the one before: still the newer block
  await send(now + 10_000, noEngine, false)
  expect(reads).toEqual(['engine', 'ofDevice'])
  expect(store.engine(deviceId)!.ts).toBe(now + 10_001)
  // Docker comes up: the block is read against the stored rows, and the container is kept
  await send(now + 20_000, block([container('web')]))
  expect(reads.length).toBe(4)
  await send(now + 30_000, noEngine)
  await send(now + 40_000, noEngine)
  expect(reads.length).toBe(8) // the device has a container now: each block reads what it has
  expect(store.ofDevice(deviceId).map((c) => [c.name, c.state])).toEqual([['web', 'running']])
  expect(applied).toEqual([0, 0, 0, 1, 1, 1])
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
