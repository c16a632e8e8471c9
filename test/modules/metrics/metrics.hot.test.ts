import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rng } from '../../../scripts/bench/storage-samples'
import { openDatabase } from '../../../src/db/connection'
import { FIELDS, type MetricKind } from '../../../src/modules/metrics/metrics.fields'
import { decodeHot, encodeHot, hotRest, type HotPart, type HotRef } from '../../../src/modules/metrics/metrics.hot'
import { readRecords } from '../../../src/modules/metrics/metrics.hot.records'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.UTC(2026, 0, 1)

/** Random numbers of every sort: any bits (subnormals, huge, tiny), -0, integers large and small, decimals as collectors print them. */
function numbers(seed: number) {
  const r = rng(seed)
  const bits = new Uint32Array(2)
  return (): number => {
    const pick = r()
    if (pick < 0.05) return -0
    if (pick < 0.3) return Math.floor(r() * 2 ** 53) * (r() < 0.5 ? -1 : 1)
    if (pick < 0.6) return Math.round(r() * 10_000) / 100
    for (;;) {
      bits[0] = r() * 2 ** 32
      bits[1] = r() * 2 ** 32
      const v = new Float64Array(bits.buffer)[0]!
      if (Number.isFinite(v)) return v
    }
  }
}

/** Random nested JSON: objects with odd keys and strings (quotes, escapes, digits in strings), arrays, numbers, booleans, null. */
function nested(seed: number) {
  const r = rng(seed)
  const num = numbers(seed + 1)
  const word = () => ['a', '1e5', '"q"', 'b\\c', '\u0001', 'ünï', '-3', '{x}', '[', ''][Math.floor(r() * 10)]!
  const value = (depth: number): unknown => {
    const p = r()
    if (depth > 2 || p < 0.4) return num()
    if (p < 0.5) return word()
    if (p < 0.55) return r() < 0.5
    if (p < 0.6) return null
    if (p < 0.8) return Array.from({ length: Math.floor(r() * 5) }, () => value(depth + 1))
    return Object.fromEntries(Array.from({ length: Math.floor(r() * 5) }, (_, i) => [`${word()}${i}`, value(depth + 1)]))
  }
  return () => value(0)
}

