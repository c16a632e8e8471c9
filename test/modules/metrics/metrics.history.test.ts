import { describe, expect, test } from 'bun:test'
import { rng } from '../../../scripts/bench/storage-samples'
import { runRetention } from '../../../src/modules/metrics/metrics.jobs'
import { LOCATE_CAP, createHistoryStore } from '../../../src/modules/metrics/metrics.history.store'
import { mainOfKindAt, pageStart } from '../../../src/modules/metrics/metrics.history'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

/** A random world: raw rows (time, kinds) and hot samples (time, kinds), no two at one time. */
function world(seed: number, rows: number, hots: number, oneKind: number) {
  const r = rng(seed)
  const times = new Set<number>()
  while (times.size < rows + hots) times.add(Math.floor(r() * 10 * (rows + hots)))
  const all = [...times].sort((a, b) => b - a).map((ts) => ({ ts, kinds: r() < oneKind ? (r() < 0.5 ? 1 : 2) : 3, hot: false }))
  // hot samples: mostly the newest, some among the older ones (late data)
  for (let i = 0, placed = 0; placed < hots; i = (i + 1) % all.length) {
    if (!all[i]!.hot && (i < hots || r() < 0.01)) {
      all[i]!.hot = true
      placed++
    }
  }
  return all
}

describe('locating a history page (metrics.history.ts)', () => {
  test('the page starts at the same sample as stepping over its offset, for every offset, hot samples and rows of one part among them', () => {
    for (const [seed, rows, hots, oneKind] of [
      [1, 300, 0, 0],
      [2, 300, 40, 0],
      [3, 200, 60, 0.1],
      [4, 100, 100, 0.5],
      [5, 0, 30, 0.2],
      [6, 50, 0, 1],
    ] as const) {
      const all = world(seed, rows, hots, oneKind)
      for (const bit of [1, 2]) {
        const main = all.filter((x) => !x.hot)
        const src = {
          mainAt: (p: number) => main[p]?.ts ?? null,
          lacking: main.filter((x) => !(x.kinds & bit)).map((x) => x.ts),
          hot: all.filter((x) => x.hot && x.kinds & bit).map((x) => x.ts),
        }
        const ofKind = all.filter((x) => x.kinds & bit)
        const mainOfKind = main.filter((x) => x.kinds & bit)
        for (let offset = 0; offset <= ofKind.length + 3; offset++) {
          expect([seed, bit, offset, pageStart(src, offset)]).toEqual([seed, bit, offset, ofKind[offset]?.ts ?? null])
          expect([seed, bit, offset, mainOfKindAt(src, offset)]).toEqual([seed, bit, offset, mainOfKind[offset]?.ts ?? null])
        }
      }
    }
  })
})

const T0 = Date.UTC(2026, 0, 1)
const MIN = 60_000

async function bulk(t: TestApp, headers: Record<string, string>, items: unknown[]) {
  for (let i = 0; i < items.length; i += 500) {
    const r = await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 500) }, headers })
    expect(r.status).toBe(201)
  }
}

/** The page as stepping over its offset through the raw table's view finds it: its samples' ids. */
function steppedIds(t: TestApp, seq: number, bit: number, limit: number, offset: number, from = 0, to = Number.MAX_SAFE_INTEGER) {
  return t.db.sqlite
    .query<{ id: number }, [number, number, number, number, number]>(
      `SELECT id FROM metric_samples WHERE device_seq = ? AND ts >= ? AND ts <= ? AND (kinds & ${bit}) != 0 ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`,
    )
    .all(seq, from, to, limit, offset)
    .map((r) => r.id)
}

