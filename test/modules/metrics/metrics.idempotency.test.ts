import { describe, expect, test } from 'bun:test'
import { openDatabase } from '../../../src/db/connection'
import { migrate } from '../../../src/db/migrate'
import { MIGRATIONS } from '../../../src/db/migrations.gen'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const rows = (t: TestApp) => t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
const at = (s: number) => new Date(Date.UTC(2025, 11, 31, 23, 0, s)).toISOString()
const batch = (i: number) => ({ recorded_at: at(i), hardware: hardwareSample(i), network: networkSample(i) })

describe('a sample the hub already holds is not stored twice', () => {
  test('the same batch sent again answers 201 with the stored ids and writes nothing', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const first = await t.request('POST', '/v1/metrics/batch', { body: batch(1), headers: a.keyHeaders })
    expect(first.status).toBe(201)
    for (let i = 0; i < 3; i++) {
      const again = await t.request('POST', '/v1/metrics/batch', { body: batch(1), headers: a.keyHeaders })
      expect(again.status).toBe(201)
      expect(again.body).toEqual(first.body)
    }
    expect(rows(t)).toBe(1)
    const single = await t.request('POST', '/v1/metrics/hardware', { body: { ...hardwareSample(1), recorded_at: at(1) }, headers: a.keyHeaders })
    expect(single.body.id).toBe(first.body.hardware.id)
    expect(rows(t)).toBe(1)
  })

  test('identical sends at the same moment (a replay racing a live send) store one row', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.request('POST', '/v1/metrics/batch', { body: batch(7), headers: a.keyHeaders })))
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201))
    expect(new Set(answers.map((r) => r.body.hardware.id)).size).toBe(1)
    expect(rows(t)).toBe(1)
  })

  test('the parts of one time sent separately share a row; a repeat of either is recognised', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const h = await t.request('POST', '/v1/metrics/hardware', { body: { ...hardwareSample(2), recorded_at: at(2) }, headers: a.keyHeaders })
    const n = await t.request('POST', '/v1/metrics/network', { body: { ...networkSample(2), recorded_at: at(2) }, headers: a.keyHeaders })
    expect(n.body.id).toBe(h.body.id)
    const b = await t.request('POST', '/v1/metrics/batch', { body: batch(2), headers: a.keyHeaders })
    expect([b.body.hardware.id, b.body.network.id]).toEqual([h.body.id, h.body.id])
    expect(rows(t)).toBe(1)
    const latest = await t.request('GET', `/v1/metrics/network/${a.deviceId}/latest`, { headers: a.userHeaders })
    expect(latest.body.bytes_sent_total).toBe(networkSample(2).bytes_sent_total)
  })

  test('samples without recorded_at take the hub clock and are never taken for repeats', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    // the manual clock does not move: every one lands in the same millisecond
    const ids = []
    for (let i = 0; i < 3; i++) ids.push((await t.request('POST', '/v1/metrics/batch', { body: { hardware: hardwareSample(i) }, headers: a.keyHeaders })).body)
    expect(new Set(ids.map((r) => r.hardware.id)).size).toBe(3)
    expect(rows(t)).toBe(3)
  })

  test('another device at the same recorded_at is another sample', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 2)
    for (const d of a.deviceIds) await t.request('POST', '/v1/metrics/batch', { body: batch(3), headers: { ...a.keyHeaders, 'x-device-id': d } })
    expect(rows(t)).toBe(2)
  })
})