describe('the compact form of the newest samples (metrics.hot.ts)', () => {
  test('lossless over many random records, each coded against the one before: floats bit for bit, texts equal', () => {
    const num = numbers(7)
    const any = nested(11)
    const r = rng(3)
    let encRef: HotRef | null = null
    let decRef: HotRef | null = null
    let prev: HotPart[] | null = null
    for (let i = 0; i < 2_000; i++) {
      // mostly the same shape as the record before with moved numbers (as a collector sends), sometimes another shape
      const parts: HotPart[] =
        prev && r() < 0.7
          ? prev.map((p) => ({ ...p, values: p.values.map((v) => (v === null || r() < 0.2 ? v : num())) }))
          : (['hardware', 'network'] as MetricKind[])
              .filter(() => r() < 0.8)
              .map((kind) => ({
                kind,
                values: FIELDS[kind].map(() => (r() < 0.2 ? null : num())),
                rest: r() < 0.1 ? null : JSON.stringify({ extra: any(), more: any() }),
              }))
      const { data, ref } = encodeHot(parts, encRef)
      encRef = ref
      const back = decodeHot(data, decRef)
      decRef = back.ref
      expect(back.parts.length).toBe(parts.length)
      for (const [k, p] of parts.entries()) {
        const q = back.parts[k]!
        expect(q.kind).toBe(p.kind)
        expect(q.rest).toBe(p.rest)
        // Object.is: -0 stays -0; every other float compares by value, which for finite numbers is bit for bit
        expect(q.values.every((v, j) => Object.is(v, p.values[j]))).toBe(true)
      }
      // each kind's rest as the bytes a history page writes: the text's UTF-8, null for none, undefined when not carried
      for (const kind of ['hardware', 'network'] as const) {
        const p = parts.find((x) => x.kind === kind)
        const bytes = hotRest(back.ref, kind)
        if (!p) expect(bytes).toBeUndefined()
        else if (p.rest === null) expect(bytes).toBeNull()
        else expect(new TextDecoder().decode(bytes!)).toBe(p.rest)
      }
      prev = parts
    }
  })

  test('a rest of multi-byte characters, or none, is found as its bytes beside the other part', () => {
    const values = (kind: MetricKind) => FIELDS[kind].map((_, i) => i + 0.5)
    const wide = JSON.stringify({ label: 'café 🙂 \u2028', n: [1, -0.5] })
    const cases: HotPart[][] = [
      [
        { kind: 'hardware', values: values('hardware'), rest: wide },
        { kind: 'network', values: values('network'), rest: '{"a":"é"}' },
      ],
      [
        { kind: 'hardware', values: values('hardware'), rest: null },
        { kind: 'network', values: values('network'), rest: wide },
      ],
      [{ kind: 'network', values: values('network'), rest: null }],
    ]
    for (const parts of cases) {
      const text = decodeHot(encodeHot(parts, null).data, null).ref
      for (const kind of ['hardware', 'network'] as const) {
        const p = parts.find((x) => x.kind === kind)
        const bytes = hotRest(text, kind)
        expect(bytes === undefined || bytes === null ? bytes : new TextDecoder().decode(bytes)).toBe(p ? p.rest : undefined)
      }
    }
  })

  test('a record of a collector sample takes a fraction of its JSON', () => {
    const parts: HotPart[] = [
      { kind: 'hardware', values: FIELDS.hardware.map((_, i) => i * 1.5), rest: JSON.stringify(hardwareSample(1)) },
      { kind: 'network', values: FIELDS.network.map((_, i) => i * 2.25), rest: JSON.stringify(networkSample(1)) },
    ]
    const first = encodeHot(parts, null)
    const moved = parts.map((p) => ({ ...p, values: p.values.map((v) => (v === null ? v : v + 0.5)) }))
    const next = encodeHot(moved, first.ref)
    const json = JSON.stringify(parts).length
    expect(next.data.length).toBeLessThan(json / 4)
    expect(decodeHot(next.data, first.ref).parts).toEqual(moved)
  })
  test('the coding is the one records already on disk were written with: the same text and the same bytes, which still decode', () => {
    // what an earlier build wrote for these parts (its record standing alone, then the next coded against it)
    const alone = Buffer.from(
      'ACi1L/0gq8UDAPIHGRywNR2QJUncgjotwnRjAruYA2oiRO695Ug9jFnS9+GYutNvveFirZC/Dg3wqtoSRJBQQDPkLwSZJ7AoD+MozVlQcJuOHXnzuI17k7j33kw3ujf1PrxZmPCmstKU6qZpAOuw7gEGAC5ZgzFYY/Axk83hMmVQBw==',
      'base64',
    )
    const chained = Buffer.from(
      'ASi1L/0gm50CAMQDMQFbLjMsNS41LDcsOC41LjUuNSwxNiwxNy41LDE5LDIwLjUsMjIyLDM1LDY4LDkxLDEyNCwxNV0BLTEBCAAgE5AHGAOGUY+JrKmBoRrpiDkE',
      'base64',
    )
    const parts: HotPart[] = [
      {
        kind: 'hardware',
        values: FIELDS.hardware.map((_, i) => (i === 0 ? -0 : i === 1 ? null : i === 2 ? 0.1 + 0.2 : i * 1.5)),
        rest: '{"cpu_per_core":[1,2],"ü":"\\u0001"}',
      },
      { kind: 'network', values: FIELDS.network.map((_, i) => (i % 3 ? i : null)), rest: null },
    ]
    const next = parts.map((p) => ({ ...p, values: p.values.map((v) => (v === null ? v : v + 1)) }))
    const a = encodeHot(parts, null)
    expect(new TextDecoder().decode(a.ref)).toBe(
      '1\u0001[-0,null,0.30000000000000004,4.5,6,7.5,9,10.5,12,13.5,15,16.5,18,19.5,21]\u000135\u0001{"cpu_per_core":[1,2],"ü":"\\u0001"}' +
        '2\u0001[null,1,2,null,4,5,null,7,8,null,10,11,null,13,14]\u0001-1\u0001',
    )
    expect(Buffer.from(a.data).equals(alone)).toBe(true)
    expect(Buffer.from(encodeHot(next, a.ref).data).equals(chained)).toBe(true)
    const back = decodeHot(alone, null)
    expect(back.parts).toEqual(parts)
    expect(Object.is(back.parts[0]!.values[0], -0)).toBe(true)
    expect(decodeHot(chained, back.ref).parts).toEqual(next)
  })
})

/** The history pages and latest answers of one device, as the bytes they answer (a fresh token: the tests move the clock). */
async function reads(t: TestApp, deviceId: string, a: { userId: string; clientId: string }) {
  const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
  const out: string[] = []
  for (const p of [`/v1/metrics/hardware/${deviceId}?limit=1000`, `/v1/metrics/network/${deviceId}?limit=1000`, `/v1/metrics/hardware/${deviceId}/latest`]) {
    const r = await t.request('GET', p, { headers })
    expect(r.status).toBe(200)
    out.push(r.text)
  }
  return out
}

