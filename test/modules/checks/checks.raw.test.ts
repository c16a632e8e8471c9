import { describe, expect, test } from 'bun:test'
import { packRawHours, PACK_STEP } from '../../../src/modules/checks/checks.jobs'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import type { Attempt } from '../../../src/modules/checks/checks.attempt'
import { statusChecksPort } from '../../../src/modules/checks/checks.status-port'
import { getCheckDetail, listChecks, resultsPage, series } from '../../../src/modules/checks/checks.views'
import { testApp, type TestApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { makeTcpCheck } from '../../helpers/checks'
import { createTenant } from '../../helpers/fixtures'
import { hardwareSample } from '../../helpers/samples'

const MIN = 60_000
const HOUR = 3_600_000
const NOW = Date.parse('2026-03-10T12:34:56Z')

const attempt = (ts: number, ok: boolean, ms: number, error = 'connection refused', status: number | null = null): Attempt => ({
  ts,
  ok,
  response_ms: ok ? ms : null,
  status_code: status,
  error: ok ? null : error,
  cert_expires_at: null,
})

/** a check run from the hub and a device, with `hours` of attempts at both (some failing, two error texts) */
async function checkWithHistory(hours: number) {
  const t = testApp()
  t.clock.set(NOW)
  const a = await createTenant(t)
  const deviceId = insertDevice(t, a.clientId, { hostname: 'nas' })
  t.db.sqlite.run('UPDATE devices SET seq = 900 WHERE id = ?', [deviceId])
  const res = await t.request('POST', '/v1/checks', {
    headers: a.userHeaders,
    body: { name: 'intranet', kind: 'tcp', settings: { host: 'intranet.example', port: 80 }, run_on_hub: true, device_ids: [deviceId] },
  })
  expect(res.status).toBe(201)
  const id = res.body.id as string
  const place = t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(deviceId)!.seq
  for (let m = hours * 60; m > 0; m--) {
    const ts = NOW - m * MIN + ((m * 7919) % 900)
    await recordAttempt(t.modules.checks, id, 0, attempt(ts, m % 13 !== 0, 20 + ((m * 37) % 300), m % 2 ? 'timeout after 10000 ms' : 'connection refused', 200))
    await recordAttempt(t.modules.checks, id, place, attempt(ts + 17, m % 29 !== 0, 5 + ((m * 11) % 90)))
  }
  return { t, a, id, deviceId, place }
}

/** every read the API and the status pages make of the raw tier */
async function reads(t: TestApp, clientId: string, id: string, deviceId: string) {
  const deps = t.modules.checks
  const seq = (await deps.checks.byId(clientId, id))!.seq
  const port = statusChecksPort(deps)
  return {
    detail: await getCheckDetail(deps, clientId, id),
    list: await listChecks(deps, clientId),
    series: await Promise.all((['1h', '6h', '24h'] as const).map((r) => series(deps, clientId, id, r))),
    pages: await Promise.all([0, 1, 59, 60, 61, 119, 120, 500, 2000].map((offset) => resultsPage(deps, clientId, id, { limit: 50, offset }))),
    device: await resultsPage(deps, clientId, id, { limit: 100, offset: 70, place: deviceId }),
    uptime: await Promise.all([1, 90, 600, 3 * HOUR, 30 * HOUR].map((span) => deps.results.uptime(seq, t.clock.now(), span))),
    lastOk: await deps.results.lastOk(seq),
    responseTimes: await Promise.all([1, 6, 24].map((h) => port.responseTimes(clientId, id, h))),
  }
}

const rowsLeft = (t: TestApp) =>
  t.db.sqlite.query<{ n: number; oldest: number | null }, []>('SELECT count(*) AS n, min(ts) AS oldest FROM check_results').get()!
const packs = (t: TestApp) => t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM check_packs').get()!.n
const immediately = () => Promise.resolve()

describe('the raw tier, rows and packed hours', () => {
  test('every read is the same before and after the finished hours are packed; the current hour stays rows', async () => {
    const { t, a, id, deviceId } = await checkWithHistory(30)
    const before = await reads(t, a.clientId, id, deviceId)
    expect(before.pages[0]!.total).toBe(3600)
    // 30 hours started before 12:34:56 at two places: 31 clock hours each, 12:00 still going
    expect(await packRawHours({ ...t.modules.checks, pause: immediately })).toBe(2 * 30)
    expect(packs(t)).toBe(2 * 30)
    expect(rowsLeft(t).oldest).toBeGreaterThanOrEqual(Date.parse('2026-03-10T12:00:00Z'))
    expect(await reads(t, a.clientId, id, deviceId)).toEqual(before)
    // nothing left to pack until the hour ends
    expect(await packRawHours({ ...t.modules.checks, pause: immediately })).toBe(0)
  })

  test('an attempt that arrives for an hour already packed is merged into it once; its replay changes nothing', async () => {
    const { t, a, id } = await checkWithHistory(3)
    await packRawHours({ ...t.modules.checks, pause: immediately })
    const packed = packs(t)
    const late = NOW - 2 * HOUR + 30_000
    const seq = (await t.modules.checks.checks.byId(a.clientId, id))!.seq
    const all = () => t.modules.checks.results.page(seq, -1, 1000, 0)
    const before = await all()
    const hour = t.db.sqlite.query<{ total: number }, [number]>('SELECT total FROM check_hours WHERE hour = ?')
    const hourTotal = hour.get(Math.floor(late / HOUR))!.total
    expect(await recordAttempt(t.modules.checks, id, 0, attempt(late, false, 0, 'late and new'))).not.toBeNull()
    expect(await recordAttempt(t.modules.checks, id, 0, attempt(late, false, 0, 'late and new'))).toBeNull()
    // an attempt the packed hour holds already is a replay too
    const held = before.rows.find((r) => r.ts < late - HOUR / 2)!
    expect(await recordAttempt(t.modules.checks, id, held.place, attempt(held.ts, true, 1))).toBeNull()
    const after = await all()
    expect(after.total).toBe(before.total + 1)
    expect(after.rows.filter((r) => r.error === 'late and new').map((r) => r.ts)).toEqual([late])
    expect(after.rows.filter((r) => r.ts !== late)).toEqual(before.rows)
    expect(packs(t)).toBe(packed)
    expect(rowsLeft(t).oldest).toBeGreaterThanOrEqual(Math.floor(NOW / HOUR) * HOUR)
    expect(hour.get(Math.floor(late / HOUR))!.total).toBe(hourTotal + 1)
  })

  test('packing an hour and deleting its rows is one transaction: when the delete fails, the rows stay and nothing is packed', async () => {
    const { t, a, id, deviceId } = await checkWithHistory(2)
    const before = await reads(t, a.clientId, id, deviceId)
    const rows = rowsLeft(t).n
    t.db.sqlite.run("CREATE TRIGGER no_delete BEFORE DELETE ON check_results BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
    await expect(packRawHours({ ...t.modules.checks, pause: immediately })).rejects.toThrow('disk I/O error')
    expect(packs(t)).toBe(0)
    expect(rowsLeft(t).n).toBe(rows)
    t.db.sqlite.run('DROP TRIGGER no_delete')
    expect(await packRawHours({ ...t.modules.checks, pause: immediately })).toBeGreaterThan(0)
    expect(await reads(t, a.clientId, id, deviceId)).toEqual(before)
  })

  test('a database from before packing (48 h of rows) is converted in steps, every read correct between them', async () => {
    const { t, a, id, deviceId } = await checkWithHistory(48)
    const before = await reads(t, a.clientId, id, deviceId)
    const steps: number[] = []
    await packRawHours({
      ...t.modules.checks,
      pause: async () => {
        steps.push(packs(t))
        expect(await reads(t, a.clientId, id, deviceId)).toEqual(before)
      },
    })
    // 48 clock hours before the current one at two places: a step of PACK_STEP, then the rest
    expect(steps).toEqual([PACK_STEP])
    expect(packs(t)).toBe(96)
    expect(await reads(t, a.clientId, id, deviceId)).toEqual(before)
  })

  test('attempts are kept 48 hours in both forms: a packed hour goes once all of it is older', async () => {
    const { t, a, id } = await checkWithHistory(3)
    await packRawHours({ ...t.modules.checks, pause: immediately })
    const total = async () => (await resultsPage(t.modules.checks, a.clientId, id, { limit: 1, offset: 0 })).total
    expect(await total()).toBe(360)
    // 48 h after 10:30 the hour 09:00 is all older, 10:00 not yet
    t.clock.set(Date.parse('2026-03-12T10:30:00Z'))
    await packRawHours({ ...t.modules.checks, pause: immediately })
    const hours = t.db.sqlite.query<{ hour: number }, []>('SELECT DISTINCT hour FROM check_packs ORDER BY hour').all()
    expect(hours.map((h) => new Date(h.hour * HOUR).toISOString().slice(11, 16))).toEqual(['10:00', '11:00', '12:00'])
    expect(rowsLeft(t).n).toBe(0)
    t.clock.set(Date.parse('2026-03-12T13:00:00Z'))
    await packRawHours({ ...t.modules.checks, pause: immediately })
    expect(await total()).toBe(0)
  })

  test('the last success is found in a packed hour when the hours since have only failed', async () => {
    const { t, a, id, place } = await checkWithHistory(3)
    const seq = (await t.modules.checks.checks.byId(a.clientId, id))!.seq
    const failingSince = (Math.floor(NOW / HOUR) - 1) * HOUR
    // nothing but failures from the hour before this one on, at both places
    t.db.sqlite.run('UPDATE check_results SET ok = 0 WHERE ts >= ?', [failingSince])
    const rows = (await t.modules.checks.results.page(seq, -1, 1000, 0)).rows
    const lastOk = rows.find((r) => r.ok === 1)!
    expect(lastOk.ts).toBeLessThan(failingSince)
    // the newest success is the device's (its attempts come 17 ms after the hub's)
    expect(lastOk.place).toBe(place)
    await packRawHours({ ...t.modules.checks, pause: immediately })
    expect(await t.modules.checks.results.lastOk(seq)).toBe(lastOk.ts)
  })
  test('an agent replaying a batch for an hour already packed stores its new attempts once (POST /v1/metrics/batch)', async () => {
    const { t, a, id, deviceId } = await checkWithHistory(3)
    await packRawHours({ ...t.modules.checks, pause: immediately })
    const total = async () => (await t.request('GET', `/v1/checks/${id}/results?limit=1`, { headers: a.userHeaders })).body.total as number
    const before = await total()
    const late = new Date(NOW - 2 * HOUR + 1234).toISOString()
    const batch = {
      hardware: hardwareSample(0),
      check_results: [{ check_id: id, ts: late, ok: true, response_ms: 42, status_code: 204, error: null, cert_expires_at: null }],
    }
    for (let i = 0; i < 2; i++) {
      const res = await t.request('POST', '/v1/metrics/batch', { headers: { ...a.keyHeaders, 'x-device-id': deviceId }, body: batch })
      expect(res.status).toBe(201)
    }
    expect(await total()).toBe(before + 1)
    const page = await t.request('GET', `/v1/checks/${id}/results?limit=1000&place=${deviceId}`, { headers: a.userHeaders })
    expect(page.body.items.filter((r: { ts: string }) => r.ts === late)).toEqual([
      { ts: late, place: deviceId, ok: true, response_ms: 42, status_code: 204, error: null },
    ])
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM check_results WHERE ts < ?').get(Math.floor(NOW / HOUR) * HOUR)).toEqual({ n: 0 })
  })

  test('a stored row the codec cannot hold as it is (a fractional or negative response time) is rounded, and does not hold up the rest', async () => {
    const { t, a, id } = await checkWithHistory(2)
    const seq = (await t.modules.checks.checks.byId(a.clientId, id))!.seq
    t.db.sqlite.run('UPDATE check_results SET response_ms = 12.7 WHERE ts = (SELECT min(ts) FROM check_results WHERE ok = 1)')
    t.db.sqlite.run('UPDATE check_results SET response_ms = -3 WHERE ts = (SELECT max(ts) FROM check_results WHERE ok = 1 AND ts < ?)', [
      Math.floor(NOW / HOUR) * HOUR,
    ])
    await packRawHours({ ...t.modules.checks, pause: immediately })
    expect(rowsLeft(t).oldest).toBeGreaterThanOrEqual(Math.floor(NOW / HOUR) * HOUR)
    const times = (await t.modules.checks.results.page(seq, -1, 1000, 0)).rows.map((r) => r.response_ms)
    expect(times).toContain(13)
    expect(times).toContain(0)
  })

  test("a check's removal takes its packed hours with it", async () => {
    const { t, a, id } = await checkWithHistory(2)
    await packRawHours({ ...t.modules.checks, pause: immediately })
    expect(packs(t)).toBeGreaterThan(0)
    expect((await t.request('DELETE', `/v1/checks/${id}`, { headers: a.userHeaders })).status).toBe(204)
    expect(packs(t)).toBe(0)
    expect(rowsLeft(t).n).toBe(0)
  })

  test('the tenant reading another check sees none of these attempts', async () => {
    const { t, id } = await checkWithHistory(1)
    const b = await createTenant(t)
    await makeTcpCheck(t, b.userHeaders, 'theirs')
    expect((await t.request('GET', `/v1/checks/${id}/results`, { headers: b.userHeaders })).status).toBe(404)
  })
})
