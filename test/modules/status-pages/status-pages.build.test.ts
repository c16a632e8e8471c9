import { expect, test } from 'bun:test'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import { renderPage } from '../../../src/modules/status-pages/status-pages.render'
import type { PublicItem, PublicPage } from '../../../src/modules/status-pages/status-pages.public-model'
import { testApp } from '../../helpers/app'
import { attempt, makeTcpCheck } from '../../helpers/checks'
import { createTenant } from '../../helpers/fixtures'

test("a page's bars in one go: the same days as asked check by check, another account's check missing", async () => {
  const t = testApp()
  t.clock.set(Date.parse('2026-03-10T12:00:00Z'))
  const a = await createTenant(t)
  const b = await createTenant(t)
  const make = (headers: Record<string, string>, name: string) => makeTcpCheck(t, headers, name)
  const web = await make(a.userHeaders, 'web')
  const db = await make(a.userHeaders, 'db')
  const theirs = await make(b.userHeaders, 'theirs')
  const day = 86_400_000
  for (const [id, back, ok] of [
    [web, 2, true],
    [web, 1, false],
    [web, 0.9, true],
    [db, 5, true],
    [theirs, 1, true],
  ] as const)
    recordAttempt(t.modules.checks, id, 0, attempt(t.clock.now() - back * day, ok))
  const port = t.modules.statusChecks
  const many = port.uptimeByDays(a.clientId, [web, db, theirs, 'chk_none'], 90)
  expect([...many.keys()]).toEqual([web, db])
  expect(many.get(web)).toEqual(port.uptimeByDay(a.clientId, web, 90))
  expect(many.get(db)).toEqual(port.uptimeByDay(a.clientId, db, 90))
  expect(many.get(web)!.at(-2)).toMatchObject({ day: '2026-03-09', uptime: 50 })
})

test("a page's charts in one go: one point an hour, the hour's mean response time, null where nothing answered", async () => {
  const t = testApp()
  t.clock.set(Date.parse('2026-03-10T12:30:00Z'))
  const a = await createTenant(t)
  const b = await createTenant(t)
  const make = (headers: Record<string, string>, name: string) => makeTcpCheck(t, headers, name)
  const web = await make(a.userHeaders, 'web')
  const theirs = await make(b.userHeaders, 'theirs')
  const hour = 3_600_000
  recordAttempt(t.modules.checks, web, 0, attempt(Date.parse('2026-03-10T12:05:00Z'), true, 100))
  recordAttempt(t.modules.checks, web, 0, attempt(Date.parse('2026-03-10T12:10:00Z'), true, 200))
  recordAttempt(t.modules.checks, web, 0, attempt(Date.parse('2026-03-10T10:10:00Z'), true, 40))
  recordAttempt(t.modules.checks, web, 0, attempt(Date.parse('2026-03-09T11:10:00Z'), true, 999)) // 25 hours ago: outside
  const charts = t.modules.statusChecks.hourlyResponseTimes(a.clientId, [web, theirs], 24)
  expect([...charts.keys()]).toEqual([web])
  const points = charts.get(web)!
  expect(points).toHaveLength(24)
  expect(points[0]![0]).toBe(Date.parse('2026-03-09T13:00:00Z'))
  expect(points.at(-1)).toEqual([Date.parse('2026-03-10T12:00:00Z'), 150])
  expect(points.at(-3)).toEqual([Date.parse('2026-03-10T12:00:00Z') - 2 * hour, 40])
  expect(points.at(-2)![1]).toBeNull()
  expect(points.filter((p) => p[1] !== null)).toHaveLength(2)
})

test('the kept bars follow the figures: a day that changes is drawn anew, the same days give the same markup', () => {
  const days = Array.from({ length: 90 }, (_, i) => ({ day: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`, uptime: 1, down_s: 0 }))
  const item = (d: typeof days): PublicItem => ({
    key: 'k',
    name: 'Shop',
    type: 'check',
    state: 'up',
    down_since: null,
    last_checked_at: null,
    uptime_90d: 100,
    days: d,
    response_ms: null,
    response_times: null,
  })
  const page = (d: typeof days): PublicPage => ({
    title: 'T',
    description: '',
    theme: 'auto',
    status: { state: 'operational', text: 'All systems operational' },
    groups: [{ name: 'G', state: 'up', items: [item(d)] }],
    active_notes: [],
    past_notes: [],
    generated_at: '2026-01-28T00:00:00.000Z',
  })
  const first = renderPage(page(days))
  expect(renderPage(page(days.map((d) => ({ ...d }))))).toBe(first)
  const changed = days.map((d, i) => (i === 89 ? { ...d, uptime: 0.5, down_s: 43_200 } : d))
  const second = renderPage(page(changed))
  expect(second).not.toBe(first)
  expect(second).toContain(`<title>${days[89]!.day}: 50.00% up, down 12 h 0 min</title>`)
})
