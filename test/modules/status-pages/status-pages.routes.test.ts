import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { addMember, createTenant } from '../../helpers/fixtures'

type Tenant = Awaited<ReturnType<typeof createTenant>>

const create = (t: TestApp, a: Tenant, body: Record<string, unknown>) => t.request('POST', '/v1/status-pages', { headers: a.userHeaders, body })

describe('status pages: the team API', () => {
  test('a page is made, read, changed and deleted; items get keys that survive edits', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const dev = insertDevice(t, a.clientId, { hostname: 'db-1.internal' })
    const made = await create(t, a, {
      slug: 'acme',
      title: ' Acme ',
      theme: 'dark',
      custom_domain: 'Status.Acme.test',
      groups: [
        {
          name: 'Core',
          items: [
            { type: 'device', id: dev, label: 'Database' },
            { type: 'check', id: 'chk_web', key: 'website', show_response_times: true },
          ],
        },
      ],
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({
      slug: 'acme',
      title: 'Acme',
      theme: 'dark',
      custom_domain: 'status.acme.test',
      published: true,
      public_path: '/status/acme',
    })
    const [device, check] = made.body.groups[0].items
    expect(device).toMatchObject({ type: 'device', id: dev, label: 'Database', show_name: false, show_response_times: false })
    expect(device.key).toMatch(/^[a-z0-9]{8}$/)
    expect(check).toMatchObject({ key: 'website', show_response_times: true })

    const list = await t.request('GET', '/v1/status-pages', { headers: a.userHeaders })
    expect(list.body.map((p: { id: string }) => p.id)).toEqual([made.body.id])

    // the groups replaced, the device item moved: its key stays, so README badges keep working
    const patched = await t.request('PATCH', `/v1/status-pages/${made.body.id}`, {
      headers: a.userHeaders,
      body: { title: 'Acme Inc', groups: [{ name: 'All', items: [{ type: 'device', id: dev }] }] },
    })
    expect(patched.status).toBe(200)
    expect(patched.body.title).toBe('Acme Inc')
    expect(patched.body.groups[0].items[0].key).toBe(device.key)
    expect(patched.body.custom_domain).toBe('status.acme.test')

    expect((await t.request('DELETE', `/v1/status-pages/${made.body.id}`, { headers: a.userHeaders })).status).toBe(204)
    expect((await t.request('GET', `/v1/status-pages/${made.body.id}`, { headers: a.userHeaders })).status).toBe(404)
    // the slug is free again
    expect((await create(t, a, { slug: 'acme', title: 'Again' })).status).toBe(201)
  })

  test('slugs and custom domains are unique on the instance: 409 conflict naming the field', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    expect((await create(t, a, { slug: 'shared', title: 'A', custom_domain: 'status.a.test' })).status).toBe(201)
    const slug = await create(t, b, { slug: 'shared', title: 'B' })
    expect(slug.status).toBe(409)
    expect(slug.body.error).toMatchObject({ code: 'conflict', param: 'slug' })
    const domain = await create(t, b, { slug: 'other', title: 'B', custom_domain: 'STATUS.A.TEST' })
    expect(domain.status).toBe(409)
    expect(domain.body.error).toMatchObject({ code: 'conflict', param: 'custom_domain' })
  })

  test("the instance's own host name is not a custom domain", async () => {
    const t = testApp({ config: { siteUrl: 'https://vigil.example.test' } })
    const a = await createTenant(t)
    const own = await create(t, a, { slug: 'other', title: 'B', custom_domain: 'Vigil.Example.test' })
    expect(own.status).toBe(400)
    expect(own.body.error).toMatchObject({ code: 'invalid_parameter', param: 'custom_domain' })
  })

  test("another tenant's page, note and device are 404 or refused", async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const page = (await create(t, a, { slug: 'mine', title: 'Mine' })).body
    const note = (await t.request('POST', `/v1/status-pages/${page.id}/notes`, { headers: a.userHeaders, body: { kind: 'incident', title: 'T', body: 'B' } }))
      .body
    for (const [method, path, body] of [
      ['GET', `/v1/status-pages/${page.id}`],
      ['PATCH', `/v1/status-pages/${page.id}`, { title: 'x' }],
      ['DELETE', `/v1/status-pages/${page.id}`],
      ['GET', `/v1/status-pages/${page.id}/notes`],
      ['POST', `/v1/status-pages/${page.id}/notes`, { kind: 'incident', title: 'T', body: 'B' }],
      ['GET', `/v1/status-pages/${page.id}/notes/${note.id}`],
      ['PATCH', `/v1/status-pages/${page.id}/notes/${note.id}`, { title: 'x' }],
      ['POST', `/v1/status-pages/${page.id}/notes/${note.id}/updates`, { state: 'resolved', body: 'x' }],
      ['DELETE', `/v1/status-pages/${page.id}/notes/${note.id}`],
    ] as const) {
      const res = await t.request(method, path, { headers: b.userHeaders, body })
      expect({ method, path, status: res.status, code: res.body?.error?.code }).toEqual({ method, path, status: 404, code: 'not_found' })
    }
    expect((await t.request('GET', '/v1/status-pages', { headers: b.userHeaders })).body).toEqual([])
    // a device of another account cannot be put on a page
    const foreign = insertDevice(t, a.clientId)
    const res = await create(t, b, { slug: 'theirs', title: 'T', groups: [{ name: 'G', items: [{ type: 'device', id: foreign }] }] })
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'groups[0].items[0].id' })
  })

  test('bad input is a 422 with the detail list; every string is bounded', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const item = (extra: Record<string, unknown>) => ({ slug: 'okay', title: 'T', groups: [{ name: 'G', items: [{ type: 'check', id: 'c', ...extra }] }] })
    const bad = [
      {},
      { slug: 'ab', title: 'T' },
      { slug: 'x'.repeat(65), title: 'T' },
      { slug: 'Upper', title: 'T' },
      { slug: '-lead', title: 'T' },
      { slug: 'okay', title: '' },
      { slug: 'okay', title: '   ' },
      { slug: 'okay', title: 'x'.repeat(201) },
      { slug: 'okay', title: 'T', description: 'x'.repeat(1001) },
      { slug: 'okay', title: 'T', theme: 'sepia' },
      { slug: 'okay', title: 'T', custom_domain: 'http://x.test/' },
      { slug: 'okay', title: 'T', custom_domain: 'nodot' },
      { slug: 'okay', title: 'T', custom_domain: `${'a'.repeat(250)}.test` },
      item({ type: 'service' }),
      item({ id: 'x'.repeat(101) }),
      item({ label: 'x'.repeat(101) }),
      item({ key: 'Not A Key' }),
      item({ show_name: 'yes' }),
      { slug: 'okay', title: 'T', groups: Array.from({ length: 21 }, () => ({ name: 'G', items: [] })) },
    ]
    for (const body of bad) {
      const res = await create(t, a, body)
      expect({ body, status: res.status }).toEqual({ body, status: 422 })
      expect(res.body.detail.length).toBeGreaterThan(0)
    }
    // more than 100 items across groups
    const many = Array.from({ length: 3 }, (_, g) => ({ name: `G${g}`, items: Array.from({ length: 40 }, (_, i) => ({ type: 'check', id: `c${g}-${i}` })) }))
    const res = await create(t, a, { slug: 'okay', title: 'T', groups: many })
    expect(res.status).toBe(400)
    expect(res.body.error.param).toBe('groups')
    // a key given twice
    const twice = await create(t, a, {
      slug: 'okay',
      title: 'T',
      groups: [
        {
          name: 'G',
          items: [
            { type: 'check', id: 'a', key: 'k' },
            { type: 'check', id: 'b', key: 'k' },
          ],
        },
      ],
    })
    expect(twice.body.error).toMatchObject({ code: 'invalid_parameter', param: 'groups[0].items[1].key' })
  })

  test('members read, only owners and admins change pages', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const page = (await create(t, a, { slug: 'team', title: 'T' })).body
    const member = await addMember(t, a.clientId, 'member')
    expect((await t.request('GET', `/v1/status-pages/${page.id}`, { headers: member.headers })).status).toBe(200)
    expect((await t.request('PATCH', `/v1/status-pages/${page.id}`, { headers: member.headers, body: { title: 'x' } })).status).toBe(403)
  })

  test('an account has at most 20 pages', async () => {
    const t = testApp()
    const a = await createTenant(t)
    for (let i = 0; i < 20; i++) expect((await create(t, a, { slug: `page-${i}`, title: 'T' })).status).toBe(201)
    const res = await create(t, a, { slug: 'page-20', title: 'T' })
    expect(res.status).toBe(409)
  })
})

