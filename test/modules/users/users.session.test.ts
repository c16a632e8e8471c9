import { describe, expect, test } from 'bun:test'
import { newId } from '../../../src/lib/ids'
import { testApp, type TestApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'

const PASSWORD = 'correct horse battery'
const COOKIE = /^vigil_session=(vrt_[A-Za-z0-9_-]+); HttpOnly; SameSite=Strict; Path=\/v1\/auth\/session; Max-Age=\d+$/
const CLEARED = 'vigil_session=; HttpOnly; SameSite=Strict; Path=/v1/auth/session; Max-Age=0'

async function account(t: TestApp, email = `${newId('u')}@example.test`) {
  const r = await t.request('POST', '/v1/auth/register', { body: { email, password: PASSWORD } })
  expect(r.status).toBe(201)
  return { email, userId: r.body.user_id as string, clientId: r.body.client_id as string }
}

/** Signs a browser in: its access token and the refresh token its cookie holds. */
async function signIn(t: TestApp, email: string, headers: Record<string, string> = {}) {
  const r = await t.request('POST', '/v1/auth/session', { body: { email, password: PASSWORD }, headers })
  expect(r.status).toBe(200)
  const cookie = COOKIE.exec(r.headers.get('set-cookie') ?? '')
  expect(cookie).not.toBeNull()
  return { access: r.body.access_token as string, cookie: cookie![1]!, res: r }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const withCookie = (value: string, extra: Record<string, string> = {}) => ({ cookie: `theme=dark; vigil_session=${value}; other=1`, ...extra })

describe('POST /v1/auth/session', () => {
  test('the access token in the body, the refresh token only in an HttpOnly, SameSite=Strict cookie', async () => {
    const t = testApp()
    const a = await account(t)
    const { res, access, cookie } = await signIn(t, a.email)
    // exactly these attributes: no Secure over plain HTTP, 30 days (VIGIL_REFRESH_TTL) of life
    expect(res.headers.get('set-cookie')).toBe(`vigil_session=${cookie}; HttpOnly; SameSite=Strict; Path=/v1/auth/session; Max-Age=2592000`)
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'token_type'])
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 900 })
    expect(res.headers.get('cache-control')).toBe('no-store')
    const me = await t.request('GET', '/v1/auth/me', { headers: bearer(access) })
    expect(me.body.user_id).toBe(a.userId)
  })

  test('Max-Age is the refresh lifetime', async () => {
    const t = testApp({ config: { refreshTtlSeconds: 3600 } })
    const a = await account(t)
    const r = await t.request('POST', '/v1/auth/session', { body: { email: a.email, password: PASSWORD } })
    expect(r.headers.get('set-cookie')).toEndWith('; Path=/v1/auth/session; Max-Age=3600')
  })

  test('Secure over HTTPS: native TLS, an https URL, or x-forwarded-proto only from a trusted proxy', async () => {
    const secure = async (t: TestApp, email: string, url: string, headers: Record<string, string> = {}) => {
      const res = await t.handle(
        new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ email, password: PASSWORD }) }),
      )
      expect(res.status).toBe(200)
      return res.headers.get('set-cookie')!.endsWith('; Secure')
    }
    const plain = testApp()
    const p = await account(plain)
    expect(await secure(plain, p.email, 'http://localhost/v1/auth/session')).toBe(false)
    expect(await secure(plain, p.email, 'https://localhost/v1/auth/session')).toBe(true)
    expect(await secure(plain, p.email, 'http://localhost/v1/auth/session', { 'x-forwarded-proto': 'https' })).toBe(false)
    const proxied = testApp({ config: { trustProxy: true } })
    const q = await account(proxied)
    expect(await secure(proxied, q.email, 'http://localhost/v1/auth/session', { 'x-forwarded-proto': 'https' })).toBe(true)
    expect(await secure(proxied, q.email, 'http://localhost/v1/auth/session', { 'x-forwarded-proto': 'http' })).toBe(false)
    const tls = testApp({ config: { tlsCert: '/nonexistent/cert.pem', tlsKey: '/nonexistent/key.pem' } })
    const r = await account(tls)
    expect(await secure(tls, r.email, 'http://localhost/v1/auth/session')).toBe(true)
  })

  test('a wrong password is 401 invalid_credentials and sets no cookie; 422 for a malformed body', async () => {
    const t = testApp()
    const a = await account(t)
    const r = await t.request('POST', '/v1/auth/session', { body: { email: a.email, password: 'wrong password' } })
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('invalid_credentials')
    expect(r.headers.get('set-cookie')).toBeNull()
    const bad = await t.request('POST', '/v1/auth/session', { body: { password: PASSWORD } })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['body', 'email'])
  })

  test('throttled with the password login: failures on either count for both', async () => {
    const t = testApp()
    const a = await account(t)
    for (let i = 0; i < 5; i++) await t.request('POST', '/v1/auth/login', { body: { email: a.email, password: 'wrong password' } })
    const r = await t.request('POST', '/v1/auth/session', { body: { email: a.email, password: PASSWORD } })
    expect(r.status).toBe(429)
    expect(r.body.error.code).toBe('rate_limited')
    expect(r.headers.get('retry-after')).toBeTruthy()
  })
})

