import { describe, expect, test } from 'bun:test'
import {
  type DeviceDirectory,
  type PgDeviceDirectory,
  pgDeviceDirectory,
  SEEN_FLUSH_MS,
  sqliteDeviceDirectory,
} from '../../../src/modules/devices/devices.directory'
import { createDevicesStore, type DeviceRegistration, type DevicesStore, sqliteDevices } from '../../../src/modules/devices/devices.store'
import { createDevicesStorePg } from '../../../src/modules/devices/devices.store.pg'
import type { Timers } from '../../../src/lib/timers'
import { ENGINES, type EngineDb } from '../../helpers/engines'
import { linkedPeers } from '../../helpers/peer-links'

/**
 * The device directory (the other domains' synchronous reads) answers the same on SQLite (its
 * statements) and on PostgreSQL (this hub's copy); on PostgreSQL, hubs sharing the database keep
 * their copies current through the link, and the reports seen are written in batches.
 */
const T0 = 1_700_000_000_000
const facts = { hostname: 'web-1', os: 'linux', os_version: '6.8', arch: 'x86_64', mac_address: null }
const reg = (clientId: string, newId: string, now = T0): DeviceRegistration => ({
  clientId,
  boundTo: null,
  fingerprint: `fp-${newId}`,
  facts: { ...facts, hostname: `host-${newId}` },
  max: 10,
  newId,
  now,
})

/** timers that fire when the test says */
function manualTimers() {
  const due: { fn: () => void }[] = []
  const timers: Timers = {
    after(_ms, fn) {
      const entry = { fn }
      due.push(entry)
      return () => void due.splice(due.indexOf(entry), 1)
    },
  }
  return {
    timers,
    fire() {
      for (const e of due.splice(0)) e.fn()
    },
    pending: () => due.length,
  }
}

const storeOf = (db: EngineDb): DevicesStore => (db.sqlite ? createDevicesStore(sqliteDevices(db.sqlite)) : createDevicesStorePg(db.pg!))

async function seed(db: EngineDb, clients: string[]) {
  for (const c of clients) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
}

for (const engine of ENGINES) {
  describe(`device directory on ${engine.name}`, () => {
    const handle = engine.lifecycle()

    test.skipIf(engine.skip)(`answers each read within the client, oldest first, as the store wrote it ${engine.skipReason}`, async () => {
      const db = handle.db
      await seed(db, ['a1', 'a2', 'a3'])
      const store = storeOf(db)
      const made = [reg('a1', 'd2', T0 + 1), reg('a1', 'd1', T0 + 1), reg('a1', 'd0', T0), reg('a2', 'e1')]
      for (const r of made) await store.register(r)
      await store.change('a1', 'd1', { name: 'primary', tags: ['prod'] }, T0 + 5)
      let dir: DeviceDirectory
      if (db.sqlite) dir = sqliteDeviceDirectory(sqliteDevices(db.sqlite))
      else {
        const pg = pgDeviceDirectory({ sql: db.pg!, store, timers: manualTimers().timers })
        await pg.ready()
        dir = pg
      }

      expect(dir.listForClient('a1').map((r) => r.id)).toEqual(['d0', 'd1', 'd2'])
      expect(dir.byId('a1', 'd1')).toEqual((await store.byId('a1', 'd1'))!)
      expect(dir.byId('a1', 'd1')).toMatchObject({ name: 'primary', tags: '["prod"]', hostname: 'host-d1' })
      expect(dir.byId('a2', 'd1')).toBeNull()
      expect(dir.cachedRef('a2', 'd1')).toBeNull()
      expect(dir.byId('a1', 'nope')).toBeNull()
      const e1 = (await store.byId('a2', 'e1'))!
      expect(dir.cachedRef('a2', 'e1')).toEqual({ id: 'e1', clientId: 'a2', seq: e1.seq })
      expect(dir.cachedOnlyDevice('a2')).toEqual({ id: 'e1', clientId: 'a2', seq: e1.seq })
      expect(dir.cachedOnlyDevice('a1')).toBeNull()
      expect(dir.cachedOnlyDevice('a3')).toBeNull()
      expect(dir.listForClient('a3')).toEqual([])
      expect(dir.seqs()).toEqual(await store.seqs())
      expect(dir.labels('a1')).toEqual(await store.labels('a1'))
      expect(dir.labels(null)).toEqual(await store.labels(null))
      expect(dir.clientsWithDevices()).toEqual(['a1', 'a2'])

      // this hub's own change and delete are read at once
      const changed = (await store.change('a1', 'd0', { name: 'renamed' }, T0 + 9))!
      dir.changed(changed)
      expect(dir.byId('a1', 'd0')?.name).toBe('renamed')
      await store.remove('a2', 'e1', T0 + 10)
      dir.forget('a2', 'e1')
      expect(dir.byId('a2', 'e1')).toBeNull()
      expect(dir.cachedOnlyDevice('a2')).toBeNull()
      expect(dir.clientsWithDevices()).toEqual(['a1'])

      // a report seen is read back as the device's last report
      dir.markSeen(changed.seq, T0 + 20)
      expect(dir.byId('a1', 'd0')?.last_seen_at).toBe(T0 + 20)
      if (!db.sqlite) await (dir as PgDeviceDirectory).stop()
    })
  })
}

