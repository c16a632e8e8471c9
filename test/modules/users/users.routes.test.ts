import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'

const PASSWORD = 'correct horse battery'

async function register(t: TestApp, email: string, extra: Record<string, unknown> = {}) {
  return t.request('POST', '/v1/auth/register', { body: { email, password: PASSWORD, ...extra } })
}

async function login(t: TestApp, email: string, password = PASSWORD, headers: Record<string, string> = {}) {
  return t.request('POST', '/v1/auth/login', { body: { email, password }, headers })
}

describe('POST /v1/auth/register', () => {
  test('creates the user, its client with the spec defaults, and the owner membership', async () => {
    const t = testApp()
    const res = await register(t, 'Ada@Example.test', { first_name: 'Ada', last_name: 'L', company: 'Acme' })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      user_id: expect.any(String),
      email: 'ada@example.test',
      first_name: 'Ada',
      last_name: 'L',
      client_id: expect.any(String),
      role: 'admin',
    })
    const tokens = (await login(t, 'ada@example.test')).body
    const h = { authorization: `Bearer ${tokens.access_token}` }
    const client = (await t.request('GET', '/v1/clients/me', { headers: h })).body
    expect(client).toMatchObject({ client_id: res.body.client_id, name: 'Acme', plan_type: 'free', subscription_status: 'none', max_devices: 1, max_users: 50 })
    const members = (await t.request('GET', '/v1/clients/me/members', { headers: h })).body
    expect(members).toEqual([expect.objectContaining({ user_id: res.body.user_id, role: 'owner', status: 'active', client_id: res.body.client_id })])
  })

  test('only the first account is the operator; the client is named after the email without a company', async () => {
    const t = testApp()
    expect((await register(t, 'first@example.test')).body.role).toBe('admin')
    const second = await register(t, 'second@example.test')
    expect(second.body.role).toBe('user')
    const h = { authorization: `Bearer ${(await login(t, 'second@example.test')).body.access_token}` }
    expect((await t.request('GET', '/v1/clients/me', { headers: h })).body.name).toBe('second@example.test')
  })

  test('a duplicate email, in any case, is 409 email_taken', async () => {
    const t = testApp()
    await register(t, 'dup@example.test')
    const res = await register(t, 'DUP@example.TEST')
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({ code: 'email_taken', param: 'email' })
  })

  test('password length 8..128 and email format are enforced with 422', async () => {
    const t = testApp()
    const short = await t.request('POST', '/v1/auth/register', { body: { email: 'a@example.test', password: '1234567' } })
    expect(short.status).toBe(422)
    expect(short.body.detail[0].loc).toEqual(['body', 'password'])
    const long = await t.request('POST', '/v1/auth/register', { body: { email: 'a@example.test', password: 'x'.repeat(129) } })
    expect(long.status).toBe(422)
    expect((await t.request('POST', '/v1/auth/register', { body: { email: 'a@example.test', password: 'x'.repeat(128) } })).status).toBe(201)
    expect((await t.request('POST', '/v1/auth/register', { body: { email: 'b@example.test', password: '12345678' } })).status).toBe(201)
    const bad = await t.request('POST', '/v1/auth/register', { body: { email: 'not-an-email', password: PASSWORD } })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['body', 'email'])
    const missing = await t.request('POST', '/v1/auth/register', { body: { email: 'c@example.test' } })
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'password'], type: 'missing' })
  })

  test('the password is neither returned nor logged, and is stored as argon2id', async () => {
    const t = testApp()
    const res = await register(t, 'p@example.test')
    expect(res.text).not.toContain(PASSWORD)
    const lg = await login(t, 'p@example.test')
    await login(t, 'p@example.test', 'wrong password!')
    expect(lg.text).not.toContain(PASSWORD)
    expect(t.logs.join('\n')).not.toContain(PASSWORD)
    expect(t.logs.join('\n')).not.toContain('wrong password!')
    expect(t.logs.join('\n')).not.toContain(lg.body.refresh_token)
    const row = t.db.sqlite.query<{ password_hash: string }, []>('SELECT password_hash FROM users').get()!
    expect(row.password_hash.startsWith('$argon2id$')).toBe(true)
  })
})

