import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'

const PASSWORD = 'correct horse battery'

async function signedIn(t: TestApp, email: string) {
  await t.request('POST', '/v1/auth/register', { body: { email, password: PASSWORD } })
  const tokens = (await t.request('POST', '/v1/auth/login', { body: { email, password: PASSWORD } })).body
  return { authorization: `Bearer ${tokens.access_token}` }
}

const invite = async (t: TestApp, headers: Record<string, string>, email: string) =>
  (await t.request('POST', '/v1/clients/me/members', { headers, body: { email } })).body as {
    id: string
    invitation_token: string
    invitation_expires_at: string
  }
const accept = (t: TestApp, headers: Record<string, string>, token: string) => t.request('POST', '/v1/invitations/accept', { headers, body: { token } })
const statusOf = async (t: TestApp, headers: Record<string, string>, id: string) =>
  ((await t.request('GET', '/v1/clients/me/members', { headers })).body as { id: string; status: string }[]).find((m) => m.id === id)?.status

describe('invitations need their secret', () => {
  test('whoever registers the invited email first gets nothing without the secret', async () => {
    const t = testApp()
    await createTenant(t)
    const a = await createTenant(t)
    const inv = await invite(t, a.userHeaders, 'victim@example.test')
    const squatter = await signedIn(t, 'victim@example.test')
    expect((await t.request('POST', '/v1/auth/switch', { headers: squatter, body: { client_id: a.clientId } })).status).toBe(404)
    expect((await accept(t, squatter, 'vin_guessed')).status).toBe(404)
    expect(await statusOf(t, a.userHeaders, inv.id)).toBe('invited')
    const mine = (await t.request('GET', '/v1/auth/memberships', { headers: squatter })).body as { client_id: string }[]
    expect(mine.map((m) => m.client_id)).not.toContain(a.clientId)
  })

  test('the secret is stored only as its hash, works once, and only for the invited email', async () => {
    const t = testApp()
    await createTenant(t)
    const a = await createTenant(t)
    const inv = await invite(t, a.userHeaders, 'b@example.test')
    const stored = t.db.sqlite.query<{ invite_token_hash: string }, [string]>('SELECT invite_token_hash FROM members WHERE id = ?').get(inv.id)!
    expect(stored.invite_token_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(t.db.sqlite.query('SELECT * FROM members').all())).not.toContain(inv.invitation_token)
    // someone else holding the link cannot use it
    const other = await signedIn(t, 'other@example.test')
    const wrong = await accept(t, other, inv.invitation_token)
    expect(wrong.status).toBe(403)
    expect(wrong.body.error.code).toBe('forbidden')
    const b = await signedIn(t, 'b@example.test')
    expect((await accept(t, b, inv.invitation_token)).status).toBe(200)
    expect(await statusOf(t, a.userHeaders, inv.id)).toBe('active')
    expect((await accept(t, b, inv.invitation_token)).status).toBe(404) // single use
  })

  test('an invitation expires after 7 days', async () => {
    const t = testApp()
    await createTenant(t)
    const a = await createTenant(t)
    const inv = await invite(t, a.userHeaders, 'late@example.test')
    expect(Date.parse(inv.invitation_expires_at)).toBe(t.clock.now() + 7 * 86_400_000)
    t.clock.advance(7 * 86_400_000)
    const late = await signedIn(t, 'late@example.test')
    const res = await accept(t, late, inv.invitation_token)
    expect(res.status).toBe(404)
    expect(res.body.error.message).toContain('expired')
  })

  test('an existing account invited by email also needs the secret', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const inv = await invite(t, a.userHeaders, b.email)
    expect((await t.request('POST', '/v1/auth/switch', { headers: b.userHeaders, body: { client_id: a.clientId } })).status).toBe(404)
    expect((await accept(t, b.userHeaders, inv.invitation_token)).status).toBe(200)
    expect((await t.request('POST', '/v1/auth/switch', { headers: b.userHeaders, body: { client_id: a.clientId } })).status).toBe(200)
  })
})
