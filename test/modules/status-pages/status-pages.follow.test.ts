import { describe, expect, test } from 'bun:test'
import { recordAttempt } from '../../../src/modules/checks/checks.record'
import type { Attempt } from '../../../src/modules/checks/checks.attempt'
import { forgetItem } from '../../../src/modules/status-pages/status-pages.service'
import { testApp, type TestApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'

const ok = (ts: number): Attempt => ({ ts, ok: true, response_ms: 80, status_code: 200, error: null, cert_expires_at: null })
const fail = (ts: number): Attempt => ({ ts, ok: false, response_ms: null, status_code: null, error: 'connection refused', cert_expires_at: null })

async function check(t: TestApp, headers: Record<string, string>, name: string) {
  const res = await t.request('POST', '/v1/checks', {
    headers,
    body: { name, kind: 'tcp', settings: { host: 'shop.example', port: 443 }, down_after: 1, up_after: 1 },
  })
  expect(res.status).toBe(201)
  return res.body.id as string
}

/** The real checks module, a tenant with two checks and a device, and a page listing all three. */
async function world() {
  const t = testApp()
  const a = await createTenant(t)
  const shop = await check(t, a.userHeaders, 'shop')
  const api = await check(t, a.userHeaders, 'api')
  const dev = insertDevice(t, a.clientId, { hostname: 'nas.lan' })
  const groups = [
    {
      name: 'Web',
      items: [
        { type: 'check', id: shop, key: 'shop', show_name: true },
        { type: 'check', id: api, key: 'api', show_name: true },
      ],
    },
    { name: 'Servers', items: [{ type: 'device', id: dev, key: 'nas', show_name: true }] },
  ]
  const page = await t.request('POST', '/v1/status-pages', { headers: a.userHeaders, body: { slug: 'acme', title: 'Acme', groups } })
  expect(page.status).toBe(201)
  const attempt = async (id: string, a: Attempt) => {
    const change = await recordAttempt(t.modules.checks, id, 0, a)
    if (change) t.modules.checks.stateChanged(change)
  }
  return { t, a, shop, api, dev, pageId: page.body.id as string, attempt }
}

const publicJson = async (t: TestApp) => (await t.request('GET', '/status/acme.json')).body

describe('pages follow what they list', () => {
  test('a deleted check leaves the page: its groups and the public page, at once rather than after the render cache', async () => {
    const { t, a, shop, api, pageId } = await world()
    expect((await publicJson(t)).groups[0].items.map((i: { name: string }) => i.name)).toEqual(['shop', 'api'])
    expect((await t.request('DELETE', `/v1/checks/${shop}`, { headers: a.userHeaders })).status).toBe(204)
    const page = await t.request('GET', `/v1/status-pages/${pageId}`, { headers: a.userHeaders })
    expect(page.body.groups[0].items.map((i: { id: string }) => i.id)).toEqual([api])
    expect((await publicJson(t)).groups[0].items.map((i: { name: string }) => i.name)).toEqual(['api'])
  })

  test('a deleted device leaves the page', async () => {
    const { t, a, dev, pageId } = await world()
    expect((await publicJson(t)).groups[1].items).toHaveLength(1)
    expect((await t.request('DELETE', `/v1/clients/me/devices/${dev}`, { headers: a.userHeaders })).status).toBe(204)
    const page = await t.request('GET', `/v1/status-pages/${pageId}`, { headers: a.userHeaders })
    expect(page.body.groups[1].items).toEqual([])
    expect((await publicJson(t)).groups[1].items).toEqual([])
  })

  test("another account's pages keep an item of the same id", async () => {
    const { t, shop } = await world()
    const b = await createTenant(t)
    // b cannot list a's check, so its page would not show it; the removal must not touch b's rows either way
    const made = await t.request('POST', '/v1/status-pages', {
      headers: b.userHeaders,
      body: { slug: 'other', title: 'Other', groups: [{ name: 'G', items: [{ type: 'check', id: shop, key: 'x' }] }] },
    })
    expect(made.status).toBe(201)
    forgetItem(t.modules.statusPages, b.clientId, 'check', 'chk_nothing')
    forgetItem(t.modules.statusPages, 'cli_someone_else', 'check', shop)
    const page = await t.request('GET', `/v1/status-pages/${made.body.id}`, { headers: b.userHeaders })
    expect(page.body.groups[0].items.map((i: { id: string }) => i.id)).toEqual([shop])
  })

  test('a check going down shows on the cached page within 5 s, and a flapping check rebuilds it at most once per 5 s', async () => {
    const { t, shop, attempt } = await world()
    await attempt(shop, ok(t.clock.now()))
    t.clock.advance(31_000) // past the render cache: the next visit builds afresh
    expect((await publicJson(t)).groups[0].items[0].state).toBe('up')

    t.clock.advance(1_000)
    await attempt(shop, fail(t.clock.now()))
    // 1 s after the render: still the cached one, however often visited
    expect((await publicJson(t)).groups[0].items[0].state).toBe('up')
    t.clock.advance(4_000)
    // 5 s after the render (well inside the 30 s cache): rebuilt with the down check
    const down = await publicJson(t)
    expect(down.groups[0].items[0].state).toBe('down')

    // flapping: up again at once; the page built a moment ago stays until 5 s have passed
    t.clock.advance(1_000)
    await attempt(shop, ok(t.clock.now()))
    expect((await publicJson(t)).generated_at).toBe(down.generated_at)
    t.clock.advance(4_000)
    const up = await publicJson(t)
    expect(up.groups[0].items[0].state).toBe('up')
    expect(up.generated_at).not.toBe(down.generated_at)
  })

  test("an attempt that does not move the state leaves the page's render alone", async () => {
    const { t, shop, attempt } = await world()
    await attempt(shop, ok(t.clock.now()))
    t.clock.advance(31_000)
    const first = await publicJson(t)
    t.clock.advance(6_000)
    await attempt(shop, ok(t.clock.now()))
    expect((await publicJson(t)).generated_at).toBe(first.generated_at)
  })
})