describe('reading the newest samples in any order', () => {
  test('a record reads back the same whether its run was decoded before or not (chains restart every 60 records)', async () => {
    const t = testApp()
    t.clock.set(T0)
    const a = await tenantWithDevices(t)
    const any = nested(9)
    const items = Array.from({ length: 200 }, (_, i) => ({
      recorded_at: new Date(T0 - 3_000_000 + i * 10_000).toISOString(),
      hardware: { ...hardwareSample(i % 7), vendor_extra: any() },
      network: networkSample(i % 5),
    }))
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })).status).toBe(201)
    const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
    const page = async (q: string) => {
      t.clock.set(t.clock.now() + 1_500) // past the per-minute rate limit
      const res = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?${q}`, { headers })
      expect(res.status).toBe(200)
      return res.body.items as unknown[]
    }
    const all = await page('limit=1000')
    expect(all.length).toBe(200)
    // single samples far apart and back again: runs decoded from their start, evicted, decoded again
    const r = rng(4)
    for (let k = 0; k < 60; k++) {
      const i = Math.floor(r() * 200)
      expect(await page(`limit=1&offset=${i}`)).toEqual([all[i]])
    }
  })
})

describe('the newest samples after a restart', () => {
  test('the in-memory rows are rebuilt from metric_hot: every page reads the same bytes, and ids go on after the last one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-hot-'))
    try {
      const file = join(dir, 'vigil.db')
      const any = nested(5)
      const t = testApp({ db: openDatabase(file) })
      t.clock.set(T0)
      const a = await tenantWithDevices(t)
      const items = Array.from({ length: 150 }, (_, i) => ({
        recorded_at: new Date(T0 - 3_600_000 + i * 10_000).toISOString(),
        hardware: { ...hardwareSample(i % 7), vendor_extra: any() },
        // a part now and then arrives alone, its partner later (a replay)
        ...(i % 10 === 3 ? {} : { network: networkSample(i % 5) }),
      }))
      const r = await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })
      expect(r.status).toBe(201)
      const late = items.filter((_, i) => i % 10 === 3).map((it) => ({ recorded_at: it.recorded_at, network: networkSample(9) }))
      expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: late }, headers: a.keyHeaders })).status).toBe(201)
      const before = await reads(t, a.deviceId, a)
      // the file as a killed process leaves it: the WAL is not checkpointed
      t.db.sqlite.close(false)

      const again = testApp({ db: openDatabase(file), clock: t.clock })
      expect(await reads(again, a.deviceId, a)).toEqual(before)
      const next = await again.request('POST', '/v1/metrics/hardware', { body: { cpu_percent: 1 }, headers: a.keyHeaders })
      expect(next.status).toBe(201)
      const ids = (JSON.parse(before[0]!).items as { id: number }[]).map((i) => i.id)
      expect(next.body.id).toBeGreaterThan(Math.max(...ids))
      again.db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("the sealing job removes a segment's file once all its samples are sealed; the newest ones stay and read the same after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-hot-'))
    try {
      const file = join(dir, 'vigil.db')
      const t = testApp({ db: openDatabase(file) })
      const a = await tenantWithDevices(t)
      const batch = (from: number, n: number) =>
        Array.from({ length: n }, (_, i) => ({
          recorded_at: new Date(from + i * 10_000).toISOString(),
          hardware: hardwareSample(i % 3),
          network: networkSample(i % 4),
        }))
      const post = async (items: unknown[]) =>
        expect((await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })).status).toBe(201)
      // two segments of writing (a file each) whose samples are hours old, then one of samples of now
      t.clock.set(T0)
      await post(batch(T0 - 3 * 3_600_000, 60))
      t.clock.set(T0 + 30 * 60_000)
      await post(batch(T0 - 2 * 3_600_000, 60))
      t.clock.set(T0 + 60 * 60_000)
      await post(batch(T0 + 50 * 60_000, 60))
      // the records in each segment's file, as a restart reads them
      const records = () => {
        const n: Record<number, number> = {}
        for (const r of readRecords(file)) n[r.segment] = (n[r.segment] ?? 0) + 1
        return n
      }
      expect(records()).toEqual({ 0: 60, 1: 60, 2: 60 })
      const before = await reads(t, a.deviceId, a)
      await t.modules.sealer.run()
      expect(records()).toEqual({ 2: 60 })
      expect(readdirSync(`${file}-hot`)).toEqual(['2.log'])
      expect(await reads(t, a.deviceId, a)).toEqual(before)
      t.db.sqlite.close(false)
      const again = testApp({ db: openDatabase(file), clock: t.clock })
      expect(await reads(again, a.deviceId, a)).toEqual(before)
      again.db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