describe('POST /v1/auth/login', () => {
  test('answers a TokenResponse with a 900 s bearer JWT carrying the pinned claims', async () => {
    const t = testApp()
    const reg = await register(t, 'u@example.test')
    const res = await login(t, 'U@EXAMPLE.test')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 900 })
    const [header, payload] = res.body.access_token
      .split('.')
      .slice(0, 2)
      .map((p: string) => JSON.parse(Buffer.from(p, 'base64url').toString()))
    expect(header.alg).toBe('HS256')
    const now = Math.floor(t.clock.now() / 1000)
    expect(payload).toMatchObject({
      iss: 'vigil',
      aud: 'vigil-portal',
      sub: reg.body.user_id,
      cid: reg.body.client_id,
      role: 'admin',
      iat: now,
      exp: now + 900,
    })
    expect(typeof payload.jti).toBe('string')
  })

  test('wrong password and unknown email give one identical 401 body', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    const wrong = await login(t, 'u@example.test', 'not the password')
    const unknown = await login(t, 'nobody@example.test', 'not the password')
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.body).toEqual(unknown.body)
    expect(wrong.body.error.code).toBe('invalid_credentials')
  })

  test('the access token stops working 900 s after issue', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    const h = { authorization: `Bearer ${(await login(t, 'u@example.test')).body.access_token}` }
    t.clock.advance(899_000)
    expect((await t.request('GET', '/v1/auth/me', { headers: h })).status).toBe(200)
    t.clock.advance(1_000)
    expect((await t.request('GET', '/v1/auth/me', { headers: h })).status).toBe(401)
  })
})

describe('login throttling', () => {
  test('an account backs off after 5 failures with 429 and Retry-After, even with the right password', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    for (let i = 0; i < 5; i++) expect((await login(t, 'u@example.test', 'wrong password')).status).toBe(401)
    const locked = await login(t, 'u@example.test')
    expect(locked.status).toBe(429)
    expect(locked.body.error.code).toBe('rate_limited')
    expect(Number(locked.headers.get('retry-after'))).toBe(30)
    t.clock.advance(30_000)
    expect((await login(t, 'u@example.test')).status).toBe(200)
  })

  test('the lockout doubles with each further failure', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    for (let i = 0; i < 5; i++) await login(t, 'u@example.test', 'wrong password')
    t.clock.advance(30_000)
    await login(t, 'u@example.test', 'wrong password')
    expect(Number((await login(t, 'u@example.test')).headers.get('retry-after'))).toBe(60)
  })

  test('unknown emails are throttled the same way (the 429 reveals nothing)', async () => {
    const t = testApp()
    for (let i = 0; i < 5; i++) expect((await login(t, 'ghost@example.test', 'wrong password')).status).toBe(401)
    expect((await login(t, 'ghost@example.test', 'wrong password')).status).toBe(429)
  })

  test('one address guessing many accounts is throttled per address', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    for (let i = 0; i < 20; i++) {
      t.clock.advance(1_000) // stay under the gateway's anonymous request limit
      await login(t, `user${i}@example.test`, 'wrong password')
    }
    const res = await login(t, 'u@example.test')
    expect(res.status).toBe(429)
  })

  test('a successful login resets the account counter', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    for (let i = 0; i < 4; i++) await login(t, 'u@example.test', 'wrong password')
    expect((await login(t, 'u@example.test')).status).toBe(200)
    for (let i = 0; i < 4; i++) expect((await login(t, 'u@example.test', 'wrong password')).status).toBe(401)
  })
})

