import { describe, expect, test } from 'bun:test'
import { AppError } from '../../../src/http/errors'
import { manualClock } from '../../../src/lib/clock'
import { type ContainersIngest, createContainersIngest } from '../../../src/modules/containers/containers.ingest'
import { createContainersIngestPg } from '../../../src/modules/containers/containers.ingest.pg'
import { type ContainerRollups, createContainerRollups } from '../../../src/modules/containers/containers.jobs'
import { unpack } from '../../../src/modules/containers/containers.pack'
import { createContainerRollupsPg } from '../../../src/modules/containers/containers.rollup.pg'
import { type ContainersStore, createContainersStore, sqliteContainers } from '../../../src/modules/containers/containers.store'
import { createContainersStorePg } from '../../../src/modules/containers/containers.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'
import { block, container } from './fixtures'

/** The containers' store, ingest and rollups answer the same on SQLite and on PostgreSQL. */
const T0 = Date.parse('2026-11-27T10:00:00Z')
const MIN = 60_000

interface Hub {
  store: ContainersStore
  ingest: ContainersIngest
  rollups: ContainerRollups
}

/** one hub's containers on the engine; on PostgreSQL two of them are two hubs on one database */
function hubOf(db: EngineDb, clock: { now(): number }): Hub {
  if (db.sqlite) {
    const sync = sqliteContainers(db.sqlite)
    return { store: createContainersStore(sync), ingest: createContainersIngest({ store: sync }), rollups: createContainerRollups({ store: sync, clock }) }
  }
  const sql = db.pg!
  return { store: createContainersStorePg(sql), ingest: createContainersIngestPg({ sql }), rollups: createContainerRollupsPg({ sql, clock }) }
}

const DEVICES = [
  ['d1', 'c1', 11],
  ['d2', 'c1', 12],
  ['d9', 'c2', 19],
] as const

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
  for (const [id, c, seq] of DEVICES)
    await db.exec("INSERT INTO devices (id, client_id, fingerprint, hostname, created_at, updated_at, seq, tags) VALUES (?, ?, ?, ?, 1, 1, ?, '[]')", [
      id,
      c,
      `fp-${id}`,
      `host-${id}`,
      seq,
    ])
}

const send = (hub: Hub, deviceId: string, ts: number, b: ReturnType<typeof block>, sent = true) => {
  const [, clientId, deviceSeq] = DEVICES.find((d) => d[0] === deviceId)!
  return hub.ingest.submit({ clientId, deviceId, deviceSeq, ts, sent, block: b })
}

/** a series row as names and figures, whatever seqs each engine gave */
async function seriesOf(hub: Hub, deviceSeq: number, level: number, from: number, to: number) {
  const names = new Map<number, string>()
  for (const d of DEVICES)
    if (d[2] === deviceSeq) for (const r of (await hub.store.fleet(d[1], { deviceId: d[0] }, 'name', 100, 0)).rows) names.set(r.seq, r.name)
  return (await hub.store.series(deviceSeq, level, from, to)).map((r) => ({
    ts: r.ts,
    entries: unpack(r.data)
      .map((e) => ({ name: names.get(e.seq), values: e.values }))
      .sort((a, b) => (a.name! < b.name! ? -1 : 1)),
  }))
}

