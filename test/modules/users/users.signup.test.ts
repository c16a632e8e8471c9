import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import type { Config, SignupPolicy } from '../../../src/config'
import { testConfig } from '../../../src/config'
import { setupTokenFor, setupTokenNotice } from '../../../src/modules/users/users.setup-token'

const PASSWORD = 'correct horse battery'

/** An app in the given mode and sign-up policy (null: the mode's default). */
function instance(mode: 'own' | 'service', signup: SignupPolicy | null = null, setupToken?: string, listener: Partial<Config> = {}) {
  const base = testConfig().instance
  const config: Partial<Config> = { instance: { ...base, mode, signup }, ...listener }
  return testApp({ config, setupToken })
}

const register = (t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.request('POST', '/v1/auth/register', { body: { password: PASSWORD, ...body }, headers })

async function operator(t: TestApp, headers: Record<string, string> = {}) {
  const res = await register(t, { email: 'ops@example.test' }, headers)
  expect(res.status).toBe(201)
  expect(res.body.role).toBe('admin')
  const login = await t.request('POST', '/v1/auth/login', { body: { email: 'ops@example.test', password: PASSWORD } })
  return { clientId: res.body.client_id as string, headers: { authorization: `Bearer ${login.body.access_token}` } }
}

const invite = async (t: TestApp, headers: Record<string, string>, email: string, role = 'member') => {
  const res = await t.request('POST', '/v1/clients/me/members', { headers, body: { email, role } })
  expect(res.status).toBe(201)
  return res.body as { id: string; invitation_token: string }
}

const accountCount = (t: TestApp) => t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM users').get()!.n

describe('sign-up policy (VIGIL_SIGNUP)', () => {
  test('a service is open by default: anyone registers and gets a client of their own', async () => {
    const t = instance('service')
    const op = await operator(t)
    const res = await register(t, { email: 'someone@example.test' })
    expect(res.status).toBe(201)
    expect(res.body.role).toBe('user')
    expect(res.body.client_id).not.toBe(op.clientId)
  })

  test('an own instance is invite-only by default once the operator exists', async () => {
    const t = instance('own')
    await operator(t)
    const res = await register(t, { email: 'stranger@example.test' })
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('signup_closed')
    expect(res.body.error.message).toContain('invitation')
    expect(accountCount(t)).toBe(1)
  })

  test('with invite, an invitation_token makes the account and joins the inviting client in one step', async () => {
    const t = instance('own')
    const op = await operator(t)
    const inv = await invite(t, op.headers, 'Colleague@Example.test', 'admin')
    const res = await register(t, { email: 'colleague@example.test', invitation_token: inv.invitation_token })
    expect(res.status).toBe(201)
    expect(res.body.role).toBe('user')
    expect(res.body.client_id).toBe(op.clientId)
    // no client of its own was made: the operator's is the only one
    expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM clients').get()!.n).toBe(1)
    const members = (await t.request('GET', '/v1/clients/me/members', { headers: op.headers })).body as { id: string; status: string; role: string }[]
    expect(members.find((m) => m.id === inv.id)).toMatchObject({ status: 'active', role: 'admin' })
    // the new account signs in acting for the inviting client
    const login = await t.request('POST', '/v1/auth/login', { body: { email: 'colleague@example.test', password: PASSWORD } })
    const me = await t.request('GET', '/v1/clients/me', { headers: { authorization: `Bearer ${login.body.access_token}` } })
    expect(me.body.client_id).toBe(op.clientId)
  })

  test('an invitation for another email, a used one or a made-up one makes no account', async () => {
    const t = instance('own')
    const op = await operator(t)
    const inv = await invite(t, op.headers, 'b@example.test')
    const other = await register(t, { email: 'mallory@example.test', invitation_token: inv.invitation_token })
    expect(other.status).toBe(403)
    expect(other.body.error.code).toBe('invalid_invitation')
    const made = await register(t, { email: 'x@example.test', invitation_token: 'vin_guessed' })
    expect(made.body.error.code).toBe('invalid_invitation')
    expect(accountCount(t)).toBe(1)
    expect((await register(t, { email: 'b@example.test', invitation_token: inv.invitation_token })).status).toBe(201)
    const again = await register(t, { email: 'b2@example.test', invitation_token: inv.invitation_token })
    expect(again.body.error.code).toBe('invalid_invitation')
  })

  test('an expired invitation makes no account', async () => {
    const t = instance('own')
    const op = await operator(t)
    const inv = await invite(t, op.headers, 'late@example.test')
    t.clock.advance(7 * 86_400_000)
    const res = await register(t, { email: 'late@example.test', invitation_token: inv.invitation_token })
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('invalid_invitation')
  })

  test('closed: only the first account registers; the others are refused, even with an invitation', async () => {
    const t = instance('service', 'closed')
    const op = await operator(t)
    const inv = await invite(t, op.headers, 'b@example.test')
    for (const body of [{ email: 'a@example.test' }, { email: 'b@example.test', invitation_token: inv.invitation_token }]) {
      const res = await register(t, body)
      expect(res.status).toBe(403)
      expect(res.body.error.code).toBe('signup_closed')
    }
    expect(accountCount(t)).toBe(1)
  })

  test('open on an own instance when the operator says so', async () => {
    const t = instance('own', 'open')
    await operator(t)
    expect((await register(t, { email: 'friend@example.test' })).status).toBe(201)
  })

  test('invite on a service when the operator says so', async () => {
    const t = instance('service', 'invite')
    await operator(t)
    expect((await register(t, { email: 'friend@example.test' })).body.error.code).toBe('signup_closed')
  })

  test('two first registrations racing on an invite-only instance make one operator and one refusal', async () => {
    const t = instance('own')
    const answers = await Promise.all(['a@example.test', 'b@example.test'].map((email) => register(t, { email })))
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403])
    expect(answers.find((a) => a.status === 403)!.body.error.code).toBe('signup_closed')
    expect(accountCount(t)).toBe(1)
  })
})

