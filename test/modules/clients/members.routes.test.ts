import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { addMember, createTenant } from '../../helpers/fixtures'

const members = async (t: TestApp, headers: Record<string, string>) => (await t.request('GET', '/v1/clients/me/members', { headers })).body as any[]
const invite = (t: TestApp, headers: Record<string, string>, body: unknown) => t.request('POST', '/v1/clients/me/members', { headers, body })
const ownerRow = async (t: TestApp, headers: Record<string, string>) => (await members(t, headers)).find((m) => m.role === 'owner')

async function registerAndLogin(t: TestApp, email: string) {
  await t.request('POST', '/v1/auth/register', { body: { email, password: 'correct horse battery' } })
  const tokens = (await t.request('POST', '/v1/auth/login', { body: { email, password: 'correct horse battery' } })).body
  return { authorization: `Bearer ${tokens.access_token}` }
}

describe('GET /v1/clients/me/members', () => {
  test('lists the members of the caller client only, in the MemberResponse shape', async () => {
    const t = testApp()
    const a = await createTenant(t)
    await createTenant(t)
    const m = await addMember(t, a.clientId, 'member')
    const list = await members(t, m.headers)
    expect(list.length).toBe(2)
    expect(list[0]).toEqual({
      id: expect.any(String),
      client_id: a.clientId,
      user_id: a.userId,
      role: 'owner',
      status: 'active',
      invited_email: null,
      email: a.email,
      invitation_expires_at: null,
      created_at: expect.any(String),
    })
  })

  test("shows each email (the account's, else the invited one) and when a pending invitation expires", async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t, { email: 'bea@example.test' })
    const sent = (await invite(t, a.userHeaders, { email: 'Nobody@Example.test' })).body
    await invite(t, a.userHeaders, { email: 'bea@example.test', role: 'admin' })
    const list = await members(t, a.userHeaders)
    expect(list.map((m) => [m.email, m.status, m.invitation_expires_at])).toEqual([
      [a.email, 'active', null],
      ['nobody@example.test', 'invited', sent.invitation_expires_at],
      ['bea@example.test', 'invited', expect.any(String)],
    ])
    expect(Date.parse(sent.invitation_expires_at) - t.clock.now()).toBe(7 * 86_400_000)
    // accepted: the account's email stays, the expiry goes
    const token = (await invite(t, b.userHeaders, { email: a.email })).body.invitation_token
    const accepted = await t.request('POST', '/v1/invitations/accept', { headers: a.userHeaders, body: { token } })
    expect(accepted.body).toMatchObject({ email: a.email, status: 'active', invitation_expires_at: null })
  })
})

describe('POST /v1/clients/me/members', () => {
  test('invites an unknown email: user_id empty, status invited; the invitee accepts with the secret', async () => {
    const t = testApp()
    await createTenant(t) // so the newcomer is not the first (operator) account
    const a = await createTenant(t)
    const res = await invite(t, a.userHeaders, { email: 'New@Example.test', role: 'admin' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ client_id: a.clientId, user_id: '', role: 'admin', status: 'invited', invited_email: 'new@example.test' })
    expect(res.body.invitation_token).toStartWith('vin_')

    const h = await registerAndLogin(t, 'new@example.test')
    const me = (await t.request('GET', '/v1/auth/me', { headers: h })).body
    expect(me.client_id).not.toBe(a.clientId) // their own new client stays home
    // registering with the email alone joins nothing
    expect((await members(t, a.userHeaders)).find((m) => m.id === res.body.id)).toMatchObject({ user_id: '', status: 'invited' })
    expect((await t.request('POST', '/v1/auth/switch', { headers: h, body: { client_id: a.clientId } })).status).toBe(404)

    const accepted = await t.request('POST', '/v1/invitations/accept', { headers: h, body: { token: res.body.invitation_token } })
    expect(accepted.status).toBe(200)
    expect(accepted.body).toMatchObject({ id: res.body.id, client_id: a.clientId, user_id: me.user_id, status: 'active', role: 'admin' })
    const mine = (await t.request('GET', '/v1/auth/memberships', { headers: h })).body
    expect(mine).toEqual(expect.arrayContaining([expect.objectContaining({ client_id: a.clientId, status: 'active', role: 'admin', current: false })]))

    const sw = await t.request('POST', '/v1/auth/switch', { headers: h, body: { client_id: a.clientId } })
    expect(sw.status).toBe(200)
    const h2 = { authorization: `Bearer ${sw.body.access_token}` }
    expect((await t.request('GET', '/v1/clients/me', { headers: h2 })).body.client_id).toBe(a.clientId)
    // the refresh token keeps acting for the switched-to client
    const again = (await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: sw.body.refresh_token } })).body
    expect((await t.request('GET', '/v1/clients/me', { headers: { authorization: `Bearer ${again.access_token}` } })).body.client_id).toBe(a.clientId)
  })

  test('invites an existing user, who stays pending until accepting', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const res = await invite(t, a.userHeaders, { email: b.email })
    expect(res.body).toMatchObject({ user_id: b.userId, status: 'invited', role: 'member' })
    // not active yet: a JWT for client a is refused
    const early = await t.modules.users.tokens.sign({ userId: b.userId, clientId: a.clientId, role: 'user' })
    expect((await t.request('GET', '/v1/clients/me', { headers: { authorization: `Bearer ${early}` } })).status).toBe(403)
    expect((await invite(t, a.userHeaders, { email: b.email.toUpperCase() })).status).toBe(409)
  })

  test('switching to a client one does not belong to is 404', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    expect((await t.request('POST', '/v1/auth/switch', { headers: a.userHeaders, body: { client_id: b.clientId } })).status).toBe(404)
  })

  test('max_users counts active and invited members', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxUsers: 2 })
    expect((await invite(t, a.userHeaders, { email: 'one@example.test' })).status).toBe(201)
    const full = await invite(t, a.userHeaders, { email: 'two@example.test' })
    expect(full.status).toBe(403)
    expect(full.body.error.code).toBe('user_limit_reached')
  })

  test('admins cannot create owners; bad email and role are 422; members cannot invite', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const admin = await addMember(t, a.clientId, 'admin')
    const member = await addMember(t, a.clientId, 'member')
    expect((await invite(t, admin.headers, { email: 'x@example.test', role: 'owner' })).status).toBe(403)
    expect((await invite(t, admin.headers, { email: 'x@example.test', role: 'admin' })).status).toBe(201)
    expect((await invite(t, a.userHeaders, { email: 'bad' })).status).toBe(422)
    expect((await invite(t, a.userHeaders, { email: 'y@example.test', role: 'god' })).status).toBe(422)
    expect((await invite(t, member.headers, { email: 'z@example.test' })).status).toBe(403)
  })
})