describe('cross-site requests', () => {
  const cases: [string, string, Record<string, string>][] = [
    ['POST', '/v1/auth/session', {}],
    ['POST', '/v1/auth/session/refresh', {}],
    ['POST', '/v1/auth/session/switch', {}],
    ['DELETE', '/v1/auth/session', {}],
  ]
  test('another site’s Origin, or Sec-Fetch-Site cross-site, is refused with 403 before anything is done', async () => {
    const t = testApp()
    const a = await account(t)
    const s = await signIn(t, a.email)
    for (const [method, path] of cases) {
      const hostiles: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { origin: 'http://localhost:8081' },
        { 'sec-fetch-site': 'cross-site' },
      ]
      for (const hostile of hostiles) {
        const r = await t.request(method, path, {
          headers: { ...withCookie(s.cookie), ...bearer(s.access), ...hostile },
          body: path.endsWith('switch') ? { client_id: a.clientId } : { email: a.email, password: PASSWORD },
        })
        expect({ path, hostile, status: r.status, code: r.body?.error?.code }).toEqual({ path, hostile, status: 403, code: 'forbidden' })
      }
    }
    // the cookie still works: nothing was spent
    const ok = await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(s.cookie) })
    expect(ok.status).toBe(200)
  })

  test('the request’s own origin and the portal’s (VIGIL_SITE_URL) are accepted, as is a request without Origin', async () => {
    const t = testApp({ config: { siteUrl: 'https://vigil.example.com' } })
    const a = await account(t)
    const friendly: Record<string, string>[] = [
      { origin: 'http://localhost' },
      { origin: 'https://vigil.example.com' },
      { 'sec-fetch-site': 'same-origin' },
      {},
    ]
    for (const headers of friendly) {
      const r = await t.request('POST', '/v1/auth/session', { body: { email: a.email, password: PASSWORD }, headers })
      expect({ headers, status: r.status }).toEqual({ headers, status: 200 })
    }
  })
})

