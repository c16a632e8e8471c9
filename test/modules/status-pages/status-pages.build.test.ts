import { expect, test } from 'bun:test'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import { SETTLED_REREAD_MS } from '../../../src/modules/checks/checks.status-port'
import { renderPage } from '../../../src/modules/status-pages/status-pages.render'
import type { PublicPage } from '../../../src/modules/status-pages/status-pages.public-model'
import type { PageData, PageDays, PageItem } from '../../../src/modules/status-pages/status-pages.view'
import { testApp } from '../../helpers/app'
import { attempt, makeTcpCheck } from '../../helpers/checks'
import { createTenant } from '../../helpers/fixtures'

test("a page's checks in one go: the same days as asked check by check (uptime as a fraction), the open incident, another account's check missing", async () => {
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
    [db, 0.5, false],
    [theirs, 1, true],
  ] as const)
    await recordAttempt(t.modules.checks, id, 0, attempt(t.clock.now() - back * day, ok))
  const port = t.modules.statusChecks
  const page = await port.pageChecks(a.clientId, [db, web, theirs, 'chk_none', web], { days: 90, hours: 24, charted: [] })
  expect([...page.checks.keys()]).toEqual([db, web])
  expect(page.firstDay).toBe(Date.parse('2025-12-11T00:00:00Z') / day)
  for (const id of [web, db]) {
    const one = await port.uptimeByDay(a.clientId, id, 90)
    const got = page.checks.get(id)!
    expect(Array.from(got.uptime, (u) => (Number.isNaN(u) ? null : Math.round(u * 1e5) / 1e3))).toEqual(one.map((d) => d.uptime))
    expect(Array.from(got.down_s)).toEqual(one.map((d) => d.down_s))
    expect(got.hourly).toBeNull()
  }
  const webDays = page.checks.get(web)!
  expect(webDays.uptime[88]).toBe(0.5)
  expect(webDays.down_s[88]).toBe(0.1 * 86_400)
  expect(webDays.down_since).toBeNull()
  expect(page.checks.get(db)).toMatchObject({ state: 'down', down_since: new Date(t.clock.now() - 0.5 * day).toISOString() })
  expect(page.checks.get(db)!.down_s[89]).toBe(0.5 * 86_400)
})

test("a check's past days and hours are read again when a late result lands in one of them, and when a new day or hour begins", async () => {
  const t = testApp()
  t.clock.set(Date.parse('2026-03-10T12:30:00Z'))
  const a = await createTenant(t)
  const web = await makeTcpCheck(t, a.userHeaders, 'web')
  const day = 86_400_000
  const hour = 3_600_000
  // as the hub's probes, heartbeats and agents' batches store an attempt: the module hears each one
  const store = async (ts: number, ok: boolean, ms?: number) => {
    const change = await recordAttempt(t.modules.checks, web, 0, attempt(ts, ok, ms))
    if (change) t.modules.checks.stateChanged(change)
  }
  await store(t.clock.now() - 3 * day, true)
  await store(t.clock.now() - 3 * hour, true, 100)
  const read = async () => (await t.modules.statusChecks.pageChecks(a.clientId, [web], { days: 90, hours: 24, charted: [web] })).checks.get(web)!
  expect((await read()).uptime[86]).toBe(1)
  expect((await read()).hourly![20]).toBe(100)
  // on time: today's figures move, the kept past stays
  await store(t.clock.now(), true, 50)
  expect((await read()).hourly![23]).toBe(50)
  // an agent replays attempts of three days and three hours ago
  await store(t.clock.now() - 3 * day + 60_000, false)
  await store(t.clock.now() - 3 * hour + 60_000, true, 300)
  expect((await read()).uptime[86]).toBe(0.5)
  expect((await read()).hourly![20]).toBe(200)
  t.clock.advance(hour)
  expect((await read()).hourly![19]).toBe(200)
  expect((await read()).hourly![20]).toBeNaN()
  t.clock.advance(day)
  const next = await read()
  expect(next.uptime[85]).toBe(0.5)
  expect(next.uptime[86]).toBeNaN()
})

test('a write to the summaries that the module did not announce shows within SETTLED_REREAD_MS (not before half of it): the kept past is read again', async () => {
  const t = testApp()
  t.clock.set(Date.parse('2026-03-10T12:30:00Z'))
  const a = await createTenant(t)
  const web = await makeTcpCheck(t, a.userHeaders, 'web')
  const day = 86_400_000
  await recordAttempt(t.modules.checks, web, 0, attempt(t.clock.now() - 3 * day, true))
  const read = async () => (await t.modules.statusChecks.pageChecks(a.clientId, [web], { days: 90, hours: 24, charted: [] })).checks.get(web)!
  expect((await read()).uptime[86]).toBe(1)
  await recordAttempt(t.modules.checks, web, 0, attempt(t.clock.now() - 3 * day + 60_000, false)) // stored, not announced
  t.clock.advance(SETTLED_REREAD_MS / 2 - 1) // each check is read again after half to all of it, by its id
  expect((await read()).uptime[86]).toBe(1)
  t.clock.advance(SETTLED_REREAD_MS / 2 + 1)
  expect((await read()).uptime[86]).toBe(0.5)
})