const pgEngine = ENGINES.find((e) => e.name === 'postgres')!

describe('device directories of two hubs on one PostgreSQL database', () => {
  const handle = pgEngine.lifecycle()

  test.skipIf(pgEngine.skip)(`a device made, renamed and deleted on one hub is seen so on the other ${pgEngine.skipReason}`, async () => {
    const sql = handle.db.pg!
    await seed(handle.db, ['h1'])
    const store = createDevicesStorePg(sql)
    const peers = linkedPeers(2)
    const [a, b] = peers.links.map((link) => pgDeviceDirectory({ sql, store, peers: link, timers: manualTimers().timers }))
    await Promise.all([a!.ready(), b!.ready()])

    await store.register(reg('h1', 'x1'))
    a!.changed((await store.byId('h1', 'x1'))!)
    expect(peers.sent.map((m) => [m.topic, m.key, m.body])).toEqual([['device.changed', 'h1', { id: 'x1' }]])
    await b!.idle()
    expect(b!.byId('h1', 'x1')?.hostname).toBe('host-x1')
    expect(b!.cachedOnlyDevice('h1')?.id).toBe('x1')

    a!.changed((await store.change('h1', 'x1', { name: 'db', tags: ['prod'] }, T0 + 1))!)
    await b!.idle()
    expect(b!.byId('h1', 'x1')?.name).toBe('db')
    expect(b!.byId('h1', 'x1')?.tags).toBe('["prod"]')

    await store.remove('h1', 'x1', T0 + 2)
    a!.forget('h1', 'x1')
    await b!.idle()
    expect(b!.byId('h1', 'x1')).toBeNull()
    expect(b!.clientsWithDevices()).toEqual([])
    await Promise.all([a!.stop(), b!.stop()])
  })

  test.skipIf(pgEngine.skip)(`messages missed: the hub reads every device again ${pgEngine.skipReason}`, async () => {
    const sql = handle.db.pg!
    await seed(handle.db, ['h2'])
    const store = createDevicesStorePg(sql)
    const peers = linkedPeers(2)
    const b = pgDeviceDirectory({ sql, store, peers: peers.links[1], timers: manualTimers().timers })
    await b.ready()
    // made on the other hub, whose message never arrived
    await store.register(reg('h2', 'm1'))
    expect(b.byId('h2', 'm1')).toBeNull()
    peers.miss(1, null)
    await b.ready()
    expect(b.byId('h2', 'm1')?.hostname).toBe('host-m1')
    await b.stop()
  })

  test.skipIf(pgEngine.skip)(`a start whose read failed (the database away) reads every device again at the next ingest ${pgEngine.skipReason}`, async () => {
    const sql = handle.db.pg!
    await seed(handle.db, ['h6'])
    const store = createDevicesStorePg(sql)
    await store.register(reg('h6', 'f1'))
    await store.register(reg('h6', 'f2'))
    let away = true
    const flaky = new Proxy(sql, {
      get(target, prop, receiver) {
        if (prop !== 'unsafe') return Reflect.get(target, prop, receiver)
        return (text: string, params: unknown[]) => (away ? Promise.reject(new Error('connection refused')) : target.unsafe(text, params))
      },
    })
    const errors: string[] = []
    const dir = pgDeviceDirectory({ sql: flaky, store, timers: manualTimers().timers, logger: { error: (msg) => void errors.push(msg) } })
    await dir.ready()
    expect(errors).toEqual(['device directory not read'])
    expect(dir.byId('h6', 'f1')).toBeNull()
    away = false
    await dir.known('h6', 'f1')
    expect(dir.listForClient('h6').map((r) => r.id)).toEqual(['f1', 'f2'])
    await dir.stop()
  })

  test.skipIf(pgEngine.skip)(`a device this hub has not heard of is read before it is refused ${pgEngine.skipReason}`, async () => {
    const sql = handle.db.pg!
    await seed(handle.db, ['h3', 'h4'])
    const store = createDevicesStorePg(sql)
    const b = pgDeviceDirectory({ sql, store, timers: manualTimers().timers })
    await b.ready()
    await store.register(reg('h3', 'k1'))
    expect(b.cachedRef('h3', 'k1')).toBeNull()
    await b.known('h4', 'k1') // another client's device stays unknown to this one
    expect(b.cachedRef('h4', 'k1')).toBeNull()
    await b.known('h3', 'k1')
    expect(b.cachedRef('h3', 'k1')?.id).toBe('k1')
    // the client's only device, when none is named
    await store.register(reg('h4', 'k2'))
    expect(b.cachedOnlyDevice('h4')).toBeNull()
    await b.known('h4', null)
    expect(b.cachedOnlyDevice('h4')?.id).toBe('k2')
    await b.stop()
  })

  test.skipIf(pgEngine.skip)(
    `reports seen are written every ${SEEN_FLUSH_MS / 1000} s in one statement, never moving last_seen_at back ${pgEngine.skipReason}`,
    async () => {
      const sql = handle.db.pg!
      await seed(handle.db, ['h5'])
      const store = createDevicesStorePg(sql)
      const clock = manualTimers()
      const dir = pgDeviceDirectory({ sql, store, timers: clock.timers })
      await dir.ready()
      for (const id of ['s1', 's2', 's3']) await store.register(reg('h5', id))
      await dir.known('h5', 's1')
      await dir.known('h5', 's2')
      await dir.known('h5', 's3')
      const seq = (id: string) => dir.byId('h5', id)!.seq
      // another hub wrote a newer report of s3 already
      await sql`UPDATE devices SET last_seen_at = ${T0 + 500} WHERE id = 's3'`
      for (let i = 0; i < 100; i++) dir.markSeen(seq('s1'), T0 + i)
      dir.markSeen(seq('s2'), T0 + 7)
      dir.markSeen(seq('s3'), T0 + 9)
      const stored = async () =>
        Object.fromEntries(
          (await sql`SELECT id, last_seen_at FROM devices WHERE client_id = 'h5' ORDER BY id`).map((r: { id: string; last_seen_at: string | null }) => [
            r.id,
            r.last_seen_at === null ? null : Number(r.last_seen_at),
          ]),
        )
      // nothing written per report: the hub's memory answers meanwhile
      expect(await stored()).toEqual({ s1: null, s2: null, s3: T0 + 500 })
      expect(dir.byId('h5', 's1')?.last_seen_at).toBe(T0 + 99)

      const statements: string[] = []
      const counting = new Proxy(sql, {
        get(target, prop, receiver) {
          if (prop !== 'unsafe') return Reflect.get(target, prop, receiver)
          return (text: string, params: unknown[]) => {
            statements.push(text)
            return target.unsafe(text, params)
          }
        },
      })
      const counted = pgDeviceDirectory({ sql: counting, store, timers: clock.timers })
      await counted.ready()
      statements.length = 0
      counted.markSeen(seq('s1'), T0 + 99)
      counted.markSeen(seq('s2'), T0 + 7)
      counted.markSeen(seq('s3'), T0 + 9)
      await counted.flush()
      expect(statements.length).toBe(1)
      expect(await stored()).toEqual({ s1: T0 + 99, s2: T0 + 7, s3: T0 + 500 })

      // the timer writes what the first directory saw, once per interval, and is set again
      await sql`UPDATE devices SET last_seen_at = NULL WHERE client_id = 'h5'`
      expect(clock.pending()).toBe(2)
      clock.fire()
      await Promise.all([dir.idle(), counted.idle()])
      expect(await stored()).toEqual({ s1: T0 + 99, s2: T0 + 7, s3: T0 + 9 })
      expect(clock.pending()).toBe(2)
      // a stop writes what was seen since
      dir.markSeen(seq('s2'), T0 + 50)
      await Promise.all([dir.stop(), counted.stop()])
      expect(clock.pending()).toBe(0)
      expect((await stored()).s2).toBe(T0 + 50)
    },
  )
})
