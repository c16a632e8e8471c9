import { expect, test } from 'bun:test'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import { statusChecksPort } from '../../../src/modules/checks/checks.status-port'
import { testApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { attempt, makeTcpCheck } from '../../helpers/checks'
import { createTenant } from '../../helpers/fixtures'

test("the status pages' port: views in the order asked (others' ignored), uptime per day with seconds down, response times, incidents", async () => {
  const t = testApp()
  t.clock.set(Date.parse('2026-03-10T12:00:00Z'))
  const a = await createTenant(t)
  const b = await createTenant(t)
  const make = (headers: Record<string, string>, name: string) => makeTcpCheck(t, headers, name)
  const web = await make(a.userHeaders, 'web')
  const db = await make(a.userHeaders, 'db')
  const theirs = await make(b.userHeaders, 'theirs')
  const port = statusChecksPort(t.modules.checks)
  const day = 86_400_000
  const today = Date.parse('2026-03-10T00:00:00Z')
  // yesterday: up, down for an hour from 10:00, up again
  await recordAttempt(t.modules.checks, web, 0, attempt(today - day + 9 * 3600_000, true))
  await recordAttempt(t.modules.checks, web, 0, attempt(today - day + 10 * 3600_000, false))
  await recordAttempt(t.modules.checks, web, 0, attempt(today - day + 11 * 3600_000, true, 150))
  expect((await port.views(a.clientId, [db, theirs, web])).map((v) => [v.name, v.state])).toEqual([
    ['db', 'pending'],
    ['web', 'up'],
  ])
  const days = await port.uptimeByDay(a.clientId, web, 3)
  expect(days).toEqual([
    { day: '2026-03-08', uptime: null, down_s: 0 },
    { day: '2026-03-09', uptime: 66.667, down_s: 3600 },
    { day: '2026-03-10', uptime: null, down_s: 0 },
  ])
  expect(await port.incidents(a.clientId, web, today - 2 * day)).toEqual([
    { started_at: '2026-03-09T10:00:00.000Z', ended_at: '2026-03-09T11:00:00.000Z', cause: 'connection refused' },
  ])
  const times = await port.responseTimes(a.clientId, web, 48)
  expect(times.length).toBeGreaterThan(40)
  expect(times.filter(([, v]) => v !== null).map(([, v]) => v)).toEqual([50, 150])
  expect((await port.uptimeByDay(b.clientId, web, 2)).every((d) => d.uptime === null)).toBe(true)
  expect(await port.incidents(b.clientId, web, 0)).toEqual([])
  expect(await port.responseTimes(b.clientId, web, 24)).toEqual([])
})

test('a deleted device drops out of the checks that ran on it; the check can still be changed', async () => {
  const t = testApp()
  const a = await createTenant(t)
  const device = insertDevice(t, a.clientId)
  t.db.sqlite.run('UPDATE devices SET seq = 800 WHERE id = ?', [device])
  const res = await t.request('POST', '/v1/checks', {
    headers: a.userHeaders,
    body: { name: 'n', kind: 'tcp', settings: { host: 'x.example', port: 1 }, run_on_hub: true, device_ids: [device] },
  })
  expect((await t.request('DELETE', `/v1/clients/me/devices/${device}`, { headers: a.userHeaders })).status).toBe(204)
  const patched = await t.request('PATCH', `/v1/checks/${res.body.id}`, { headers: a.userHeaders, body: { name: 'renamed' } })
  expect(patched.status).toBe(200)
  expect(patched.body).toMatchObject({ name: 'renamed', device_ids: [] })
})
