import { describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { testApp, type TestApp } from '../../helpers/app'
import { linkedPeers } from '../../helpers/peer-links'

/**
 * Accounts, sessions, members and the operator's views over HTTP with the app's stores on
 * PostgreSQL: the same answers as on SQLite, with the rows in PostgreSQL.
 */
const pgApp = pgTestAppLifecycle()
const PASSWORD = 'correct horse battery'
/** making and migrating a database takes seconds on a busy machine */
const SLOW = 60_000

const register = (t: TestApp, email: string, extra: Record<string, unknown> = {}) =>
  t.request('POST', '/v1/auth/register', { body: { email, password: PASSWORD, ...extra } })
async function signIn(t: TestApp, email: string) {
  const res = await t.request('POST', '/v1/auth/login', { body: { email, password: PASSWORD } })
  expect(res.status).toBe(200)
  return { tokens: res.body, h: { authorization: `Bearer ${res.body.access_token}` } }
}
const count = async (sql: SQL, table: string) => Number((await sql.unsafe(`SELECT count(*) AS n FROM ${table}`))[0].n)

describe('identity over HTTP on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(
    `register, log in, refresh and read oneself: the accounts live in PostgreSQL ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make()
      const first = await register(t, 'Ada@Example.test', { first_name: 'Ada', company: 'Acme' })
      expect(first.status).toBe(201)
      expect(first.body).toMatchObject({ email: 'ada@example.test', first_name: 'Ada', role: 'admin' })
      expect((await register(t, 'bob@example.test')).body.role).toBe('user')
      expect((await register(t, 'BOB@example.test')).body.error.code).toBe('email_taken')
      expect(await count(t.sql, 'users')).toBe(2)
      expect(await count(t.sql, 'clients')).toBe(2)
      expect(await count(t.sql, 'members')).toBe(2)
      // nothing of it in the app's SQLite file
      expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM users').get()!.n).toBe(0)

      const { tokens, h } = await signIn(t, 'ada@example.test')
      expect((await t.request('GET', '/v1/auth/me', { headers: h })).body).toMatchObject({ email: 'ada@example.test', client_id: first.body.client_id })
      expect((await t.request('GET', '/v1/clients/me', { headers: h })).body).toMatchObject({ name: 'Acme', plan_type: 'free', max_users: 50 })
      const wrong = await t.request('POST', '/v1/auth/login', { body: { email: 'ada@example.test', password: 'not the password' } })
      expect(wrong.status).toBe(401)
      const refreshed = await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } })
      expect(refreshed.status).toBe(200)
      expect((await t.request('GET', '/v1/auth/me', { headers: { authorization: `Bearer ${refreshed.body.access_token}` } })).status).toBe(200)
      // the spent token again is reuse: refused
      expect((await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: tokens.refresh_token } })).status).toBe(401)
    },
    SLOW,
  )

  test.skipIf(pgApp.skip)(
    `invitations, members, role changes and switching client; another tenant's member is 404 ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make()
      const owner = (await register(t, 'owner@example.test', { company: 'Acme' })).body
      await register(t, 'guest@example.test', { company: 'Guest Co' })
      const o = await signIn(t, 'owner@example.test')
      const g = await signIn(t, 'guest@example.test')
      // an invitation of an existing account, accepted with its secret
      const invited = await t.request('POST', '/v1/clients/me/members', { headers: o.h, body: { email: 'guest@example.test', role: 'member' } })
      expect(invited.status).toBe(201)
      expect(invited.body).toMatchObject({ status: 'invited', email: 'guest@example.test' })
      const accepted = await t.request('POST', '/v1/invitations/accept', { headers: g.h, body: { token: invited.body.invitation_token } })
      expect(accepted.status).toBe(200)
      expect(accepted.body).toMatchObject({ status: 'active', client_id: owner.client_id, email: 'guest@example.test' })
      // the guest switches to Acme and reads it as a member; managing members needs owner or admin
      const memberships = (await t.request('GET', '/v1/auth/memberships', { headers: g.h })).body
      expect(memberships.map((m: { client_name: string }) => m.client_name).sort()).toEqual(['Acme', 'Guest Co'])
      const switched = await t.request('POST', '/v1/auth/switch', { headers: g.h, body: { client_id: owner.client_id } })
      expect(switched.status).toBe(200)
      const inAcme = { authorization: `Bearer ${switched.body.access_token}` }
      expect((await t.request('GET', '/v1/clients/me', { headers: inAcme })).body.name).toBe('Acme')
      expect((await t.request('PATCH', '/v1/clients/me', { headers: inAcme, body: { name: 'Mine' } })).status).toBe(403)
      // promoted to admin, the guest may now rename; the last owner stays owner
      const members = (await t.request('GET', '/v1/clients/me/members', { headers: o.h })).body as { id: string; role: string }[]
      const guestMember = members.find((m) => m.role === 'member')!
      const ownerMember = members.find((m) => m.role === 'owner')!
      expect((await t.request('PATCH', `/v1/clients/me/members/${guestMember.id}`, { headers: o.h, body: { role: 'admin' } })).body.role).toBe('admin')
      expect((await t.request('PATCH', '/v1/clients/me', { headers: inAcme, body: { name: 'Acme Ltd' } })).body.name).toBe('Acme Ltd')
      const demote = await t.request('PATCH', `/v1/clients/me/members/${ownerMember.id}`, { headers: o.h, body: { role: 'member' } })
      expect(demote.body.error.code).toBe('last_owner')
      // another tenant's member is not found from the guest's own client
      expect((await t.request('DELETE', `/v1/clients/me/members/${ownerMember.id}`, { headers: g.h })).status).toBe(404)
      // a new account registering with an invitation joins Acme instead of getting a client of its own
      const third = await t.request('POST', '/v1/clients/me/members', { headers: o.h, body: { email: 'third@example.test' } })
      const joined = await register(t, 'third@example.test', { invitation_token: third.body.invitation_token })
      expect(joined.status).toBe(201)
      expect(joined.body.client_id).toBe(owner.client_id)
      expect(await count(t.sql, 'clients')).toBe(2)
      const reused = await register(t, 'fourth@example.test', { invitation_token: third.body.invitation_token })
      expect(reused.body.error.code).toBe('invalid_invitation')
      // removed, the guest's session in Acme is refused at once
      expect((await t.request('DELETE', `/v1/clients/me/members/${guestMember.id}`, { headers: o.h })).status).toBe(204)
      expect((await t.request('GET', '/v1/clients/me', { headers: inAcme })).status).toBe(403)
    },
    SLOW,
  )

  test.skipIf(pgApp.skip)(
    `the operator's stats, client list and plan change ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make()
      await register(t, 'op@example.test', { company: 'Operator' })
      const tenant = (await register(t, 'tenant@example.test', { company: 'Tenant' })).body
      const op = await signIn(t, 'op@example.test')
      const stats = await t.request('GET', '/v1/admin/stats', { headers: op.h })
      expect(stats.status).toBe(200)
      expect(stats.body).toMatchObject({ users: 2, operators: 1, clients: 2, paying_clients: 0, members: 2 })
      const list = (await t.request('GET', '/v1/admin/clients?limit=1&offset=1', { headers: op.h })).body
      expect(list).toMatchObject({ total: 2, limit: 1, offset: 1 })
      expect(list.items).toEqual([expect.objectContaining({ client_id: tenant.client_id, name: 'Tenant', owner_email: 'tenant@example.test' })])
      expect(list.items[0].usage.members).toBe(1)
      const patched = await t.request('PATCH', `/v1/admin/clients/${tenant.client_id}`, { headers: op.h, body: { max_devices: 7, rate_limit: 1234 } })
      expect(patched.body).toMatchObject({ max_devices: 7, max_devices_override: 7, rate_limit: 1234 })
      // the tenant's next request is counted against its new limit
      const t1 = await signIn(t, 'tenant@example.test')
      expect((await t.request('GET', '/v1/clients/me', { headers: t1.h })).headers.get('x-ratelimit-limit')).toBe('1234')
      expect((await t.request('GET', '/v1/admin/stats', { headers: t1.h })).status).toBe(403)
    },
    SLOW,
  )

  test.skipIf(pgApp.skip)(
    `the browser's session: signed in by cookie, switched to another client, and ended elsewhere by a password change ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make()
      const acme = (await register(t, 'owner@example.test', { company: 'Acme' })).body
      await register(t, 'user@example.test')
      const o = await signIn(t, 'owner@example.test')
      const token = (await t.request('POST', '/v1/clients/me/members', { headers: o.h, body: { email: 'user@example.test' } })).body.invitation_token
      const browser = async () => {
        const r = await t.request('POST', '/v1/auth/session', { body: { email: 'user@example.test', password: PASSWORD } })
        expect(r.status).toBe(200)
        return { access: r.body.access_token as string, cookie: /vigil_session=([^;]+)/.exec(r.headers.get('set-cookie')!)![1]! }
      }
      const mine = await browser()
      const other = await browser()
      const bearer = (access: string) => ({ authorization: `Bearer ${access}` })
      expect((await t.request('POST', '/v1/invitations/accept', { headers: bearer(mine.access), body: { token } })).status).toBe(200)
      const switched = await t.request('POST', '/v1/auth/session/switch', {
        headers: { ...bearer(mine.access), cookie: `vigil_session=${mine.cookie}` },
        body: { client_id: acme.client_id },
      })
      expect(switched.status).toBe(200)
      const now = { access: switched.body.access_token as string, cookie: /vigil_session=([^;]+)/.exec(switched.headers.get('set-cookie')!)![1]! }
      expect((await t.request('GET', '/v1/auth/me', { headers: bearer(now.access) })).body.client_id).toBe(acme.client_id)
      expect((await t.request('GET', '/v1/auth/me', { headers: bearer(mine.access) })).status).toBe(401) // the replaced session
      const changed = await t.request('POST', '/v1/auth/password', {
        headers: bearer(now.access),
        body: { current_password: PASSWORD, new_password: 'a new horse battery' },
      })
      expect(changed.status).toBe(204)
      expect((await t.request('GET', '/v1/auth/me', { headers: bearer(other.access) })).status).toBe(401)
      expect((await t.request('POST', '/v1/auth/session/refresh', { headers: { cookie: `vigil_session=${other.cookie}` } })).status).toBe(401)
      expect((await t.request('POST', '/v1/auth/session/refresh', { headers: { cookie: `vigil_session=${now.cookie}` } })).status).toBe(200)
    },
    SLOW,
  )

  test.skipIf(pgApp.skip)(
    `two hubs on one database: a member removed on one hub is refused on the other at once ${pgApp.skipReason}`,
    async () => {
      const { links } = linkedPeers(2)
      const a = await pgApp.make({ peers: links[0] })
      const b = testApp({ pg: a.sql, peers: links[1], clock: a.clock })
      const owner = (await register(a, 'owner@example.test', { company: 'Acme' })).body
      await register(b, 'member@example.test')
      const o = await signIn(a, 'owner@example.test')
      const invited = (await a.request('POST', '/v1/clients/me/members', { headers: o.h, body: { email: 'member@example.test', role: 'admin' } })).body
      const m = await signIn(b, 'member@example.test')
      expect((await b.request('POST', '/v1/invitations/accept', { headers: m.h, body: { token: invited.invitation_token } })).status).toBe(200)
      const inAcme = {
        authorization: `Bearer ${(await b.request('POST', '/v1/auth/switch', { headers: m.h, body: { client_id: owner.client_id } })).body.access_token}`,
      }
      // hub B has read (and keeps) the member's role
      expect((await b.request('GET', '/v1/clients/me/members', { headers: inAcme })).status).toBe(200)
      expect((await b.request('PATCH', '/v1/clients/me', { headers: inAcme, body: { name: 'By B' } })).status).toBe(200)
      // demoted on hub A: hub B refuses what an admin may do at the next request
      const memberId = invited.id
      expect((await a.request('PATCH', `/v1/clients/me/members/${memberId}`, { headers: o.h, body: { role: 'member' } })).status).toBe(200)
      expect((await b.request('PATCH', '/v1/clients/me', { headers: inAcme, body: { name: 'Again' } })).status).toBe(403)
      // removed on hub A: hub B refuses the member at once
      expect((await a.request('DELETE', `/v1/clients/me/members/${memberId}`, { headers: o.h })).status).toBe(204)
      expect((await b.request('GET', '/v1/clients/me/members', { headers: inAcme })).status).toBe(403)
    },
    SLOW,
  )
})
