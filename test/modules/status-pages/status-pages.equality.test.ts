import { expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { keptDays } from '../../../src/modules/status-pages/status-pages.days'
import { testApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'
import { fakeChecksPort, portOf, type FakeCheck } from '../../helpers/status-checks'
import { referenceRender, referenceView } from './status-pages.reference'

const DAY = 86_400_000
const at = '2026-11-27T06:00:00.000Z'
/** 90 days with every kind of figure a bar shows: full, nearly full, minor, major, down, none */
const mixed = Array.from({ length: 90 }, (_, i) => [1, 0.99999, 0.9995, 0.995, 0.96, 0.5, 0, null][i % 8]!)

const CHECKS: FakeCheck[] = [
  { id: 'chk_web', name: 'Website <main> & "shop"', kind: 'http', state: 'up', last_checked_at: at, response_ms: 84.6, days: mixed },
  { id: 'chk_api', name: "API's edge", kind: 'http', state: 'degraded', last_checked_at: at, response_ms: 950, days: mixed.map((d) => d ?? 1) },
  { id: 'chk_db', name: 'db 10.0.0.12', kind: 'tcp', state: 'down', last_checked_at: at, response_ms: null, incidentStart: '2026-11-27T05:12:00.000Z' },
  { id: 'chk_off', name: 'paused one', kind: 'tcp', state: 'paused', last_checked_at: null, response_ms: null, days: Array(90).fill(null) },
  { id: 'chk_new', name: 'new one', kind: 'dns', state: 'pending', last_checked_at: null, response_ms: null },
]

/** One page of every kind of item and note, built by the app (the new build) and by the frozen copy of the old one. */
async function world() {
  const clock = manualClock(Date.parse(at))
  let port: ReturnType<typeof fakeChecksPort> | undefined
  const t = testApp({ clock, statusChecks: portOf(() => port!) })
  const a = await createTenant(t)
  port = fakeChecksPort(a.clientId, CHECKS, clock.now)
  const nas = insertDevice(t, a.clientId, { hostname: 'nas.lan' })
  const gone = insertDevice(t, a.clientId, { hostname: 'backup', lastSeenAt: clock.now() - 2 * DAY })
  const groups = [
    {
      name: 'Public <services>',
      items: [
        { type: 'check', id: 'chk_web', show_name: true, show_response_times: true },
        { type: 'check', id: 'chk_api', label: 'API & edge', show_response_times: true },
        { type: 'check', id: 'chk_db' },
        { type: 'check', id: 'chk_unknown' },
      ],
    },
    { name: 'Empty', items: [] },
    {
      name: 'Servers',
      items: [
        { type: 'device', id: nas, show_name: true },
        { type: 'device', id: gone },
        { type: 'check', id: 'chk_off', show_name: true },
        { type: 'check', id: 'chk_new', show_response_times: true },
        { type: 'check', id: 'chk_web', label: 'Website again' },
      ],
    },
  ]
  const made = await t.request('POST', '/v1/status-pages', {
    headers: a.userHeaders,
    body: { slug: 'acme', title: 'Acme "Cloud" <status>', description: 'What we run & how it runs.', theme: 'dark', groups },
  })
  expect(made.status).toBe(201)
  const post = (body: Record<string, unknown>) => t.request('POST', `/v1/status-pages/${made.body.id}/notes`, { headers: a.userHeaders, body })
  const incident = (await post({ kind: 'incident', title: 'Slow <checkout>', body: 'Looking\ninto it & more.' })).body
  await t.request('POST', `/v1/status-pages/${made.body.id}/notes/${incident.id}/updates`, {
    headers: a.userHeaders,
    body: { state: 'identified', body: 'A "bad" deploy.' },
  })
  await post({ kind: 'maintenance', title: 'Upgrade', body: 'Planned.', state: 'in_progress', ends_at: '2026-11-27T08:00:00Z' })
  await post({ kind: 'incident', title: 'Old outage', body: 'Fixed.', state: 'resolved' })
  const row = (await t.modules.statusPublic.store.pageById(a.clientId, made.body.id))!
  const store = t.modules.statusPublic.store
  const devices = { views: (cid: string, ids: string[]) => t.modules.statusPages.devices.views(cid, ids) }
  const before = async () => {
    const view = await referenceView({ store, clock, checks: port!, devices }, row)
    return { html: referenceRender(view), json: JSON.stringify(view) }
  }
  const after = async () => {
    t.modules.statusPublic.cache.invalidate(row.id)
    const r = await t.modules.statusPublic.cache.get(row)
    return { html: r.html.text, json: r.json().text }
  }
  return { clock, before, after }
}

test('the page built from arrays and kept past days is byte for byte the page the old build made of the same data, HTML and JSON', async () => {
  const { clock, before, after } = await world()
  const first = await after()
  expect(first.html).toBe((await before()).html)
  expect(first.json).toBe((await before()).json)
  expect(first.html).toContain('Website &lt;main&gt; &amp; &quot;shop&quot;: ') // names escaped where the bars are labelled
  expect(first.html.match(/<rect /g)).toHaveLength(90 * 6) // five checks, one of them twice
  // built again: the past days come from what was kept, the same bytes
  expect(keptDays()).toBeGreaterThan(0)
  expect(await after()).toEqual(first)
  // a day later: every bar moves one place left, a new day appears
  clock.advance(DAY)
  const next = await after()
  expect(next.html).toBe((await before()).html)
  expect(next.json).toBe((await before()).json)
  expect(next.html).not.toBe(first.html)
})

test('a past day whose figures change (a late result) is drawn anew, not taken from what was kept', async () => {
  const { before, after } = await world()
  await after()
  const web = CHECKS[0]!
  const saved = web.days
  try {
    web.days = mixed.map((d, i) => (i === 10 ? 0.25 : d))
    const changed = await after()
    expect(changed.html).toBe((await before()).html)
    expect(changed.json).toBe((await before()).json)
    expect(changed.json).toContain('"uptime":0.25')
  } finally {
    web.days = saved
  }
})