describe('POST /v1/metrics/bulk', () => {
  test('stores many batches at once; replaying them again stores nothing and says duplicate', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const items = Array.from({ length: 50 }, (_, i) => batch(i))
    const r = await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })
    expect(r.status).toBe(201)
    expect([r.body.stored, r.body.duplicates, r.body.rejected]).toEqual([50, 0, 0])
    expect(r.body.items[0]).toEqual({
      status: 'stored',
      recorded_at: at(0),
      hardware: { id: expect.any(Number) },
      network: { id: expect.any(Number) },
      reason: null,
    })
    expect(rows(t)).toBe(50)
    const again = await t.request('POST', '/v1/metrics/bulk', { body: { items: [...items.slice(40), batch(50)] }, headers: a.keyHeaders })
    expect([again.body.stored, again.body.duplicates]).toEqual([1, 10])
    expect(again.body.items[0].hardware.id).toBe(r.body.items[40].hardware.id)
    expect(again.body.items.at(-1).status).toBe('stored')
    expect(rows(t)).toBe(51)
    const page = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?limit=1000`, { headers: a.userHeaders })
    expect(page.body.total).toBe(51)
  })

  test('a bad item is rejected with its reason; the others are stored', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const future = new Date(t.clock.now() + 3_600_000).toISOString()
    const items = [batch(1), { recorded_at: future, hardware: hardwareSample() }, { recorded_at: at(2) }, batch(3)]
    const r = await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })
    expect(r.status).toBe(201)
    expect(r.body.items.map((i: { status: string }) => i.status)).toEqual(['stored', 'rejected', 'rejected', 'stored'])
    expect(r.body.items[1].reason).toMatch(/future/)
    expect(r.body.items[2].reason).toMatch(/neither/)
    expect(rows(t)).toBe(2)
  })

  test('the same item twice in one request is stored once', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const r = await t.request('POST', '/v1/metrics/bulk', {
      body: { items: [batch(4), batch(4), { recorded_at: at(4), hardware: hardwareSample(4) }] },
      headers: a.keyHeaders,
    })
    expect(r.body.items.map((i: { status: string }) => i.status)).toEqual(['stored', 'duplicate', 'duplicate'])
    expect(rows(t)).toBe(1)
  })

  test('422 for a malformed body: no items, too many, an item without recorded_at; 401 without a key', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    for (const body of [{ items: [] }, { items: Array.from({ length: 501 }, (_, i) => ({ recorded_at: at(i % 60) })) }, { items: [{ hardware: {} }] }, {}]) {
      const r = await t.request('POST', '/v1/metrics/bulk', { body, headers: a.keyHeaders })
      expect(r.status).toBe(422)
    }
    expect(rows(t)).toBe(0)
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: [batch(1)] } })).status).toBe(401)
  })
})

describe('migration to unique (device, time)', () => {
  test('rows stored twice before it are folded into one, the other part kept', () => {
    const db = openDatabase(':memory:')
    const before = MIGRATIONS.filter((m) => m.tag < '0006')
    migrate(db.sqlite, 1, before)
    const s = db.sqlite
    s.run("INSERT INTO clients (id, created_at, updated_at) VALUES ('c1', 1, 1)")
    s.run(
      "INSERT INTO devices (id, client_id, hostname, os, os_version, arch, fingerprint, created_at, updated_at, seq) VALUES ('d1', 'c1', 'h', 'linux', '6', 'x', 'f', 1, 1, 1)",
    )
    const seq = s.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq
    const insert = s.prepare('INSERT INTO metric_samples (device_seq, ts, kinds, cpu_percent, upload_mbps) VALUES (?, ?, ?, ?, ?)')
    insert.run(seq, 1000, 1, 10, null) // hardware, then the same sample again
    insert.run(seq, 1000, 1, 10, null)
    insert.run(seq, 2000, 1, 20, null) // hardware and network sent apart
    insert.run(seq, 2000, 2, null, 5)
    insert.run(seq, 3000, 3, 30, 6) // alone
    migrate(db.sqlite, 2)
    expect(s.query('SELECT ts, kinds, cpu_percent, upload_mbps FROM metric_samples ORDER BY ts').all()).toEqual([
      { ts: 1000, kinds: 1, cpu_percent: 10, upload_mbps: null },
      { ts: 2000, kinds: 3, cpu_percent: 20, upload_mbps: 5 },
      { ts: 3000, kinds: 3, cpu_percent: 30, upload_mbps: 6 },
    ])
    expect(() => insert.run(seq, 3000, 1, 1, null)).toThrow(/UNIQUE/)
  })
})