describe('POST /v1/auth/session/refresh', () => {
  test('a new access token and a rotated cookie; the spent cookie again ends the session (reuse)', async () => {
    const t = testApp()
    const a = await account(t)
    const s = await signIn(t, a.email)
    t.clock.advance(1000)
    const r = await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(s.cookie) })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body).sort()).toEqual(['access_token', 'expires_in', 'token_type'])
    const next = COOKIE.exec(r.headers.get('set-cookie')!)![1]!
    expect(next).not.toBe(s.cookie)
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(r.body.access_token) })).status).toBe(200)

    const reused = await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(s.cookie) })
    expect(reused.status).toBe(401)
    expect(reused.body.error.code).toBe('unauthorized')
    expect(reused.headers.get('set-cookie')).toBe(CLEARED)
    // the whole family is gone: the newer cookie and the access tokens too
    expect((await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(next) })).status).toBe(401)
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(r.body.access_token) })).status).toBe(401)
  })

  test('401 with the cookie cleared when it is missing, unknown or expired', async () => {
    const t = testApp({ config: { refreshTtlSeconds: 3600 } })
    const a = await account(t)
    const s = await signIn(t, a.email)
    for (const headers of [{}, { cookie: 'other=1' }, withCookie('vrt_unknown'), withCookie('x'.repeat(600))]) {
      const r = await t.request('POST', '/v1/auth/session/refresh', { headers })
      expect(r.status).toBe(401)
      expect(r.headers.get('set-cookie')).toBe(CLEARED)
    }
    t.clock.advance(3_600_001)
    const expired = await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(s.cookie) })
    expect(expired.status).toBe(401)
    expect(expired.body.error.message).toContain('expired')
    expect(expired.headers.get('set-cookie')).toBe(CLEARED)
  })

  test('the JSON refresh endpoint and the cookie share one rotation: a token spent by one is spent for the other', async () => {
    const t = testApp()
    const a = await account(t)
    const s = await signIn(t, a.email)
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: s.cookie } })).status).toBe(200)
    expect((await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(s.cookie) })).status).toBe(401)
  })
})

describe('POST /v1/auth/session/switch', () => {
  test('a new session for another client of the user replaces the one in the cookie', async () => {
    const t = testApp()
    const a = await account(t)
    const other = await createTenant(t)
    t.db.sqlite.run("INSERT INTO members (id, client_id, user_id, role, status, created_at, updated_at) VALUES (?, ?, ?, 'member', 'active', ?, ?)", [
      newId('mem'),
      other.clientId,
      a.userId,
      t.clock.now(),
      t.clock.now(),
    ])
    const s = await signIn(t, a.email)
    const r = await t.request('POST', '/v1/auth/session/switch', {
      headers: { ...bearer(s.access), ...withCookie(s.cookie) },
      body: { client_id: other.clientId },
    })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body).sort()).toEqual(['access_token', 'expires_in', 'token_type'])
    const cookie = COOKIE.exec(r.headers.get('set-cookie')!)![1]!
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(r.body.access_token) })).body.client_id).toBe(other.clientId)
    // the new cookie refreshes into the other client; the old session is over
    const refreshed = await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(cookie) })
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(refreshed.body.access_token) })).body.client_id).toBe(other.clientId)
    expect((await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(s.cookie) })).status).toBe(401)
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(s.access) })).status).toBe(401)
  })

  test('404 for a client the user is not in; 401 without the cookie or the access token', async () => {
    const t = testApp()
    const a = await account(t)
    const stranger = await createTenant(t)
    const s = await signIn(t, a.email)
    const notMine = await t.request('POST', '/v1/auth/session/switch', {
      headers: { ...bearer(s.access), ...withCookie(s.cookie) },
      body: { client_id: stranger.clientId },
    })
    expect(notMine.status).toBe(404)
    const noCookie = await t.request('POST', '/v1/auth/session/switch', { headers: bearer(s.access), body: { client_id: a.clientId } })
    expect(noCookie.status).toBe(401)
    expect(noCookie.headers.get('set-cookie')).toBe(CLEARED)
    const noJwt = await t.request('POST', '/v1/auth/session/switch', { headers: withCookie(s.cookie), body: { client_id: a.clientId } })
    expect(noJwt.status).toBe(401)
    const bad = await t.request('POST', '/v1/auth/session/switch', { headers: { ...bearer(s.access), ...withCookie(s.cookie) }, body: {} })
    expect(bad.status).toBe(422)
  })
})

