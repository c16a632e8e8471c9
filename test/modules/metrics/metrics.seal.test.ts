import { describe, expect, test } from 'bun:test'
import { evolve, rng } from '../../../scripts/bench/storage-samples'
import { memoryLogger } from '../../../src/lib/logger'
import { JsonBytes } from '../../../src/lib/json-bytes'
import { createBlockStore } from '../../../src/modules/metrics/metrics.block.store'
import { writePage } from '../../../src/modules/metrics/metrics.rows'
import { createMetricsStore } from '../../../src/modules/metrics/metrics.store'
import { createSealer } from '../../../src/modules/metrics/metrics.seal'
import { createHotStore } from '../../../src/modules/metrics/metrics.hot.store'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.UTC(2026, 0, 1)
const MIN = 60_000
const HOUR = 60 * MIN

/** Collector-like batches every 10 s from `start`, each with a random extra field (kept as sent, floats of any bits). */
function batches(start: number, count: number, seed: number) {
  const r = rng(seed)
  const bits = new Uint32Array(2)
  const anyFloat = () => {
    bits[0] = r() * 2 ** 32
    bits[1] = (r() * 0x7fe00000) >>> 0
    return new Float64Array(bits.buffer)[0]!
  }
  return evolve({ hardware: hardwareSample(1), network: networkSample(1) } as never, count, start, 10_000, seed).map((s) => ({
    ...s,
    hardware: { ...s.hardware, vendor_extra: { values: [anyFloat(), anyFloat()], label: `x${Math.floor(r() * 5)}` } },
  }))
}

async function post(t: TestApp, headers: Record<string, string>, items: unknown[]) {
  for (let i = 0; i < items.length; i += 200) {
    const r = await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 200) }, headers })
    expect(r.status).toBe(201)
  }
}

const unsealedRows = (t: TestApp) =>
  t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples WHERE hw_rest IS NOT NULL OR net_rest IS NOT NULL OR (kinds & 8) != 0').get()!
    .n
const hotRecords = (t: TestApp) => createHotStore(t.db.sqlite).stats().records
const blockCount = (t: TestApp) => t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_block_index').get()!.n

/** Every read that shows the nested fields, as the bytes it answers (a fresh token: the tests move the clock). */
async function reads(t: TestApp, deviceId: string, a: { userId: string; clientId: string }) {
  const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
  const paths = [
    `/v1/metrics/hardware/${deviceId}?limit=1000`,
    `/v1/metrics/network/${deviceId}?limit=1000`,
    `/v1/metrics/hardware/${deviceId}?limit=120&offset=37`,
    `/v1/metrics/network/${deviceId}?limit=5&start_date=${new Date(T0 + 10 * MIN).toISOString()}&end_date=${new Date(T0 + 20 * MIN).toISOString()}`,
    `/v1/metrics/hardware/${deviceId}/latest`,
    `/v1/metrics/network/${deviceId}/latest`,
    `/v1/metrics/series/${deviceId}?kind=hardware&fields=cpu_per_core,disk_partitions,cpu_percent&start=${new Date(T0).toISOString()}&end=${new Date(T0 + HOUR).toISOString()}`,
    `/v1/metrics/series/${deviceId}?kind=network&fields=interfaces&start=${new Date(T0).toISOString()}&end=${new Date(T0 + HOUR).toISOString()}`,
  ]
  const out: string[] = []
  for (const p of paths) {
    const r = await t.request('GET', p, { headers })
    expect(r.status).toBe(200)
    out.push(r.text)
  }
  return out
}