describe('status pages: notes', () => {
  const setup = async () => {
    const t = testApp()
    const a = await createTenant(t)
    const page = (await create(t, a, { slug: 'notes', title: 'T' })).body
    const post = (body: Record<string, unknown>) => t.request('POST', `/v1/status-pages/${page.id}/notes`, { headers: a.userHeaders, body })
    return { t, a, page, post }
  }

  test('an incident starts investigating, takes updates and closes when resolved', async () => {
    const { t, a, page, post } = await setup()
    const made = await post({ kind: 'incident', title: 'API errors', body: 'We see errors.\r\nLooking.' })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ kind: 'incident', state: 'investigating', closed_at: null, starts_at: '2026-01-01T00:00:00.000Z' })
    expect(made.body.updates.map((u: { body: string }) => u.body)).toEqual(['We see errors.\nLooking.'])
    t.clock.advance(60_000)
    const path = `/v1/status-pages/${page.id}/notes/${made.body.id}/updates`
    const resolved = await t.request('POST', path, { headers: a.userHeaders, body: { state: 'resolved', body: 'Fixed.' } })
    expect(resolved.body).toMatchObject({ state: 'resolved', closed_at: '2026-01-01T00:01:00.000Z' })
    expect(resolved.body.updates.map((u: { state: string }) => u.state)).toEqual(['investigating', 'resolved'])
    // reopened by a later update
    const reopened = await t.request('POST', path, { headers: a.userHeaders, body: { state: 'monitoring', body: 'Back again.' } })
    expect(reopened.body).toMatchObject({ state: 'monitoring', closed_at: null })
    // a maintenance state on an incident is refused
    const wrong = await t.request('POST', path, { headers: a.userHeaders, body: { state: 'completed', body: 'x' } })
    expect(wrong.status).toBe(400)
    expect(wrong.body.error).toMatchObject({ code: 'invalid_parameter', param: 'state' })
    const list = await t.request('GET', `/v1/status-pages/${page.id}/notes`, { headers: a.userHeaders })
    expect(list.body).toMatchObject({ total: 1, limit: 20, offset: 0 })
    expect(list.body.items[0].updates).toHaveLength(3)
  })

  test('maintenance is scheduled with a window; ends_at before starts_at is refused', async () => {
    const { t, a, page, post } = await setup()
    const made = await post({
      kind: 'maintenance',
      title: 'DB upgrade',
      body: 'Downtime expected.',
      starts_at: '2026-01-02T01:00:00Z',
      ends_at: '2026-01-02T02:00:00Z',
    })
    expect(made.body).toMatchObject({ state: 'scheduled', starts_at: '2026-01-02T01:00:00.000Z', ends_at: '2026-01-02T02:00:00.000Z' })
    const bad = await post({ kind: 'maintenance', title: 'x', body: 'x', starts_at: '2026-01-02T01:00:00Z', ends_at: '2026-01-01T01:00:00Z' })
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'ends_at' })
    const state = await post({ kind: 'maintenance', title: 'x', body: 'x', state: 'investigating' })
    expect(state.status).toBe(400)
    const patched = await t.request('PATCH', `/v1/status-pages/${page.id}/notes/${made.body.id}`, {
      headers: a.userHeaders,
      body: { ends_at: null, title: 'DB' },
    })
    expect(patched.body).toMatchObject({ title: 'DB', ends_at: null })
    expect((await t.request('DELETE', `/v1/status-pages/${page.id}/notes/${made.body.id}`, { headers: a.userHeaders })).status).toBe(204)
  })

  test('note bodies are plain text up to 5,000 characters; other bad input is 422', async () => {
    const { post } = await setup()
    expect((await post({ kind: 'incident', title: 'T', body: 'x'.repeat(5000) })).status).toBe(201)
    for (const body of [
      { kind: 'incident', title: 'T', body: 'x'.repeat(5001) },
      { kind: 'incident', title: 'T', body: '' },
      { kind: 'outage', title: 'T', body: 'B' },
      { kind: 'incident', title: 'T', body: 'B', state: 'fine' },
      { kind: 'incident', title: 'T', body: 'B', starts_at: 'yesterday' },
      { kind: 'incident', title: 'x'.repeat(201), body: 'B' },
    ]) {
      const res = await post(body)
      expect({ body: body.kind, status: res.status }).toEqual({ body: body.kind, status: 422 })
    }
  })
})
