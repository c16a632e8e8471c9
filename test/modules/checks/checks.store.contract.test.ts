import { describe, expect, test } from 'bun:test'
import { createIncidentsStore, type IncidentsStore } from '../../../src/modules/checks/checks.incidents'
import { createIncidentsStorePg } from '../../../src/modules/checks/checks.incidents.pg'
import type { Attempt } from '../../../src/modules/checks/checks.attempt'
import { createResultsStorePg } from '../../../src/modules/checks/checks.results.pg'
import { createStatusReads, type StatusReads } from '../../../src/modules/checks/checks.status-reads'
import { createStatusReadsPg } from '../../../src/modules/checks/checks.status-reads.pg'
import { type ChecksStore, createChecksStore, sqliteChecks } from '../../../src/modules/checks/checks.store'
import type { CheckRow } from '../../../src/modules/checks/checks.store.rows'
import { createChecksStorePg } from '../../../src/modules/checks/checks.store.pg'
import { HOUR_MS, type ResultsStore, resultsStoreOf } from '../../../src/modules/checks/checks.summaries'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The checks' stores (definitions and places, attempts and summaries, incidents, a status page's reads) answer the same on both engines. */
interface Stores {
  checks: ChecksStore
  results: ResultsStore
  incidents: IncidentsStore
  reads: StatusReads
}
const storesOf = (db: EngineDb): Stores =>
  db.sqlite
    ? {
        checks: createChecksStore(db.sqlite),
        results: resultsStoreOf(sqliteChecks(db.sqlite).results),
        incidents: createIncidentsStore(db.sqlite),
        reads: createStatusReads(db.sqlite),
      }
    : {
        checks: createChecksStorePg(db.pg!),
        results: createResultsStorePg(db.pg!),
        incidents: createIncidentsStorePg(db.pg!),
        reads: createStatusReadsPg(db.pg!),
      }

const T0 = Date.parse('2026-03-10T12:30:00Z')
const MIN = 60_000
const row = (over: Partial<Omit<CheckRow, 'seq'>> & { id: string }): Omit<CheckRow, 'seq'> => ({
  client_id: 'c1',
  name: over.id,
  kind: 'http',
  settings: '{"url":"https://example.com/"}',
  interval_s: 60,
  timeout_ms: 10_000,
  down_after: 2,
  up_after: 1,
  run_on_hub: 1,
  device_ids: '[]',
  depends_on_device_id: null,
  paused: 0,
  hb_token_hash: null,
  hb_token_hint: null,
  state: 'pending',
  state_since: T0,
  last_checked_at: null,
  last_response_ms: null,
  last_status_code: null,
  last_error: null,
  cert_expires_at: null,
  created_at: T0,
  updated_at: T0,
  ...over,
})
const at = (ts: number, ok: boolean, ms: number | null = ok ? 100 : null): Attempt => ({
  ts,
  ok,
  response_ms: ms,
  status_code: ok ? 200 : 503,
  error: ok ? null : 'status 503',
  cert_expires_at: null,
})

