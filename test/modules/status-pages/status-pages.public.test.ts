import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'
import { portOf, fakeChecksPort, type FakeCheck } from '../../helpers/status-checks'
import { manualClock } from '../../../src/lib/clock'

const CHECKS: FakeCheck[] = [
  { id: 'chk_site', name: 'https://intranet.corp.example/login', kind: 'http', state: 'up', last_checked_at: '2026-01-01T00:00:00.000Z', response_ms: 123 },
  {
    id: 'chk_db',
    name: 'db-primary 10.0.0.12:5432',
    kind: 'tcp',
    state: 'down',
    last_checked_at: '2026-01-01T00:00:00.000Z',
    response_ms: null,
    cause: 'connect ECONNREFUSED 10.0.0.12:5432',
    incidentStart: '2025-12-31T23:50:00.000Z',
    days: [...Array(88).fill(1), 0.5, null],
  },
]

/** An app whose checks port is the in-memory fake, a tenant, a device and a page showing them. */
async function world(items?: unknown[]) {
  const clock = manualClock()
  let port: ReturnType<typeof fakeChecksPort> | undefined
  const t = testApp({
    clock,
    statusChecks: portOf(() => port!),
  })
  const a = await createTenant(t)
  port = fakeChecksPort(a.clientId, CHECKS, clock.now)
  const dev = insertDevice(t, a.clientId, { hostname: 'nas-basement.lan' })
  const groups = [
    {
      name: 'Web & <APIs>',
      items: items ?? [
        { type: 'check', id: 'chk_site', label: 'Website', key: 'website', show_response_times: true },
        { type: 'check', id: 'chk_db', key: 'database' },
        { type: 'device', id: dev, key: 'nas' },
        { type: 'check', id: 'chk_unknown', key: 'ghost' },
      ],
    },
  ]
  const page = await t.request('POST', '/v1/status-pages', {
    headers: a.userHeaders,
    body: { slug: 'acme', title: 'Acme <Status>', custom_domain: 'status.acme.test', groups },
  })
  expect(page.status).toBe(201)
  return { t, a, dev, page: page.body, port: port!, clock }
}