describe('sealing samples into their long-lived form', () => {
  test('reads answer the same bytes before and after sealing, and every value reads back as it was sent', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 3 * HOUR)
    const sent = batches(T0, 300, 3)
    await post(t, a.keyHeaders, sent)
    const before = await reads(t, a.deviceId, a)

    expect(hotRecords(t)).toBeGreaterThan(0)
    await t.modules.sealer.run()
    expect(unsealedRows(t)).toBe(0)
    expect(blockCount(t)).toBe(5) // 50 minutes of samples, 10 minutes a block
    // every sample sealed: their compact records from ingest are deleted
    expect(hotRecords(t)).toBe(0)
    expect(await reads(t, a.deviceId, a)).toEqual(before)

    // what was posted is what is read: the extra field's floats bit for bit, nested objects equal
    const page = JSON.parse((await reads(t, a.deviceId, a))[0]!).items as Record<string, unknown>[]
    expect(page).toHaveLength(sent.length)
    for (const [i, item] of page.reverse().entries()) {
      for (const [k, v] of Object.entries(sent[i]!.hardware)) expect([k, item[k]]).toEqual([k, v])
    }
  })

  test('a history page across several blocks and the newest unsealed samples answers each sample its own texts, the same bytes as before sealing', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 90 * MIN + 30_000)
    // 90 minutes: four blocks due, the next two sealed with them, the newest half hour not
    const sent = batches(T0, 540, 13)
    await post(t, a.keyHeaders, sent)
    const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
    // pages of 120 (20 minutes) from the unsealed samples into a block, over block boundaries, and in the oldest blocks
    const paths = [150, 160, 300, 420].flatMap((offset) => [
      `/v1/metrics/hardware/${a.deviceId}?limit=120&offset=${offset}`,
      `/v1/metrics/network/${a.deviceId}?limit=120&offset=${offset}`,
    ])
    const read = async () => Promise.all(paths.map(async (p) => (await t.request('GET', p, { headers })).text))
    const before = await read()
    await t.modules.sealer.run()
    expect(blockCount(t)).toBe(6)
    expect(await read()).toEqual(before)
    const byTime = new Map(sent.map((s) => [s.recorded_at, s]))
    for (const text of before.filter((_, i) => i % 2 === 0)) {
      const items = JSON.parse(text).items as Record<string, unknown>[]
      expect(items).toHaveLength(120)
      for (const item of items) expect(item.vendor_extra).toEqual(byTime.get(item.recorded_at as string)!.hardware.vendor_extra)
    }
  })

  test('a page read for an answer makes no text a string: hot ones are bytes, sealed ones stay in their blocks; the same bytes', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 3 * HOUR)
    await post(t, a.keyHeaders, batches(T0, 360, 7)) // an hour: six blocks, all sealed, no hot record left
    const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
    const paths = ['hardware', 'network'].map((kind) => `/v1/metrics/${kind}/${a.deviceId}?limit=120&offset=100`)
    const read = async () => Promise.all(paths.map(async (p) => (await t.request('GET', p, { headers })).text))
    const store = createMetricsStore(t.db.sqlite)
    const seq = t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq
    const page = (kind: 'hardware' | 'network', lazy: boolean) => {
      const rows = store.page(kind, seq, 0, Number.MAX_SAFE_INTEGER, 120, 100, lazy)
      return { rows, json: new TextDecoder().decode(writePage(new JsonBytes(), kind, rows, a.deviceId).take()) }
    }
    // hot: each text the UTF-8 bytes of its decoded record
    for (const kind of ['hardware', 'network'] as const) {
      const lazy = page(kind, true)
      expect(lazy.rows.every((r) => r.at(-1) instanceof Uint8Array)).toBe(true)
      expect(lazy.json).toBe(page(kind, false).json)
    }
    const before = await read()
    await t.modules.sealer.run()
    createBlockStore(t.db.sqlite).dropHot()
    expect(hotRecords(t)).toBe(0)
    expect(await read()).toEqual(before)
    for (const kind of ['hardware', 'network'] as const) {
      const lazy = page(kind, true)
      const strings = page(kind, false)
      // no text made into a string: each row's rest is the block that writes it
      expect(lazy.rows.every((r) => typeof r.at(-1) === 'object' && r.at(-1) !== null)).toBe(true)
      expect(strings.rows.every((r) => typeof r.at(-1) === 'string')).toBe(true)
      expect(lazy.json).toBe(strings.json)
    }
  })

  test('a block is sealed once its first sample is an hour old, with the next two; a late sample and a late part join their block at the next run', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 110 * MIN + 30_000)
    await post(t, a.keyHeaders, batches(T0 + 50 * MIN, 240, 5)) // 50 to 90 minutes past T0
    await t.modules.sealer.run()
    // the block from T0 + 50 min holds hour-old samples: sealed, with the blocks from T0 + 60 and
    // T0 + 70 min (40 to 50 minutes old); the one from T0 + 80 min is not
    expect(unsealedRows(t)).toBe(60)
    expect(blockCount(t)).toBe(3)

    // a replayed sample from inside a sealed block, and the network part of a sealed hardware-only time
    const late = batches(T0 + 55 * MIN + 5_000, 1, 9)[0]!
    await post(t, a.keyHeaders, [late, { recorded_at: new Date(T0 + 56 * MIN + 3_000).toISOString(), hardware: hardwareSample(3) }])
    await t.modules.sealer.run()
    const partAt = new Date(T0 + 56 * MIN + 3_000).toISOString()
    await post(t, a.keyHeaders, [{ recorded_at: partAt, network: networkSample(4) }])
    const before = await reads(t, a.deviceId, a)
    t.clock.advance(10 * MIN)
    await t.modules.sealer.run()
    expect(unsealedRows(t)).toBe(0)
    expect(await reads(t, a.deviceId, a)).toEqual(before)
    const net = JSON.parse(before[1]!).items as Record<string, unknown>[]
    expect(net.find((i) => i.recorded_at === partAt)).toMatchObject({ interfaces: networkSample(4).interfaces })
  })

  test('a device sealed ahead is not looked at again until its next block is due, then sealed with its next two', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 110 * MIN + 30_000)
    await post(t, a.keyHeaders, batches(T0 + 50 * MIN, 360, 6)) // 50 to 110 minutes past T0
    const blocks = createBlockStore(t.db.sqlite)
    const looks: [number, number][] = []
    const sealer = createSealer({
      blocks: {
        ...blocks,
        firstUnsealed(seq, from, to) {
          looks.push([from, to])
          return blocks.firstUnsealed(seq, from, to)
        },
      },
      devices: { seqs: () => [t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq] },
      writer: { takeWrittenSince: () => new Map() },
      clock: t.clock,
      logger: memoryLogger().logger,
    })
    await sealer.run()
    expect(blockCount(t)).toBe(3) // from T0 + 50, 60 and 70 min
    // the next 29 runs (a minute apart) have nothing due: the device is not looked at
    looks.length = 0
    for (let i = 0; i < 29; i++) {
      t.clock.advance(MIN)
      await sealer.run()
    }
    expect([looks, blockCount(t)]).toEqual([[], 3])
    await post(t, a.keyHeaders, batches(T0 + 110 * MIN, 174, 7)) // 110 to 139 minutes past T0
    // T0 + 140.5 min: the block from T0 + 80 min is due; those from T0 + 90 and 100 min go with it
    t.clock.advance(MIN)
    await sealer.run()
    expect(blockCount(t)).toBe(6)
    expect(unsealedRows(t)).toBe(174)
  })

  test('retention drops blocks with their rows', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 2 * HOUR)
    await post(t, a.keyHeaders, batches(T0, 60, 2))
    await t.modules.sealer.run()
    expect(blockCount(t)).toBe(1)
    t.clock.set(T0 + 60 * 24 * HOUR)
    await t.jobs.find((j) => j.name === 'metrics.retention')!.run()
    expect(blockCount(t)).toBe(0)
  })

  test('a batch whose write fails (a full disk) is sealed by the next run', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 2)
    t.clock.set(T0 + 3 * HOUR)
    for (const d of a.deviceIds) await post(t, { ...a.keyHeaders, 'x-device-id': d }, batches(T0, 300, 4))
    const blocks = createBlockStore(t.db.sqlite)
    let fail = true
    const sealer = createSealer({
      blocks: {
        ...blocks,
        commit(batch) {
          if (!fail) return blocks.commit(batch)
          fail = false
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
        },
      },
      devices: {
        seqs: () =>
          t.db.sqlite
            .query<{ seq: number }, []>('SELECT seq FROM devices ORDER BY seq')
            .all()
            .map((r) => r.seq),
      },
      writer: { takeWrittenSince: () => new Map() },
      clock: t.clock,
      logger: memoryLogger().logger,
    })
    await expect(sealer.run()).rejects.toThrow('ENOSPC')
    expect(unsealedRows(t)).toBe(600)
    await sealer.run()
    expect(unsealedRows(t)).toBe(0)
    expect(blockCount(t)).toBe(10)
  })

  test('a run converts for a bounded time; the next goes on where it stopped, and /health shows the devices still converting', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 2)
    t.clock.set(T0 + 3 * HOUR)
    for (const d of a.deviceIds) await post(t, { ...a.keyHeaders, 'x-device-id': d }, batches(T0, 300, 4)) // 5 blocks each
    // a budget clock that moves one "ms" per look: a run of budget 3 seals two blocks
    let ms = 0
    const { logger, lines } = memoryLogger()
    const sealer = createSealer({
      blocks: createBlockStore(t.db.sqlite),
      devices: {
        seqs: () =>
          t.db.sqlite
            .query<{ seq: number }, []>('SELECT seq FROM devices ORDER BY seq')
            .all()
            .map((r) => r.seq),
      },
      writer: { takeWrittenSince: () => new Map() },
      clock: t.clock,
      logger,
      budgetMs: 3,
      elapsed: () => ms++,
    })
    const runs: number[] = []
    for (let i = 0; i < 20 && unsealedRows(t) > 0; i++) {
      runs.push((await sealer.run()).blocks)
      if (unsealedRows(t) > 0) expect(sealer.behind()).toBeGreaterThan(0)
    }
    expect(Math.max(...runs)).toBeLessThanOrEqual(2)
    expect(runs.reduce((x, y) => x + y, 0)).toBe(10)
    expect(unsealedRows(t)).toBe(0)
    expect(lines.some((l) => l.includes('metrics sealed') && l.includes('devices_behind'))).toBe(true)

    // the service's own sealer reports on /health
    await t.modules.sealer.run()
    expect((await t.request('GET', '/health')).body.storage).toEqual({ warning: null, converting_devices: 0 })
  })

  test('a day’s chart of a device that has sent a few hours reads its sealed samples from the minutes, not from blocks', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 5 * HOUR)
    // four hours at 10 s, a day's chart up to their end: from the oldest sample, 24 buckets of 10 minutes
    await post(t, a.keyHeaders, batches(T0, 1440, 9))
    await t.jobs.find((j) => j.name === 'metrics.rollup')!.run()
    const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
    const path = `/v1/metrics/series/${a.deviceId}?kind=hardware&fields=cpu_per_core,disk_partitions&start=${new Date(T0 + 4 * HOUR - 86_400_000).toISOString()}&end=${new Date(T0 + 4 * HOUR).toISOString()}`
    const before = await t.request('GET', path, { headers })
    expect(before.status).toBe(200)
    expect(before.body.resolution).toBe('10m')
    expect(before.body.t).toHaveLength(24)
    while ((await t.modules.sealer.run()).blocks > 0) {}
    expect(unsealedRows(t)).toBe(0)
    const blocks = createBlockStore(t.db.sqlite)
    const { decodes, minuteDecodes } = blocks.stats()
    const after = await t.request('GET', path, { headers })
    expect(after.text).toBe(before.text)
    // one slot a minute, each from its block's minutes: 24 blocks' minutes decoded, no block
    expect(blocks.stats().decodes).toBe(decodes)
    expect(blocks.stats().minuteDecodes - minuteDecodes).toBe(24)
  })

  test('a chart of nested families over hours reads the same before and after sealing, from the sealed minutes without decoding a block', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 9 * HOUR)
    // six hours at 10 s, some minutes without a network part, a late sample added to a sealed minute after
    const nics = (i: number) => [
      { name: 'eth0', upload_mbps: (i % 17) / 4, download_mbps: (i % 29) * 1.5 },
      { name: 'wlan0', upload_mbps: i % 3, download_mbps: -0 },
    ]
    const sent = batches(T0, 2160, 5).map((s, i) =>
      i % 13 === 4 ? { recorded_at: s.recorded_at, hardware: s.hardware } : { ...s, network: { ...s.network, interfaces: nics(i) } },
    )
    await post(t, a.keyHeaders, sent)
    const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
    const range = `start=${new Date(T0).toISOString()}&end=${new Date(T0 + 6 * HOUR).toISOString()}`
    const charts = [
      `/v1/metrics/series/${a.deviceId}?kind=hardware&fields=cpu_per_core,disk_partitions,disk_io,cpu_percent&${range}`,
      `/v1/metrics/series/${a.deviceId}?kind=network&fields=interfaces,download_mbps&${range}`,
      `/v1/metrics/series/${a.deviceId}?kind=hardware&fields=disk_partitions&resolution=10m&${range}`,
      `/v1/metrics/series/${a.deviceId}?kind=network&fields=wifi,interfaces&resolution=1h&${range}`,
    ]
    const read = async () => {
      const out: string[] = []
      for (const p of charts) {
        const r = await t.request('GET', p, { headers })
        expect(r.status).toBe(200)
        out.push(r.text)
      }
      return out
    }
    await t.jobs.find((j) => j.name === 'metrics.rollup')!.run()
    const before = await read()
    expect(JSON.parse(before[0]!).values['cpu_per_core:0'].length).toBeGreaterThan(100)
    while ((await t.modules.sealer.run()).blocks > 0) {}
    expect(unsealedRows(t)).toBe(0)
    // the charts read the minutes kept beside the blocks: no block is decoded
    const decodes = createBlockStore(t.db.sqlite).stats().decodes
    expect(await read()).toEqual(before)
    expect(createBlockStore(t.db.sqlite).stats().decodes).toBe(decodes)
    // a late part of a sealed minute: read from the sample itself until its block is sealed again, then from the minutes
    // (the 31st sample: the first of its minute, and one sent without its network part)
    const late = sent[30]!
    expect('network' in late).toBe(false)
    await post(t, a.keyHeaders, [{ recorded_at: late.recorded_at, network: { ...networkSample(7), interfaces: nics(1000) } }])
    await t.jobs.find((j) => j.name === 'metrics.rollup')!.run()
    const withLate = await read()
    expect(withLate[1]).not.toEqual(before[1])
    await t.modules.sealer.run()
    expect(unsealedRows(t)).toBe(0)
    expect(await read()).toEqual(withLate)
  }, 60_000)

  test('/health counts a device as caught up only once its blocks committed, and every device before the first look', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 2)
    t.clock.set(T0 + 3 * HOUR)
    for (const d of a.deviceIds) await post(t, { ...a.keyHeaders, 'x-device-id': d }, batches(T0, 300, 4)) // 5 blocks each, one batch
    const store = createBlockStore(t.db.sqlite)
    const seqs = () =>
      t.db.sqlite
        .query<{ seq: number }, []>('SELECT seq FROM devices ORDER BY seq')
        .all()
        .map((r) => r.seq)
    const atCommit: number[] = []
    const sealer = createSealer({
      blocks: {
        ...store,
        commit: (batch) => {
          atCommit.push(sealer.behind())
          return store.commit(batch)
        },
      },
      devices: { seqs },
      writer: { takeWrittenSince: () => new Map() },
      clock: t.clock,
      logger: memoryLogger().logger,
    })
    // not looked at yet: nothing says the devices are caught up
    expect(sealer.behind()).toBe(2)
    expect((await sealer.run()).blocks).toBe(10)
    // both devices' blocks waited in one batch: while it was written, both were still behind
    expect(atCommit).toEqual([2])
    expect(sealer.behind()).toBe(0)
    expect(unsealedRows(t)).toBe(0)
  })

  test("the job's runs leave a device's block still filling for the next run, instead of sealing it twice", async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 3 * HOUR)
    await post(t, a.keyHeaders, batches(T0, 150, 6)) // two blocks and half of a third, two hours old
    const seq = t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq
    // the writer saw the device's newest sample (in the third block) just now, then a while ago
    let newest: number | null = T0 + 149 * 10_000
    const sealer = createSealer({
      blocks: createBlockStore(t.db.sqlite),
      devices: { seqs: () => [seq] },
      writer: { takeWrittenSince: () => new Map(), newestWrittenWithin: () => newest },
      clock: t.clock,
      logger: memoryLogger().logger,
    })
    expect((await sealer.run({ leaveFilling: true })).blocks).toBe(2)
    expect(sealer.behind()).toBe(1)
    expect(blockCount(t)).toBe(2)
    // its samples stopped coming: the block is sealed once, whole
    await post(t, a.keyHeaders, batches(T0, 180, 6).slice(150))
    newest = null
    expect((await sealer.run({ leaveFilling: true })).blocks).toBe(1)
    expect(sealer.behind()).toBe(0)
    expect(unsealedRows(t)).toBe(0)
  })
})