/** a fresh token: the tests move the clock past the fixture's */
const userHeaders = async (t: TestApp, a: { userId: string; clientId: string }) => ({
  authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}`,
})

/** an app whose tenants may read many pages a minute */
const app = () => testApp({ config: { rateLimits: { free: 100_000, pro: 100_000, enterprise: 100_000, anonymous: 100 } } })

const seqOf = (t: TestApp, deviceId: string) => t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(deviceId)!.seq

describe('history pages located from the indexes', () => {
  test('every page is the one stepping over its offset finds, the same bytes before and after sealing, across the sealed/hot boundary and past the end', async () => {
    const t = app()
    const a = await tenantWithDevices(t)
    const seq = seqOf(t, a.deviceId)
    t.clock.set(T0 + 100 * MIN)
    // 90 minutes at 10 s; every 7th item carries one part only, every 11th the other
    const items = Array.from({ length: 540 }, (_, i) => ({
      recorded_at: new Date(T0 + i * 10_000).toISOString(),
      hardware: i % 7 === 3 ? null : hardwareSample(i),
      network: i % 11 === 5 ? null : networkSample(i),
    }))
    await bulk(t, a.keyHeaders, items)
    const headers = await userHeaders(t, a)
    const paths: string[] = []
    for (const kind of ['hardware', 'network'])
      for (let offset = 0; offset <= 560; offset += 23) {
        paths.push(`/v1/metrics/${kind}/${a.deviceId}?limit=50&offset=${offset}`)
        paths.push(
          `/v1/metrics/${kind}/${a.deviceId}?limit=7&offset=${offset % 200}&start_date=${new Date(T0 + 20 * MIN).toISOString()}&end_date=${new Date(T0 + 70 * MIN).toISOString()}`,
        )
      }
    const read = async () => Promise.all(paths.map(async (p) => (await t.request('GET', p, { headers })).text))
    const check = (texts: string[]) => {
      for (const [i, text] of texts.entries()) {
        const q = new URL(paths[i]!, 'http://x').searchParams
        const bit = paths[i]!.includes('/hardware/') ? 1 : 2
        const from = q.get('start_date') ? Date.parse(q.get('start_date')!) : 0
        const to = q.get('end_date') ? Date.parse(q.get('end_date')!) : Number.MAX_SAFE_INTEGER
        const ids = (JSON.parse(text).items as { id: number }[]).map((x) => x.id)
        expect([paths[i], ids]).toEqual([paths[i], steppedIds(t, seq, bit, Number(q.get('limit')), Number(q.get('offset')), from, to)])
      }
    }
    const hot = await read()
    check(hot)
    // the oldest blocks sealed, the newest half hour still hot: pages across the boundary
    await t.modules.sealer.run()
    expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_block_index').get()!.n).toBeGreaterThan(0)
    expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM temp.metric_hot_rows').get()!.n).toBeGreaterThan(0)
    const sealed = await read()
    check(sealed)
    expect(sealed).toEqual(hot)

    // a late sample (hot again, among the sealed ones) shifts every older page by one
    await bulk(t, a.keyHeaders, [{ recorded_at: new Date(T0 + 5_000).toISOString(), hardware: hardwareSample(999), network: networkSample(999) }])
    check(await read())
    const past = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?limit=10&offset=100000`, { headers })
    expect(past.body.items).toEqual([])
    expect(past.body.total).toBe(JSON.parse(hot[0]!).total + 1)
  })

  test('a device sending its parts apart: past the bound of rows without the kind, the page is stepped to as before', async () => {
    const t = app()
    const a = await tenantWithDevices(t)
    const seq = seqOf(t, a.deviceId)
    const n = LOCATE_CAP + 60
    t.clock.set(T0 + n * 10_000 + 2 * 60 * MIN)
    await bulk(
      t,
      a.keyHeaders,
      Array.from({ length: n }, (_, i) => ({ recorded_at: new Date(T0 + i * 10_000).toISOString(), hardware: hardwareSample(i), network: null })),
    )
    await t.modules.sealer.run()
    const history = createHistoryStore(t.db.sqlite)
    // no network part anywhere: more rows without it than the bound (stepped), none without hardware (located)
    expect(history.pageStart('network', seq, 0, Number.MAX_SAFE_INTEGER, 5)).toBeUndefined()
    expect(history.pageStart('hardware', seq, 0, Number.MAX_SAFE_INTEGER, 5)).toBe(T0 + (n - 6) * 10_000)
    for (const [kind, bit] of [
      ['hardware', 1],
      ['network', 2],
    ] as const) {
      for (const offset of [0, 1, 777, n - 3, n + 5]) {
        const r = await t.request('GET', `/v1/metrics/${kind}/${a.deviceId}?limit=5&offset=${offset}`, { headers: await userHeaders(t, a) })
        expect(r.status).toBe(200)
        expect((r.body.items as { id: number }[]).map((x) => x.id)).toEqual(steppedIds(t, seq, bit, 5, offset))
        expect(r.body.total).toBe(kind === 'hardware' ? n : 0)
      }
    }
  })

  test('pages stay those stepping finds as the rows under the hour counts change: a late sample sealed into a counted hour before any rollup, a part added to a sealed row, a pruning, new hours sealed', async () => {
    const HOUR = 60 * MIN
    // raw retention of 7.5 hours: at T0 + 10 h the pruning cuts in the middle of the third hour
    const t = testApp({
      config: {
        rateLimits: { free: 100_000, pro: 100_000, enterprise: 100_000, anonymous: 100 },
        metricsRetention: { raw: 7.5 * 3600, m1: 86_400, m10: 7 * 86_400, h1: 365 * 86_400, d1: 5 * 365 * 86_400 },
      },
    })
    const a = await tenantWithDevices(t)
    const seq = seqOf(t, a.deviceId)
    t.clock.set(T0 + 10 * HOUR)
    // 8 hours at 60 s; every 9th item carries its hardware part only
    const item = (i: number, ts = T0 + i * MIN) => ({
      recorded_at: new Date(ts).toISOString(),
      hardware: hardwareSample(i),
      network: i % 9 === 4 ? null : networkSample(i),
    })
    await bulk(
      t,
      a.keyHeaders,
      Array.from({ length: 480 }, (_, i) => item(i)),
    )
    await t.modules.sealer.run()
    expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM temp.metric_hot_rows').get()!.n).toBe(0)
    let headers = await userHeaders(t, a)
    const paths: string[] = []
    for (const kind of ['hardware', 'network'])
      for (let offset = 0; offset <= 520; offset += 29) {
        paths.push(`/v1/metrics/${kind}/${a.deviceId}?limit=20&offset=${offset}`)
        // a range cut mid-hour at both ends
        const range = `start_date=${new Date(T0 + 90 * MIN + 30_000).toISOString()}&end_date=${new Date(T0 + 400 * MIN + 30_000).toISOString()}`
        paths.push(`/v1/metrics/${kind}/${a.deviceId}?limit=9&offset=${offset % 320}&${range}`)
      }
    const check = async () => {
      for (const path of paths) {
        const body = (await t.request('GET', path, { headers })).body
        const q = new URL(path, 'http://x').searchParams
        const bit = path.includes('/hardware/') ? 1 : 2
        const from = q.get('start_date') ? Date.parse(q.get('start_date')!) : 0
        const to = q.get('end_date') ? Date.parse(q.get('end_date')!) : Number.MAX_SAFE_INTEGER
        const ids = (body.items as { id: number }[]).map((x) => x.id)
        expect([path, ids]).toEqual([path, steppedIds(t, seq, bit, Number(q.get('limit')), Number(q.get('offset')), from, to)])
      }
    }
    // the hours are counted as the pages are read
    await check()

    // a late sample between two sealed ones, hot, then sealed into its hour (no rollup has run)
    await bulk(t, a.keyHeaders, [item(999, T0 + 3 * HOUR + 30_000)])
    await check()
    await t.modules.sealer.run()
    expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM temp.metric_hot_rows').get()!.n).toBe(0)
    await check()

    // the network part of a sealed row that carried hardware only
    await bulk(t, a.keyHeaders, [{ recorded_at: new Date(T0 + 4 * MIN).toISOString(), network: networkSample(4) }])
    await check()

    // raw retention: the oldest two and a half hours go, in the middle of a counted hour
    await runRetention(t.modules.metricsJobs)
    expect(t.db.sqlite.query<{ t: number }, []>('SELECT min(ts) AS t FROM metric_samples').get()!.t).toBe(T0 + 150 * MIN)
    await check()

    // an hour more, sealed above the hours counted
    t.clock.set(T0 + 11 * HOUR)
    await bulk(
      t,
      a.keyHeaders,
      Array.from({ length: 60 }, (_, i) => item(480 + i)),
    )
    await t.modules.sealer.run()
    headers = await userHeaders(t, a)
    await check()
  })
})