describe('refresh tokens', () => {
  test('rotate: a refresh gives a new pair and the old refresh token is spent', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    const first = (await login(t, 'u@example.test')).body
    const second = await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } })
    expect(second.status).toBe(200)
    expect(second.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 900 })
    expect(second.body.refresh_token).not.toBe(first.refresh_token)
    expect((await t.request('GET', '/v1/auth/me', { headers: { authorization: `Bearer ${second.body.access_token}` } })).status).toBe(200)
  })

  test('reusing a spent token is 401 and revokes the whole family', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    const first = (await login(t, 'u@example.test')).body
    const other = (await login(t, 'u@example.test')).body // another session, another family
    const second = (await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } })).body
    const reuse = await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } })
    expect(reuse.status).toBe(401)
    expect(reuse.body.error.code).toBe('unauthorized')
    // the thief's (or the victim's) fresh token is dead too
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: second.refresh_token } })).status).toBe(401)
    // other sessions are untouched
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: other.refresh_token } })).status).toBe(200)
    expect(t.logs.some((l) => l.includes('refresh token reused'))).toBe(true)
    expect(t.logs.join('\n')).not.toContain(first.refresh_token)
  })

  test('expire after VIGIL_REFRESH_TTL (default 30 days)', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    const a = (await login(t, 'u@example.test')).body
    const b = (await login(t, 'u@example.test')).body
    t.clock.advance(30 * 86_400_000 - 1)
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: a.refresh_token } })).status).toBe(200)
    t.clock.advance(1)
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: b.refresh_token } })).status).toBe(401)
  })

  test('the lifetime follows config.refreshTtlSeconds', async () => {
    const t = testApp({ config: { refreshTtlSeconds: 3600 } })
    await register(t, 'u@example.test')
    const a = (await login(t, 'u@example.test')).body
    t.clock.advance(3600_000)
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: a.refresh_token } })).status).toBe(401)
  })

  test('unknown tokens are 401; a refresh token is not an access token and vice versa', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    const pair = (await login(t, 'u@example.test')).body
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: 'vrt_nope' } })).status).toBe(401)
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: pair.access_token } })).status).toBe(401)
    expect((await t.request('GET', '/v1/auth/me', { headers: { authorization: `Bearer ${pair.refresh_token}` } })).status).toBe(401)
    expect((await t.request('POST', '/v1/auth/refresh', { body: {} })).status).toBe(422)
  })

  test('only hashes are stored', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    const pair = (await login(t, 'u@example.test')).body
    const rows = t.db.sqlite.query<{ token_hash: string }, []>('SELECT token_hash FROM refresh_tokens').all()
    expect(rows.length).toBe(1)
    expect(rows[0]!.token_hash).not.toContain(pair.refresh_token)
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe('POST /v1/auth/logout', () => {
  test('revokes the session family: its refresh token no longer works; 204 even for unknown tokens', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    const first = (await login(t, 'u@example.test')).body
    const second = (await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } })).body
    const out = await t.request('POST', '/v1/auth/logout', { body: { refresh_token: second.refresh_token } })
    expect(out.status).toBe(204)
    expect(out.text).toBe('')
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: second.refresh_token } })).status).toBe(401)
    expect((await t.request('POST', '/v1/auth/logout', { body: { refresh_token: 'vrt_unknown' } })).status).toBe(204)
  })
})

describe('GET /v1/auth/me', () => {
  test('returns the User; a demoted operator is a user on the next request', async () => {
    const t = testApp()
    const reg = await register(t, 'op@example.test')
    const h = { authorization: `Bearer ${(await login(t, 'op@example.test')).body.access_token}` }
    const me = await t.request('GET', '/v1/auth/me', { headers: h })
    expect(me.body).toEqual(reg.body)
    expect((await t.request('GET', '/v1/admin/stats', { headers: h })).status).toBe(200)
    t.db.sqlite.run("UPDATE users SET role = 'user'")
    expect((await t.request('GET', '/v1/auth/me', { headers: h })).body.role).toBe('user')
    expect((await t.request('GET', '/v1/admin/stats', { headers: h })).status).toBe(403)
  })

  test('a deleted account cannot use its token', async () => {
    const t = testApp()
    await register(t, 'u@example.test')
    const h = { authorization: `Bearer ${(await login(t, 'u@example.test')).body.access_token}` }
    t.db.sqlite.run('DELETE FROM users')
    expect((await t.request('GET', '/v1/auth/me', { headers: h })).status).toBe(401)
  })
})

describe('mass assignment', () => {
  test('register ignores role, client_id and plan fields in the body', async () => {
    const t = testApp()
    await register(t, 'first@example.test')
    const res = await register(t, 'second@example.test', { role: 'admin', client_id: 'cli_x', plan_type: 'b2b_yearly', max_devices: 99 })
    expect(res.status).toBe(201)
    expect(res.body.role).toBe('user')
    expect(res.body.client_id).not.toBe('cli_x')
    const row = t.db.sqlite
      .query<{ plan_type: string; max_devices: number }, [string]>('SELECT plan_type, max_devices FROM clients WHERE id = ?')
      .get(res.body.client_id)!
    expect(row).toEqual({ plan_type: 'free', max_devices: 1 })
  })
})

describe('job purge-refresh-tokens', () => {
  test('deletes tokens a day past expiry or revocation, keeps live ones', async () => {
    const t = testApp({ config: { refreshTtlSeconds: 3600 } })
    await register(t, 'u@example.test')
    const old = (await login(t, 'u@example.test')).body
    await t.request('POST', '/v1/auth/logout', { body: { refresh_token: old.refresh_token } })
    t.clock.advance(86_400_000 + 3600_000 + 1)
    const live = (await login(t, 'u@example.test')).body
    const job = t.jobs.find((j) => j.name === 'users.purge-refresh-tokens')!
    await job.run()
    expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM refresh_tokens').get()!.n).toBe(1)
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: live.refresh_token } })).status).toBe(200)
  })
})