test('a public page built from the real checks module shows uptime in percent: a day two thirds up reads 66.66%, not 6666.70%', async () => {
  const t = testApp()
  t.clock.set(Date.parse('2026-03-10T12:00:00Z'))
  const a = await createTenant(t)
  const web = await makeTcpCheck(t, a.userHeaders, 'web')
  const day = 86_400_000
  await recordAttempt(t.modules.checks, web, 0, attempt(t.clock.now() - 1.5 * day, true))
  await recordAttempt(t.modules.checks, web, 0, attempt(t.clock.now() - 1.4 * day, false))
  await recordAttempt(t.modules.checks, web, 0, attempt(t.clock.now() - 1.3 * day, true))
  await recordAttempt(t.modules.checks, web, 0, attempt(t.clock.now() - 0.1 * day, true))
  const made = await t.request('POST', '/v1/status-pages', {
    headers: a.userHeaders,
    body: { slug: 'shop', title: 'Shop', groups: [{ name: 'Web', items: [{ type: 'check', id: web, key: 'web', show_name: true }] }] },
  })
  expect(made.status).toBe(201)
  const html = await (await t.handle(new Request('http://localhost/status/shop'))).text()
  expect(html).toContain('<title>2026-03-09: 66.66% up, down 2 h 24 min</title>')
  expect(html).toContain('<title>2026-03-10: 100.00% up</title>')
  expect(html).toContain('aria-label="web: 83.33% uptime over the last 90 days, one bar per day"')
  const json = (await (await t.handle(new Request('http://localhost/status/shop.json'))).json()) as PublicPage
  expect(json.groups[0]!.items[0]!.days!.at(-2)).toEqual({ day: '2026-03-09', uptime: 0.66667, down_s: 8640 })
  expect(json.groups[0]!.items[0]!.uptime_90d).toBe(83.33)
})

test("a page's charts in one go: one point an hour, the hour's mean response time, NaN where nothing answered", async () => {
  const t = testApp()
  t.clock.set(Date.parse('2026-03-10T12:30:00Z'))
  const a = await createTenant(t)
  const b = await createTenant(t)
  const make = (headers: Record<string, string>, name: string) => makeTcpCheck(t, headers, name)
  const web = await make(a.userHeaders, 'web')
  const other = await make(a.userHeaders, 'other')
  const theirs = await make(b.userHeaders, 'theirs')
  await recordAttempt(t.modules.checks, web, 0, attempt(Date.parse('2026-03-10T12:05:00Z'), true, 100))
  await recordAttempt(t.modules.checks, web, 0, attempt(Date.parse('2026-03-10T12:10:00Z'), true, 200))
  await recordAttempt(t.modules.checks, web, 0, attempt(Date.parse('2026-03-10T10:10:00Z'), true, 40))
  await recordAttempt(t.modules.checks, web, 0, attempt(Date.parse('2026-03-09T11:10:00Z'), true, 999)) // 25 hours ago: outside
  const page = await t.modules.statusChecks.pageChecks(a.clientId, [web, other, theirs], { days: 90, hours: 24, charted: [web, theirs] })
  expect([...page.checks.keys()]).toEqual([web, other])
  expect(page.checks.get(other)!.hourly).toBeNull()
  const points = page.checks.get(web)!.hourly!
  expect(points).toHaveLength(24)
  expect(page.firstHourMs).toBe(Date.parse('2026-03-09T13:00:00Z'))
  expect(points.at(-1)).toBe(150)
  expect(points.at(-3)).toBe(40)
  expect(points.at(-2)).toBeNaN()
  expect(points.filter((p) => !Number.isNaN(p))).toHaveLength(2)
})

test('the kept bars follow the figures: a past day that changes is drawn anew, the same days give the same markup', async () => {
  const firstDay = Date.parse('2025-10-31T00:00:00Z') / 86_400_000
  const days: PageDays = { id: 'chk_kept', firstDay, uptime: new Float64Array(90).fill(1), down_s: new Float64Array(90) }
  const item = (d: PageDays): PageItem => ({
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
  const page = (d: PageDays): PageData => ({
    title: 'T',
    description: '',
    theme: 'auto',
    status: { state: 'operational', text: 'All systems operational' },
    groups: [{ name: 'G', state: 'up', items: [item(d)] }],
    active_notes: [],
    past_notes: [],
    generated_at: '2026-01-28T00:00:00.000Z',
  })
  const copy = (d: PageDays): PageDays => ({ ...d, uptime: d.uptime.slice(), down_s: d.down_s.slice() })
  const first = renderPage(page(days))
  expect(renderPage(page(copy(days)))).toBe(first)
  for (const i of [89, 3]) {
    const changed = copy(days)
    changed.uptime[i] = 0.5
    changed.down_s[i] = 43_200
    const second = renderPage(page(changed))
    expect(second).not.toBe(first)
    expect(second).toContain(`<title>${i === 89 ? '2026-01-28' : '2025-11-03'}: 50.00% up, down 12 h 0 min</title>`)
    expect(renderPage(page(days))).toBe(first)
  }
  const later = copy(days)
  later.firstDay++
  expect(renderPage(page(later))).toContain('<title>2025-11-01: 100.00% up</title>')
  expect(renderPage(page(later))).not.toContain('2025-10-31')
})