describe('the setup token', () => {
  const TOKEN = 'vst_the-one-printed-on-the-console'

  test('the first registration needs it: missing or wrong is 403 setup_token_required, and no account', async () => {
    const t = instance('own', null, TOKEN)
    const missing = await register(t, { email: 'ops@example.test' })
    expect(missing.status).toBe(403)
    expect(missing.body.error.code).toBe('setup_token_required')
    expect(missing.body.error.message).toContain('console')
    const wrong = await register(t, { email: 'ops@example.test' }, { 'x-setup-token': TOKEN.slice(0, -1) })
    expect(wrong.body.error.code).toBe('setup_token_required')
    const wrongBody = await register(t, { email: 'ops@example.test', setup_token: 'vst_guess' })
    expect(wrongBody.body.error.code).toBe('setup_token_required')
    expect(accountCount(t)).toBe(0)
  })

  test('with it, in the header or the body, the first account becomes the operator', async () => {
    await operator(instance('own', null, TOKEN), { 'x-setup-token': TOKEN })
    const t = instance('own', null, TOKEN)
    const res = await register(t, { email: 'ops@example.test', setup_token: TOKEN })
    expect(res.status).toBe(201)
    expect(res.body.role).toBe('admin')
  })

  test('once the operator exists it is neither needed nor of any use', async () => {
    const t = instance('service', null, TOKEN)
    await operator(t, { 'x-setup-token': TOKEN })
    expect((await register(t, { email: 'next@example.test' })).status).toBe(201)
    const own = instance('own', null, TOKEN)
    await operator(own, { 'x-setup-token': TOKEN })
    // the token does not open an invite-only instance
    const res = await register(own, { email: 'next@example.test' }, { 'x-setup-token': TOKEN })
    expect(res.body.error.code).toBe('signup_closed')
  })

  test('without one, the first registration needs none', async () => {
    await operator(instance('own'))
  })

  test('on loopback it is asked of requests that came through a proxy, and /health says so per request', async () => {
    const t = instance('own', null, TOKEN, { host: '127.0.0.1' })
    const health = async (headers: Record<string, string> = {}) => (await t.request('GET', '/health', { headers })).body.setup_token_required
    const proxied: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }, { 'x-real-ip': '203.0.113.9' }]
    for (const forwarded of proxied) {
      const res = await register(t, { email: 'stranger@example.test' }, forwarded)
      expect(res.status).toBe(403)
      expect(res.body.error.code).toBe('setup_token_required')
      expect(await health(forwarded)).toBe(true)
    }
    expect(await health()).toBe(false)
    expect(accountCount(t)).toBe(0)
    // straight to the loopback socket: the person at the server's console
    await operator(t)
    expect(await health({ 'x-forwarded-for': '203.0.113.9' })).toBe(false)
  })

  test('on loopback behind a trusted proxy every first registration needs it, as beyond loopback', async () => {
    for (const listener of [{ host: '127.0.0.1', trustProxy: true }, { host: '0.0.0.0' }]) {
      const t = instance('own', null, TOKEN, listener)
      expect((await t.request('GET', '/health')).body.setup_token_required).toBe(true)
      expect((await register(t, { email: 'stranger@example.test' })).body.error.code).toBe('setup_token_required')
      await operator(t, { 'x-setup-token': TOKEN })
      expect((await t.request('GET', '/health')).body.setup_token_required).toBe(false)
    }
  })

  test('an operator created from the shell needs no token, and the instance is then invite-only', async () => {
    const t = instance('own', null, TOKEN)
    const { createAccount } = await import('../../../src/modules/users/users.service')
    await createAccount(t.modules.users, { email: 'ops@example.test', password: PASSWORD }, 'admin')
    const res = await register(t, { email: 'someone@example.test' })
    expect(res.body.error.code).toBe('signup_closed')
  })
})

describe('the setup token of a hub on SQLite', () => {
  test('is a new one at each start, printed by the hub, which says a restart makes another', async () => {
    const first = await setupTokenFor({ pg: null }, 1_000, 'here:1')
    const again = await setupTokenFor({ pg: null }, 2_000, 'here:1')
    expect(first.token).toMatch(/^vst_/)
    expect(again.token).not.toBe(first.token)
    expect(first.shared).toBe(false)
    const notice = setupTokenNotice(first, '')
    expect(notice).toContain(first.token!)
    expect(notice).toContain('a restart makes a new one')
  })

  test('a registration is checked against the hash of the token the app was given', async () => {
    const setup = await setupTokenFor({ pg: null }, 1_000, 'here:1')
    const t = testApp({ config: testConfig({ host: '0.0.0.0' }), setupToken: setup })
    const res = (token: string) =>
      t.request('POST', '/v1/auth/register', { body: { email: 'ops@example.test', password: 'correct horse battery' }, headers: { 'x-setup-token': token } })
    expect((await res(setup.hash)).status).toBe(403)
    expect((await res(setup.token!)).status).toBe(201)
  })
})