for (const engine of ENGINES) {
  describe(`checks stores on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let s: Stores
    let seeded = false
    const ready = async () => {
      s = storesOf(handle.db)
      if (!seeded)
        for (const c of ['c1', 'c2', 'c3']) await handle.db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
      seeded = true
    }

    test.skipIf(skip)(`checks are made with the next seq within the client's limit, and read within their client only ${engine.skipReason}`, async () => {
      await ready()
      const a = await s.checks.create(row({ id: 'chk_a', hb_token_hash: 'h1' }), 3)
      expect(a).toMatchObject({ id: 'chk_a', seq: 1 })
      expect((await s.checks.create(row({ id: 'chk_b', created_at: T0 + 1 }), 3))!.seq).toBe(2)
      expect((await s.checks.create(row({ id: 'chk_0', created_at: T0 + 1 }), 3))!.seq).toBe(3)
      expect(await s.checks.create(row({ id: 'chk_x' }), 3)).toBeNull()
      expect(await s.checks.create(row({ id: 'chk_o', client_id: 'c2', last_response_ms: 12.5 }), 3)).toMatchObject({ seq: 4 })
      expect(await s.checks.byId('c1', 'chk_a')).toEqual(a)
      expect(await s.checks.byId('c2', 'chk_a')).toBeNull()
      expect(await s.checks.anyById('chk_o')).toMatchObject({ client_id: 'c2', last_response_ms: 12.5 })
      expect(await s.checks.anyById('nope')).toBeNull()
      expect((await s.checks.byTokenHash('h1'))!.id).toBe('chk_a')
      expect(await s.checks.byTokenHash('h2')).toBeNull()
      expect((await s.checks.list('c1')).map((c) => c.id)).toEqual(['chk_a', 'chk_0', 'chk_b'])
      expect((await s.checks.all()).map((c) => c.id)).toEqual(['chk_a', 'chk_o', 'chk_0', 'chk_b'])
      expect(await s.checks.count('c1')).toBe(3)
      expect(await s.checks.count('c3')).toBe(0)
    })

    test.skipIf(skip)(`creations at once take distinct seqs and never pass the limit ${engine.skipReason}`, async () => {
      await ready()
      const made = await Promise.all(Array.from({ length: 6 }, (_, i) => s.checks.create(row({ id: `chk_p${i}`, client_id: 'c3' }), 3)))
      const seqs = made.flatMap((m) => (m ? [m.seq] : []))
      expect(seqs.length).toBe(3)
      expect(new Set(seqs).size).toBe(3)
      expect(Math.min(...seqs)).toBe(5)
    })

    test.skipIf(skip)(
      `an attempt moves the place's and the check's state; an incident opens once and closes; a replay and a late attempt move nothing ${engine.skipReason}`,
      async () => {
        await ready()
        const up = await s.checks.record('chk_a', 0, at(T0 + MIN, true, 80), [0])
        expect(up).toMatchObject({ from: 'pending', to: 'up', place: 0 })
        expect(up!.check).toMatchObject({ state: 'up', state_since: T0 + MIN, last_checked_at: T0 + MIN, last_response_ms: 80, last_status_code: 200 })
        expect(await s.checks.record('chk_a', 0, at(T0 + MIN, true, 80), [0])).toBeNull()
        expect((await s.checks.record('chk_a', 0, at(T0 + 2 * MIN, false), [0]))!.to).toBe('up')
        const down = await s.checks.record('chk_a', 0, at(T0 + 3 * MIN, false), [0])
        expect(down).toMatchObject({ from: 'up', to: 'down' })
        expect((await s.checks.record('chk_a', 0, at(T0 + 4 * MIN, false), [0]))!.to).toBe('down')
        // older than the place's latest: stored, no state moved
        const late = await s.checks.record('chk_a', 0, at(T0 + 90_000, true, 60), [0])
        expect(late).toMatchObject({ from: 'down', to: 'down' })
        expect(late!.check.last_checked_at).toBe(T0 + 4 * MIN)
        expect(await s.checks.downCount('c1')).toBe(1)
        expect(await s.checks.downCount('c2')).toBe(0)
        const inc = await s.incidents.page('c1', 'chk_a', 10, 0)
        expect(inc.total).toBe(1)
        expect(inc.rows[0]).toMatchObject({ client_id: 'c1', check_id: 'chk_a', started_at: T0 + 3 * MIN, ended_at: null, cause: 'status 503' })
        expect((await s.checks.record('chk_a', 0, at(T0 + 5 * MIN, true, 120), [0]))!.to).toBe('up')
        expect((await s.incidents.since('c1', 'chk_a', 0))[0]!.ended_at).toBe(T0 + 5 * MIN)
        expect(await s.incidents.page('c2', 'chk_a', 10, 0)).toEqual({ rows: [], total: 0 })
        expect(await s.checks.places(1)).toEqual([
          { check_seq: 1, place: 0, state: 'up', fails: 0, successes: 1, last_ts: T0 + 5 * MIN, last_ok: 1, last_response_ms: 120, last_error: null },
        ])
        // a place not among the active ones keeps its own state but does not count
        expect((await s.checks.record('chk_a', 7, at(T0 + 6 * MIN, false), [0]))!.to).toBe('up')
        expect((await s.checks.places(1)).map((p) => p.place)).toEqual([0, 7])
        expect(await s.checks.record('nope', 0, at(T0, true), [0])).toBeNull()
      },
    )

    test.skipIf(skip)(`the results read the same: uptime, percentiles, steps, days, pages and the last success ${engine.skipReason}`, async () => {
      await ready()
      const now = T0 + 10 * MIN
      // at the hub: +1 ok, +1.5 ok (late), +2, +3, +4 failed, +5 ok; at place 7: +6 failed
      expect(await s.results.uptime(1, now, 24 * HOUR_MS)).toBe(42.857)
      expect(await s.results.uptime(1, now, 7 * 24 * HOUR_MS)).toBe(42.857)
      expect(await s.results.uptime(1, now, 90 * 24 * HOUR_MS)).toBe(42.857)
      expect(await s.results.uptime(2, now, 24 * HOUR_MS)).toBeNull()
      expect(await s.results.percentiles(1, now, 24 * HOUR_MS)).toEqual({ p50: 80, p95: 120, p99: 120 })
      // from the day's histogram: bucket bounds, the maximum for the last
      expect(await s.results.percentiles(1, now, 30 * 24 * HOUR_MS)).toEqual({ p50: 100, p95: 120, p99: 120 })
      const steps = await s.results.buckets(1, T0, 5 * MIN, 2)
      expect(steps).toEqual([
        { t: T0, avg_ms: 70, max_ms: 80, uptime: 40, total: 5 },
        { t: T0 + 5 * MIN, avg_ms: 120, max_ms: 120, uptime: 50, total: 2 },
      ])
      expect(await s.results.buckets(1, T0 - 30 * MIN, HOUR_MS, 1)).toEqual([{ t: T0 - 30 * MIN, avg_ms: 87, max_ms: 120, uptime: 42.857, total: 7 }])
      const day = Math.floor(T0 / 86_400_000)
      expect(await s.results.days(1, day - 1)).toEqual([{ day, total: 7, ok: 3 }])
      const page = await s.results.page(1, -1, 3, 1)
      expect(page.total).toBe(7)
      expect(page.rows.map((r) => [r.ts - T0, r.place, r.ok])).toEqual([
        [5 * MIN, 0, 1],
        [4 * MIN, 0, 0],
        [3 * MIN, 0, 0],
      ])
      expect((await s.results.page(1, 7, 10, 0)).rows.map((r) => r.error)).toEqual(['status 503'])
      expect(await s.results.lastOk(1)).toBe(T0 + 5 * MIN)
    })

    test.skipIf(skip)(`finished hours are packed and read the same; a late attempt for a packed hour is merged once ${engine.skipReason}`, async () => {
      await ready()
      const before = await s.results.page(1, -1, 100, 0)
      expect(await s.results.packBefore(T0 + 2 * HOUR_MS, 50)).toBe(2)
      expect(await s.results.packBefore(T0 + 2 * HOUR_MS, 50)).toBe(0)
      expect(await s.results.page(1, -1, 100, 0)).toEqual(before)
      expect(await s.results.lastOk(1)).toBe(T0 + 5 * MIN)
      expect(await s.results.uptime(1, T0 + 10 * MIN, 24 * HOUR_MS)).toBe(42.857)
      expect(await s.checks.record('chk_a', 0, at(T0 + 30_000, true, 200), [0])).not.toBeNull()
      expect(await s.checks.record('chk_a', 0, at(T0 + 30_000, true, 200), [0])).toBeNull()
      expect((await s.results.page(1, -1, 100, 0)).total).toBe(8)
      expect(await s.results.percentiles(1, T0 + 10 * MIN, 24 * HOUR_MS)).toEqual({ p50: 80, p95: 200, p99: 200 })
    })

    test.skipIf(skip)(`a status page's reads: its client's checks, day and hour rows in a span, incidents since ${engine.skipReason}`, async () => {
      await ready()
      const checks = await s.reads.checks('c1', ['chk_a', 'chk_o', 'chk_none'])
      // the latest attempt was place 7's failure
      expect(checks).toEqual([['chk_a', 1, 'chk_a', 'http', 0, 'up', T0 + 6 * MIN, null]])
      const day = Math.floor(T0 / 86_400_000)
      expect(await s.reads.days([1, 2], day, day + 1)).toEqual([[1, day, 8, 4]])
      expect(await s.reads.days([1], day + 1, day + 2)).toEqual([])
      const hour = Math.floor(T0 / HOUR_MS)
      expect(await s.reads.hours([1], hour, hour + 1)).toEqual([[1, hour, 460, 4]])
      expect(await s.reads.incidents('c1', ['chk_a', 'chk_b'], 0)).toEqual([['chk_a', T0 + 3 * MIN, T0 + 5 * MIN]])
      expect(await s.reads.incidents('c1', ['chk_a'], T0 + 6 * MIN)).toEqual([])
      expect(await s.reads.incidents('c2', ['chk_a'], 0)).toEqual([])
    })

    test.skipIf(skip)(
      `a change sets what is given, may drop the places and end the incident; another client's check is not changed ${engine.skipReason}`,
      async () => {
        await ready()
        await s.checks.record('chk_b', 0, at(T0 + MIN, false), [0])
        await s.checks.record('chk_b', 0, at(T0 + 2 * MIN, false), [0])
        expect(await s.checks.update('c2', 'chk_b', { name: 'evil' })).toBeNull()
        const paused = await s.checks.update('c1', 'chk_b', { paused: 1, name: 'B', updated_at: T0 + 9 }, { closeIncidentAt: T0 + 3 * MIN })
        expect(paused).toMatchObject({ paused: 1, name: 'B', updated_at: T0 + 9, state: 'down' })
        expect((await s.incidents.since('c1', 'chk_b', 0))[0]!.ended_at).toBe(T0 + 3 * MIN)
        const resumed = await s.checks.update('c1', 'chk_b', { paused: 0, state: 'pending', state_since: T0 + 10 }, { dropPlaces: true })
        expect(resumed).toMatchObject({ paused: 0, state: 'pending', state_since: T0 + 10 })
        expect(await s.checks.places(2)).toEqual([])
        expect((await s.checks.anyById('chk_b'))!.name).toBe('B')
      },
    )

    test.skipIf(skip)(`a removed check goes with its places, results and summaries; pruning drops what is past its keep ${engine.skipReason}`, async () => {
      await ready()
      expect(await s.checks.remove('c2', 'chk_a')).toBe(false)
      expect(await s.checks.remove('c1', 'chk_b')).toBe(true)
      expect(await s.checks.remove('c1', 'chk_b')).toBe(false)
      expect(await s.checks.byId('c1', 'chk_b')).toBeNull()
      expect(await s.incidents.since('c1', 'chk_b', 0)).toEqual([])
      expect(await s.results.page(2, -1, 10, 0)).toEqual({ rows: [], total: 0 })
      expect(await s.incidents.prune(T0 + 6 * MIN)).toBe(1)
      expect(await s.incidents.page('c1', 'chk_a', 10, 0)).toEqual({ rows: [], total: 0 })
      const later = T0 + 401 * 86_400_000
      expect(await s.results.pruneRaw(T0)).toBe(0)
      expect(await s.results.prune(later)).toBeGreaterThan(0)
      expect(await s.results.page(1, -1, 10, 0)).toEqual({ rows: [], total: 0 })
      expect(await s.results.days(1, 0)).toEqual([])
    })
  })
}