for (const engine of ENGINES) {
  describe(`containers store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    const clock = manualClock(T0)
    let hub: Hub
    let seeded = false
    const ready = async () => {
      hub = hubOf(handle.db, clock)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`a block makes the engine row, the inventory with its history, and a series row ${engine.skipReason}`, async () => {
      await ready()
      await send(hub, 'd1', T0, block([container('web'), container('db', { health: 'healthy' }), container('Cache_1', { image: 'redis:7' })]))
      expect(await hub.store.engine('d1')).toEqual({
        device_id: 'd1',
        client_id: 'c1',
        kind: 'docker',
        version: '27.3.1',
        api_version: '1.47',
        unavailable_reason: null,
        memory_accounting: 1,
        ts: T0,
      })
      expect(await hub.store.engine('d2')).toBeNull()
      const { rows, total } = await hub.store.fleet('c1', {}, 'name', 10, 0)
      expect(total).toBe(3)
      expect(rows.map((r) => r.name)).toEqual(['Cache_1', 'db', 'web'])
      const web = rows.find((r) => r.name === 'web')!
      expect(web).toMatchObject({
        client_id: 'c1',
        device_id: 'd1',
        device_name: 'host-d1',
        memory_accounting: 1,
        state: 'running',
        health: 'none',
        exit_code: null,
        oom_killed: 0,
        restart_count: 0,
        cpu_percent: 12.5,
        memory_used_bytes: 50 * 1024 * 1024,
        pids: 7,
        attention: 0,
        first_seen_at: T0,
        last_seen_at: T0,
        gone_at: null,
        gone_running: 0,
        labels: '{}',
      })
      expect(await hub.store.byId('c1', 'd1', web.id)).toEqual({ ...web, device_name: undefined, memory_accounting: undefined } as never)
      expect(await hub.store.byId('c2', 'd1', web.id)).toBeNull()
      expect(await hub.store.events(web.seq, 10, 0)).toEqual([
        { ts: T0, kind: 'started', exit_code: null, restart_count: null, engine_id: 'web-id-1' },
        { ts: T0, kind: 'created', exit_code: null, restart_count: null, engine_id: 'web-id-1' },
      ])
      expect(await hub.store.counts('c1')).toEqual({ containers: 3, running: 3, attention: 0 })
      expect(await hub.store.counts('c2')).toEqual({ containers: 0, running: 0, attention: 0 })
      expect((await seriesOf(hub, 11, 0, T0, T0 + 1))[0]!.entries.map((e) => e.name)).toEqual(['Cache_1', 'db', 'web'])
    })

    test.skipIf(skip)(
      `a newer block moves states, counts restarts and marks the absent gone; a replay only fills the series ${engine.skipReason}`,
      async () => {
        await ready()
        await send(
          hub,
          'd1',
          T0 + 10_000,
          block([
            container('web', { restart_count: 2, cpu_percent: 80 }),
            container('db', { state: 'exited', exit_code: 137, health: 'unhealthy', cpu_percent: null, pids: null }),
          ]),
        )
        const rows = (await hub.store.fleet('c1', {}, 'name', 10, 0)).rows
        expect(rows.map((r) => [r.name, r.state, r.attention, r.gone_running])).toEqual([
          ['Cache_1', 'gone', 0, 1],
          ['db', 'exited', 1, 0],
          ['web', 'running', 0, 0],
        ])
        const web = rows.find((r) => r.name === 'web')!
        const db = rows.find((r) => r.name === 'db')!
        expect(db).toMatchObject({ exit_code: 137, cpu_percent: null, pids: null, health: 'unhealthy' })
        expect(rows.find((r) => r.name === 'Cache_1')).toMatchObject({ gone_at: T0 + 10_000, cpu_percent: null })
        expect((await hub.store.events(web.seq, 10, 0)).map((e) => [e.ts, e.kind, e.restart_count])).toEqual([
          [T0 + 10_000, 'restarted', 2],
          [T0, 'started', null],
          [T0, 'created', null],
        ])
        expect(await hub.store.events(web.seq, 1, 2)).toEqual([{ ts: T0, kind: 'created', exit_code: null, restart_count: null, engine_id: 'web-id-1' }])
        expect(await hub.store.eventCount(web.seq)).toBe(3)
        expect((await hub.store.restartsSince('d1', T0)).get(web.seq)).toBe(1)
        expect((await hub.store.restartsSince('d1', T0 + 10_000)).size).toBe(0)
        expect(await hub.store.counts('c1')).toEqual({ containers: 3, running: 1, attention: 1 })
        // an older block (a replay): the series gets its row, the inventory stays as the newest said
        await send(hub, 'd1', T0 + 5_000, block([container('web', { state: 'exited', cpu_percent: 1 })]))
        expect((await hub.store.byId('c1', 'd1', web.id))!.state).toBe('running')
        expect((await seriesOf(hub, 11, 0, T0, T0 + MIN)).map((s) => [s.ts, s.entries.map((e) => e.name)])).toEqual([
          [T0, ['Cache_1', 'db', 'web']],
          [T0 + 5_000, ['web']],
          [T0 + 10_000, ['db', 'web']],
        ])
        // the same block again writes no second row
        await send(hub, 'd1', T0 + 5_000, block([container('web', { state: 'exited', cpu_percent: 1 })]))
        expect((await hub.store.series(11, 0, T0, T0 + MIN)).length).toBe(3)
      },
    )

    test.skipIf(skip)(`the fleet list filters, orders and pages within the account; present reads the scrape's rows ${engine.skipReason}`, async () => {
      await ready()
      await send(hub, 'd2', T0 + 20_000, block([container('api', { cpu_percent: 3 }), container('web_2', { cpu_percent: null, image: 'Example/WEB:2' })]))
      await send(hub, 'd9', T0 + 20_000, block([container('web', { cpu_percent: 99 })]))
      const names = async (f: Parameters<ContainersStore['fleet']>[1], sort = 'name', limit = 10, offset = 0) => {
        const page = await hub.store.fleet('c1', f, sort, limit, offset)
        return [page.rows.map((r) => `${r.device_id}/${r.name}`), page.total]
      }
      expect(await names({})).toEqual([['d1/Cache_1', 'd2/api', 'd1/db', 'd1/web', 'd2/web_2'], 5])
      expect(await names({}, 'attention')).toEqual([['d1/db', 'd1/Cache_1', 'd1/web', 'd2/api', 'd2/web_2'], 5])
      expect(await names({}, '-cpu')).toEqual([['d1/web', 'd2/api', 'd1/db', 'd1/Cache_1', 'd2/web_2'], 5])
      expect(await names({}, 'device', 2, 1)).toEqual([['d1/db', 'd1/web'], 5])
      expect(await names({ state: 'running' })).toEqual([['d2/api', 'd1/web', 'd2/web_2'], 3])
      expect(await names({ health: 'unhealthy' })).toEqual([['d1/db'], 1])
      expect(await names({ deviceId: 'd2' })).toEqual([['d2/api', 'd2/web_2'], 2])
      expect(await names({ attention: true })).toEqual([['d1/db'], 1])
      // LIKE: `_` is a letter, not a wildcard; ASCII case does not matter
      expect(await names({ name: 'b_' })).toEqual([['d2/web_2'], 1])
      expect(await names({ image: 'example/web' })).toEqual([['d1/web', 'd2/web_2'], 2])
      expect(await names({ name: 'zzz' })).toEqual([[], 0])
      expect((await hub.store.fleet('c2', {}, 'name', 10, 0)).rows.map((r) => r.name)).toEqual(['web'])
      const present = async (c: string | null, since: number) => (await hub.store.present(c, since)).map((r) => `${r.device_id}/${r.name}`).sort()
      expect(await present('c1', 0)).toEqual(['d1/db', 'd1/web', 'd2/api', 'd2/web_2'])
      expect(await present('c1', T0 + 15_000)).toEqual(['d2/api', 'd2/web_2'])
      expect(await present(null, T0 + 15_000)).toEqual(['d2/api', 'd2/web_2', 'd9/web'])
    })

    test.skipIf(skip)(`the rollups make a minute once it is over, again after a late block into it, and the hour after ${engine.skipReason}`, async () => {
      await ready()
      clock.set(T0 + MIN + 31_000)
      expect(await hub.rollups.run()).toBeGreaterThan(0)
      const minute = await seriesOf(hub, 11, 1, T0, T0 + MIN)
      expect(minute.map((m) => m.ts)).toEqual([T0])
      const web = (m: typeof minute) => m[0]!.entries.find((e) => e.name === 'web')!.values
      // cpu over the raw rows of the minute: 12.5, 1 (the replay) and 80, packed as 32-bit floats
      expect(web(minute)[0]).toBeCloseTo((12.5 + 1 + 80) / 3, 5)
      expect(await hub.rollups.run()).toBe(0) // nothing new
      await send(hub, 'd1', T0 + 30_000, block([container('web', { cpu_percent: 0 })]))
      expect(await hub.rollups.run()).toBeGreaterThan(0)
      expect(web(await seriesOf(hub, 11, 1, T0, T0 + MIN))[0]).toBeCloseTo((12.5 + 1 + 80 + 0) / 4, 5)
      clock.set(T0 + 60 * MIN + 31_000)
      await hub.rollups.run()
      const hour = await seriesOf(hub, 11, 2, T0 - 60 * MIN, T0 + 60 * MIN)
      expect(hour.map((h) => h.ts)).toEqual([Date.parse('2026-11-27T10:00:00Z')])
      expect(hour[0]!.entries.map((e) => e.name)).toEqual(['Cache_1', 'db', 'web'])
    })

    test.skipIf(skip)(`two hubs at once: one device's blocks keep one row per name, and a rollup pass is taken once ${engine.skipReason}`, async () => {
      await ready()
      const other = hubOf(handle.db, clock)
      const at = T0 + 61 * 60_000
      await Promise.all(
        Array.from({ length: 6 }, (_, i) => send(i % 2 ? other : hub, 'd2', at + i * 1000, block([container('api'), container(`new${i % 3}`)]))),
      )
      const names = (await hub.store.fleet('c1', { deviceId: 'd2' }, 'name', 100, 0)).rows.map((r) => r.name)
      expect(names).toEqual([...new Set(names)])
      expect(names).toEqual(expect.arrayContaining(['api', 'new0', 'new1', 'new2']))
      clock.set(at + 2 * MIN)
      const [a, b] = await Promise.all([hub.rollups.run(), other.rollups.run()])
      if (engine.name === 'postgres') expect(Math.min(a, b)).toBe(0) // the marks are taken by one
      expect((await hub.store.series(12, 1, at - MIN, at + MIN)).length).toBe(1)
    })

    test.skipIf(skip)(`a block for a device deleted meanwhile is refused as not found, and nothing of it is written ${engine.skipReason}`, async () => {
      await ready()
      const err = await hub.ingest
        .submit({ clientId: 'c1', deviceId: 'gone', deviceSeq: 999, ts: T0, sent: true, block: block([container('web')]) })
        .catch((e: unknown) => e)
      expect(err).toBeInstanceOf(AppError)
      expect((err as AppError).code).toBe('not_found')
      expect(await hub.store.engine('gone')).toBeNull()
      expect(await hub.store.series(999, 0, 0, T0 + 100 * MIN)).toEqual([])
    })

    test.skipIf(skip)(`retention drops old series per level, long-gone containers and old history ${engine.skipReason}`, async () => {
      await ready()
      const before = (await hub.store.series(11, 0, 0, T0 + 100 * MIN)).length
      expect(before).toBeGreaterThan(0)
      const gone = (await hub.store.fleet('c1', { state: 'gone', deviceId: 'd1' }, 'name', 10, 0)).rows
      expect(gone.map((g) => [g.name, g.gone_at])).toEqual([
        ['Cache_1', T0 + 10_000],
        ['db', T0 + 30_000],
      ])
      const n = await hub.store.prune({ raw: T0 + 6_000, m1: 0, h1: 0, gone: T0 + 10_001, events: T0 + 1 })
      expect(n).toBeGreaterThan(0)
      expect((await hub.store.series(11, 0, 0, T0 + 100 * MIN)).map((r) => r.ts)).toEqual([T0 + 10_000, T0 + 30_000])
      expect((await hub.store.series(11, 1, 0, T0 + 100 * MIN)).length).toBe(1)
      expect(await hub.store.byId('c1', 'd1', gone[0]!.id)).toBeNull()
      const web = (await hub.store.fleet('c1', { deviceId: 'd1', name: 'web' }, 'name', 1, 0)).rows[0]!
      expect((await hub.store.events(web.seq, 10, 0)).map((e) => e.ts)).toEqual([T0 + 10_000])
      expect((await hub.store.fleet('c1', { state: 'gone', deviceId: 'd1' }, 'name', 10, 0)).rows.map((g) => g.name)).toEqual(['db'])
      expect(await hub.store.counts('c1')).toMatchObject({ containers: expect.any(Number) })
    })
  })
}