describe('PATCH and DELETE /v1/clients/me/members/{id}', () => {
  test('changes role and status; a disabled member is locked out at once', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const m = await addMember(t, a.clientId, 'member')
    const row = (await members(t, a.userHeaders)).find((x) => x.user_id === m.userId)
    const up = await t.request('PATCH', `/v1/clients/me/members/${row.id}`, { headers: a.userHeaders, body: { role: 'admin' } })
    expect(up.status).toBe(200)
    expect(up.body.role).toBe('admin')
    const off = await t.request('PATCH', `/v1/clients/me/members/${row.id}`, { headers: a.userHeaders, body: { status: 'disabled' } })
    expect(off.body.status).toBe('disabled')
    expect((await t.request('GET', '/v1/clients/me', { headers: m.headers })).status).toBe(403)
    await t.request('PATCH', `/v1/clients/me/members/${row.id}`, { headers: a.userHeaders, body: { status: 'active' } })
    expect((await t.request('GET', '/v1/clients/me', { headers: m.headers })).status).toBe(200)
    expect((await t.request('PATCH', `/v1/clients/me/members/${row.id}`, { headers: a.userHeaders, body: { status: 'invited' } })).status).toBe(422)
  })

  test('the last owner can be neither demoted, disabled nor removed (409 last_owner)', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const owner = await ownerRow(t, a.userHeaders)
    for (const body of [{ role: 'admin' }, { status: 'disabled' }]) {
      const res = await t.request('PATCH', `/v1/clients/me/members/${owner.id}`, { headers: a.userHeaders, body })
      expect(res.status).toBe(409)
      expect(res.body.error.code).toBe('last_owner')
    }
    expect((await t.request('DELETE', `/v1/clients/me/members/${owner.id}`, { headers: a.userHeaders })).status).toBe(409)
    // with a second owner, the first may step down
    const second = await addMember(t, a.clientId, 'owner')
    expect(second.userId).toBeDefined()
    expect((await t.request('PATCH', `/v1/clients/me/members/${owner.id}`, { headers: a.userHeaders, body: { role: 'member' } })).status).toBe(200)
  })

  test('admins may not touch owners', async () => {
    const t = testApp()
    const a = await createTenant(t)
    await addMember(t, a.clientId, 'owner')
    const admin = await addMember(t, a.clientId, 'admin')
    const owner = await ownerRow(t, a.userHeaders)
    expect((await t.request('PATCH', `/v1/clients/me/members/${owner.id}`, { headers: admin.headers, body: { role: 'member' } })).status).toBe(403)
    expect((await t.request('DELETE', `/v1/clients/me/members/${owner.id}`, { headers: admin.headers })).status).toBe(403)
  })

  test('delete removes the member (204) and withdraws invitations; another tenant member is 404', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const inv = (await invite(t, a.userHeaders, { email: 'x@example.test' })).body
    const res = await t.request('DELETE', `/v1/clients/me/members/${inv.id}`, { headers: a.userHeaders })
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    expect((await members(t, a.userHeaders)).some((m) => m.id === inv.id)).toBe(false)
    const theirs = await ownerRow(t, b.userHeaders)
    expect((await t.request('DELETE', `/v1/clients/me/members/${theirs.id}`, { headers: a.userHeaders })).status).toBe(404)
    expect((await t.request('PATCH', `/v1/clients/me/members/${theirs.id}`, { headers: a.userHeaders, body: { role: 'member' } })).status).toBe(404)
    expect((await members(t, b.userHeaders)).length).toBe(1)
  })
})

describe('sessions follow membership', () => {
  test('a refresh after removal from the switched-to client falls back to the home client', async () => {
    const t = testApp()
    await createTenant(t)
    const a = await createTenant(t)
    const inv = (await invite(t, a.userHeaders, { email: 'b@example.test' })).body
    const h = await registerAndLogin(t, 'b@example.test')
    await t.request('POST', '/v1/invitations/accept', { headers: h, body: { token: inv.invitation_token } })
    const home = (await t.request('GET', '/v1/auth/me', { headers: h })).body.client_id
    const sw = (await t.request('POST', '/v1/auth/switch', { headers: h, body: { client_id: a.clientId } })).body
    await t.request('DELETE', `/v1/clients/me/members/${inv.id}`, { headers: a.userHeaders })
    expect((await t.request('GET', '/v1/clients/me', { headers: { authorization: `Bearer ${sw.access_token}` } })).status).toBe(403)
    const next = (await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: sw.refresh_token } })).body
    const client = await t.request('GET', '/v1/clients/me', { headers: { authorization: `Bearer ${next.access_token}` } })
    expect(client.status).toBe(200)
    expect(client.body.client_id).toBe(home)
  })
})