describe('the public page', () => {
  test('shows states, 90-day bars with a title per day, the response-time chart, and the banner', async () => {
    const { t } = await world()
    const res = await t.request('GET', '/status/acme')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = res.text
    expect(html).toContain('<title>Acme &lt;Status&gt; status</title>')
    expect(html).toContain('Web &amp; &lt;APIs&gt;')
    expect(html).toContain('Partial outage')
    expect(html).toContain('<h3>Website</h3>')
    expect(html).toContain('<h3>Service 2</h3>') // no label, name not shown: a neutral name
    expect(html).toContain('<h3>Server 1</h3>')
    expect(html.match(/<rect class="d-/g)?.length).toBe(180) // 90 bars for each of the two checks
    expect(html).toContain('<title>2025-12-31: 50.00% up, down 12 h 0 min</title>')
    expect(html).toContain('<title>2026-01-01: no data</title>')
    expect(html).toContain('class="chart"')
    expect(html).toContain('Down since <time datetime="2025-12-31T23:50:00.000Z">')
    expect(html).not.toContain('ghost') // an unknown check is left out
    expect(html).not.toMatch(/<script src|<link|https?:\/\/(?!www\.w3\.org)/) // nothing from anywhere else
  })

  test('nothing private leaks: ids, hostnames, addresses, check targets and errors', async () => {
    const { t, dev, a, page } = await world()
    const html = (await t.request('GET', '/status/acme')).text
    const json = (await t.request('GET', '/status/acme.json')).text
    const badge = (await t.request('GET', '/status/acme/badge/database/status.svg')).text
    for (const secret of [dev, a.clientId, page.id, 'chk_site', 'chk_db', 'nas-basement', 'intranet.corp', '10.0.0.12', 'ECONNREFUSED', 'db-primary']) {
      expect({ secret, html: html.includes(secret), json: json.includes(secret), badge: badge.includes(secret) }).toEqual({
        secret,
        html: false,
        json: false,
        badge: false,
      })
    }
  })

  test("the team's choice to show a name is what shows it; a device deleted since is left out", async () => {
    const { t, a, dev } = await world()
    await t.request('POST', '/v1/status-pages', {
      headers: a.userHeaders,
      body: { slug: 'named', title: 'N', groups: [{ name: 'G', items: [{ type: 'device', id: dev, show_name: true }] }] },
    })
    expect((await t.request('GET', '/status/named.json')).body.groups[0].items[0]).toMatchObject({ name: 'nas-basement.lan', type: 'device', state: 'up' })
    await t.request('DELETE', `/v1/clients/me/devices/${dev}`, { headers: a.userHeaders })
    t.clock.advance(30_000) // the cached render expires
    expect((await t.request('GET', '/status/named.json')).body.groups[0].items).toEqual([])
  })

  test('the JSON holds the same data as the page', async () => {
    const { t } = await world()
    const res = await t.request('GET', '/status/acme.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(res.headers.get('access-control-allow-origin')).toBe('*') // any site's script may read the public data
    expect((await t.request('GET', '/status/acme')).headers.get('access-control-allow-origin')).toBeNull()
    expect(res.body.status).toEqual({ state: 'partial_outage', text: 'Partial outage' })
    const [site, db, nas] = res.body.groups[0].items
    expect(site).toMatchObject({ key: 'website', name: 'Website', state: 'up', uptime_90d: 100, response_ms: 123 })
    expect(site.days).toHaveLength(90)
    expect(site.response_times).toHaveLength(24)
    expect(db).toMatchObject({
      key: 'database',
      name: 'Service 2',
      state: 'down',
      down_since: '2025-12-31T23:50:00.000Z',
      response_ms: null,
      response_times: null,
    })
    expect(db.uptime_90d).toBe(99.44)
    expect(nas).toMatchObject({ key: 'nas', name: 'Server 1', state: 'up', days: null, uptime_90d: null })
    expect(res.body.groups[0].state).toBe('down')
  })

  test('ETag and Cache-Control; If-None-Match answers 304', async () => {
    const { t } = await world()
    for (const path of ['/status/acme', '/status/acme.json', '/status/acme/badge/website/status.svg', '/status/acme/badge/website/uptime.svg?days=7']) {
      const first = await t.request('GET', path)
      expect(first.status).toBe(200)
      expect(first.headers.get('cache-control')).toBe('public, max-age=30')
      const etag = first.headers.get('etag')!
      expect(etag).toMatch(/^".+"$/)
      const again = await t.request('GET', path, { headers: { 'if-none-match': `W/${etag}, "other"` } })
      expect({ path, status: again.status, text: again.text }).toEqual({ path, status: 304, text: '' })
      expect((await t.request('GET', path, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200)
    }
  })

  test('a caller that takes gzip gets it, under an ETag of its own', async () => {
    const { t } = await world()
    const plain = await t.request('GET', '/status/acme')
    const res = await t.handle(new Request('http://localhost/status/acme', { headers: { 'accept-encoding': 'gzip, deflate, br' } }))
    expect(res.headers.get('content-encoding')).toBe('gzip')
    expect(res.headers.get('vary')).toBe('Accept-Encoding')
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect(bytes.length).toBeLessThan(plain.text.length / 5)
    expect(new TextDecoder().decode(Bun.gunzipSync(bytes))).toBe(plain.text)
    expect(res.headers.get('etag')).not.toBe(plain.headers.get('etag'))
  })

  test('the render cache serves one build until the page changes or 30 s pass', async () => {
    const { t, a, page, port, clock } = await world()
    await t.request('GET', '/status/acme')
    await t.request('GET', '/status/acme.json')
    await t.request('GET', '/status/acme/badge/website/status.svg')
    expect(port.calls).toBe(1)
    clock.advance(29_000)
    await t.request('GET', '/status/acme')
    expect(port.calls).toBe(1)
    clock.advance(1_000)
    await t.request('GET', '/status/acme')
    expect(port.calls).toBe(2)
    // a change by the team shows at once
    await t.request('PATCH', `/v1/status-pages/${page.id}`, { headers: a.userHeaders, body: { title: 'Renamed' } })
    expect((await t.request('GET', '/status/acme')).text).toContain('<h1>Renamed</h1>')
    expect(port.calls).toBe(3)
    await t.request('POST', `/v1/status-pages/${page.id}/notes`, {
      headers: a.userHeaders,
      body: { kind: 'incident', title: 'DB down', body: 'On it <b>now</b>' },
    })
    const html = (await t.request('GET', '/status/acme')).text
    expect(html).toContain('Current notices')
    expect(html).toContain('On it &lt;b&gt;now&lt;/b&gt;')
  })

  test('notes: open ones on top, closed ones under past notices for 14 days; maintenance in progress shows in the banner', async () => {
    const { t, a, page, clock } = await world([])
    const post = (body: Record<string, unknown>) => t.request('POST', `/v1/status-pages/${page.id}/notes`, { headers: a.userHeaders, body })
    const m = (await post({ kind: 'maintenance', title: 'Upgrade', body: 'Planned.', state: 'in_progress' })).body
    const old = (await post({ kind: 'incident', title: 'Old outage', body: 'Fixed.', state: 'resolved' })).body
    let json = (await t.request('GET', '/status/acme.json')).body
    expect(json.status.state).toBe('maintenance')
    expect(json.active_notes.map((n: { title: string }) => n.title)).toEqual(['Upgrade'])
    expect(json.past_notes.map((n: { title: string }) => n.title)).toEqual(['Old outage'])
    await t.request('POST', `/v1/status-pages/${page.id}/notes/${m.id}/updates`, { headers: a.userHeaders, body: { state: 'completed', body: 'Done.' } })
    clock.advance(15 * 86400_000)
    json = (await t.request('GET', '/status/acme.json')).body
    expect(json.status.state).toBe('operational')
    expect(json.past_notes).toEqual([])
    void old
  })

  test('badges: status and uptime of an item by key, text escaped; unknown item or file is 404', async () => {
    const { t } = await world()
    const status = await t.request('GET', '/status/acme/badge/database/status.svg')
    expect(status.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8')
    expect(status.text).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"')
    expect(status.text).toContain('<title>Service 2: down</title>')
    const uptime = await t.request('GET', '/status/acme/badge/database/uptime.svg?days=2')
    expect(uptime.text).toContain('Service 2 uptime 2d: 50.00%') // the 0.5 day and the one without data
    expect((await t.request('GET', '/status/acme/badge/website/uptime.svg')).text).toContain('100.00%')
    expect((await t.request('GET', '/status/acme/badge/nas/uptime.svg')).text).toContain('no data')
    expect((await t.request('GET', '/status/acme/badge/website/uptime.svg?days=91')).status).toBe(422)
    expect((await t.request('GET', '/status/acme/badge/ghost/status.svg')).status).toBe(404)
    expect((await t.request('GET', '/status/acme/badge/website/other.svg')).status).toBe(404)
    const { t: t2, a } = await world()
    await t2.request('POST', '/v1/status-pages', {
      headers: a.userHeaders,
      body: { slug: 'esc', title: 'E', groups: [{ name: 'G', items: [{ type: 'check', id: 'chk_site', key: 'k', label: '<script>&"' }] }] },
    })
    const escaped = (await t2.request('GET', '/status/esc/badge/k/status.svg')).text
    expect(escaped).toContain('&lt;script&gt;&amp;&quot;')
    expect(escaped).not.toContain('<script>')
  })

  test('an unknown slug and an unpublished page answer the same 404: a page for a browser, the error body otherwise', async () => {
    const { t, a, page } = await world()
    const browser = { accept: 'text/html' }
    const unknown = await t.request('GET', '/status/nothing-here', { headers: browser })
    await t.request('PATCH', `/v1/status-pages/${page.id}`, { headers: a.userHeaders, body: { published: false } })
    const hidden = await t.request('GET', '/status/acme', { headers: browser })
    expect(unknown.status).toBe(404)
    expect(hidden.status).toBe(404)
    expect(hidden.text).toBe(unknown.text)
    expect(hidden.text).toContain('No status page here')
    expect((await t.request('GET', '/status/acme.json')).body.error.code).toBe('not_found')
    expect((await t.request('GET', '/status/acme/badge/website/status.svg')).status).toBe(404)
    expect((await t.request('GET', '/', { headers: { host: 'status.acme.test' } })).text).not.toContain('Acme')
    expect((await t.request('GET', `/status/${'x'.repeat(500)}`, { headers: browser })).status).toBe(404)
    expect((await t.request('GET', '/status/acme')).body.error.code).toBe('not_found')
  })

  test('a custom domain gets its page at /; other hosts get the landing page', async () => {
    const { t } = await world()
    expect((await t.request('GET', '/', { headers: { host: 'status.acme.test.' } })).text).toContain('<h1>Acme &lt;Status&gt;</h1>')
    const mapped = await t.request('GET', '/', { headers: { host: 'Status.Acme.test:443' } })
    expect(mapped.status).toBe(200)
    expect(mapped.text).toContain('<h1>Acme &lt;Status&gt;</h1>')
    expect(mapped.headers.get('etag')).toBeTruthy()
    const landing = await t.request('GET', '/', { headers: { host: 'vigil.example.test' } })
    expect(landing.text).not.toContain('Acme')
  })

  test('the page is rate-limited like every anonymous path', async () => {
    const { t } = await world()
    const headers = { 'x-forwarded-for': '203.0.113.9' }
    const statuses: number[] = []
    for (let i = 0; i < 61; i++) statuses.push((await t.request('GET', '/status/acme', { headers })).status)
    expect(statuses.slice(0, 60).every((s) => s === 200 || s === 429)).toBe(true)
    expect(statuses.at(-1)).toBe(429)
  })
})
