import { describe, expect, test } from 'bun:test'
import { testApp, TEST_PASSWORD_COST, type TestApp } from '../../helpers/app'
import { manualClock } from '../../../src/lib/clock'
import { resetPassword } from '../../../src/modules/users/users.service'
import { passwords } from '../../../src/modules/users/users.passwords'
import { REVOCATION_POLL_MS, sessionRevocations } from '../../../src/modules/users/users.revocations'
import { createSessionsStore } from '../../../src/modules/users/users.sessions.store'
import { accountTasks } from '../../../src/composition/identity'
import { ACCESS_TOKEN_TTL_SECONDS } from '../../../src/modules/users/users.tokens'

const PASSWORD = 'correct horse battery'

async function session(t: TestApp, email: string) {
  const res = await t.request('POST', '/v1/auth/login', { body: { email, password: PASSWORD } })
  expect(res.status).toBe(200)
  return { ...res.body, headers: { authorization: `Bearer ${res.body.access_token}` } } as {
    access_token: string
    refresh_token: string
    headers: Record<string, string>
  }
}

async function signedUp(t: TestApp, email: string) {
  expect((await t.request('POST', '/v1/auth/register', { body: { email, password: PASSWORD } })).status).toBe(201)
}

const me = async (t: TestApp, headers: Record<string, string>) => (await t.request('GET', '/v1/auth/me', { headers })).status

describe('ending a session ends its access tokens at once', () => {
  test('logout: the access token of that session is 401 on the next request; other sessions go on', async () => {
    const t = testApp()
    await signedUp(t, 'u@example.test')
    const a = await session(t, 'u@example.test')
    const b = await session(t, 'u@example.test')
    expect(await me(t, a.headers)).toBe(200) // verified and cached before the logout
    expect((await t.request('POST', '/v1/auth/logout', { body: { refresh_token: a.refresh_token } })).status).toBe(204)
    const after = await t.request('GET', '/v1/auth/me', { headers: a.headers })
    expect(after.status).toBe(401)
    expect(after.body.error.code).toBe('unauthorized')
    expect(await me(t, b.headers)).toBe(200)
  })

  test('refresh-token reuse revokes the family: its access tokens, old and new, are 401', async () => {
    const t = testApp()
    await signedUp(t, 'u@example.test')
    const first = await session(t, 'u@example.test')
    const other = await session(t, 'u@example.test')
    const second = (await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } })).body
    const secondHeaders = { authorization: `Bearer ${second.access_token}` }
    expect(await me(t, secondHeaders)).toBe(200)
    expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } })).status).toBe(401)
    expect(await me(t, first.headers)).toBe(401)
    expect(await me(t, secondHeaders)).toBe(401)
    expect(await me(t, other.headers)).toBe(200)
  })

  test('a password reset from the CLI (another process) reaches the running service within the poll interval', async () => {
    const t = testApp()
    await signedUp(t, 'u@example.test')
    await signedUp(t, 'someone@example.test')
    const a = await session(t, 'u@example.test')
    const b = await session(t, 'u@example.test')
    const bystander = await session(t, 'someone@example.test')
    expect(await me(t, a.headers)).toBe(200)
    // what `vigil admin reset-password` does: it shares only the database with the service, not its memory
    await resetPassword(accountTasks({ db: t.db }, manualClock(t.clock.now()), passwords(TEST_PASSWORD_COST)), 'u@example.test', 'a brand new password')
    t.clock.advance(REVOCATION_POLL_MS)
    expect(await me(t, a.headers)).toBe(401)
    expect(await me(t, b.headers)).toBe(401)
    expect(await me(t, bystander.headers)).toBe(200)
  })

  test('a restarted service still refuses the access tokens of sessions revoked before it started', async () => {
    const t = testApp()
    await signedUp(t, 'u@example.test')
    const a = await session(t, 'u@example.test')
    await t.request('POST', '/v1/auth/logout', { body: { refresh_token: a.refresh_token } })
    const restarted = testApp({ db: t.db, clock: t.clock })
    expect(await me(restarted, a.headers)).toBe(401)
  })
})

describe('sessionRevocations', () => {
  test('loads recent revocations at start, re-reads every few seconds, forgets after the token lifetime', async () => {
    const t = testApp()
    const clock = manualClock(t.clock.now())
    t.db.sqlite.run("INSERT INTO users (id, email, password_hash, role, created_at, updated_at) VALUES ('u1', 'x@example.test', 'x', 'user', 0, 0)")
    const insert = (family: string, revokedAt: number | null) =>
      t.db.sqlite.run('INSERT INTO refresh_tokens (id, user_id, family_id, token_hash, expires_at, revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        `rt-${family}`,
        'u1',
        family,
        `h-${family}`,
        clock.now() + 1e9,
        revokedAt,
        0,
      ])
    insert('old', clock.now() - ACCESS_TOKEN_TTL_SECONDS * 1000 - 1)
    insert('recent', clock.now() - 1000)
    insert('live', null)
    const r = sessionRevocations(createSessionsStore(t.db.sqlite), clock)
    expect([await r.isRevoked('old'), await r.isRevoked('recent'), await r.isRevoked('live')]).toEqual([false, true, false])
    t.db.sqlite.run('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ?', [clock.now(), 'live'])
    expect(await r.isRevoked('live')).toBe(false) // not re-read yet: no query per request
    clock.advance(REVOCATION_POLL_MS)
    expect(await r.isRevoked('live')).toBe(true)
    r.add(['mine'])
    expect(await r.isRevoked('mine')).toBe(true)
    clock.advance(ACCESS_TOKEN_TTL_SECONDS * 1000 + 120_000)
    expect(await r.isRevoked('mine')).toBe(false)
  })
})