describe('DELETE /v1/auth/session', () => {
  test('revokes the session (its refresh and access tokens) and clears the cookie', async () => {
    const t = testApp()
    const a = await account(t)
    const s = await signIn(t, a.email)
    const r = await t.request('DELETE', '/v1/auth/session', { headers: withCookie(s.cookie) })
    expect(r.status).toBe(204)
    expect(r.headers.get('set-cookie')).toBe(CLEARED)
    expect((await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(s.cookie) })).status).toBe(401)
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(s.access) })).status).toBe(401)
  })

  test('204 without a cookie, or with an unknown one', async () => {
    const t = testApp()
    for (const headers of [{}, withCookie('vrt_unknown')]) {
      const r = await t.request('DELETE', '/v1/auth/session', { headers })
      expect(r.status).toBe(204)
      expect(r.headers.get('set-cookie')).toBe(CLEARED)
    }
  })
})

describe('POST /v1/auth/password', () => {
  const change = (t: TestApp, access: string, body: unknown) => t.request('POST', '/v1/auth/password', { headers: bearer(access), body })

  test('204: the new password signs in, the old one no longer; other sessions end, this one stays', async () => {
    const t = testApp()
    const a = await account(t)
    const mine = await signIn(t, a.email)
    const other = await signIn(t, a.email)
    const json = (await t.request('POST', '/v1/auth/login', { body: { email: a.email, password: PASSWORD } })).body
    const r = await change(t, mine.access, { current_password: PASSWORD, new_password: 'a new horse battery' })
    expect(r.status).toBe(204)
    expect((await t.request('POST', '/v1/auth/login', { body: { email: a.email, password: PASSWORD } })).status).toBe(401)
    expect((await t.request('POST', '/v1/auth/login', { body: { email: a.email, password: 'a new horse battery' } })).status).toBe(200)
    // other sessions: refresh and access tokens refused at once
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(other.access) })).status).toBe(401)
    expect((await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(other.cookie) })).status).toBe(401)
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(json.access_token) })).status).toBe(401)
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: json.refresh_token } })).status).toBe(401)
    // this session goes on
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(mine.access) })).status).toBe(200)
    expect((await t.request('POST', '/v1/auth/session/refresh', { headers: withCookie(mine.cookie) })).status).toBe(200)
  })

  test('a wrong current password is 401 invalid_credentials and changes nothing; repeated, it is throttled', async () => {
    const t = testApp()
    const a = await account(t)
    const s = await signIn(t, a.email)
    const r = await change(t, s.access, { current_password: 'not it at all', new_password: 'a new horse battery' })
    expect(r.status).toBe(401)
    expect(r.body.error).toMatchObject({ code: 'invalid_credentials', param: 'current_password' })
    expect((await t.request('GET', '/v1/auth/me', { headers: bearer(s.access) })).status).toBe(200)
    for (let i = 0; i < 4; i++) await change(t, s.access, { current_password: 'not it at all', new_password: 'a new horse battery' })
    const locked = await change(t, s.access, { current_password: PASSWORD, new_password: 'a new horse battery' })
    expect(locked.status).toBe(429)
    expect((await t.request('POST', '/v1/auth/login', { body: { email: a.email, password: PASSWORD } })).status).toBe(429)
  })

  test('422 for a new password outside 8 to 128 characters or a missing field; 401 without a token', async () => {
    const t = testApp()
    const a = await account(t)
    const s = await signIn(t, a.email)
    for (const [body, field] of [
      [{ current_password: PASSWORD, new_password: 'short77' }, 'new_password'],
      [{ current_password: PASSWORD, new_password: 'x'.repeat(129) }, 'new_password'],
      [{ new_password: 'a new horse battery' }, 'current_password'],
    ] as const) {
      const r = await change(t, s.access, body)
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['body', field])
    }
    expect((await change(t, s.access, { current_password: PASSWORD, new_password: 'x'.repeat(128) })).status).toBe(204)
    expect((await t.request('POST', '/v1/auth/password', { body: { current_password: PASSWORD, new_password: 'a new horse battery' } })).status).toBe(401)
  })
})
