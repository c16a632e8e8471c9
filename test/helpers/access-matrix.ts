/**
 * The shared access matrix: what every authenticated route must refuse, checked the same way
 * for every domain. Call it once per route inside a test:
 *
 *   import { expectAccessMatrix } from '../../helpers/access-matrix'
 *   test('access matrix', () => expectAccessMatrix({ method: 'GET', path: '/v1/auth/me', kind: 'jwt' }))
 *   test('access matrix', () => expectAccessMatrix({ method: 'POST', path: '/v1/metrics/hardware', kind: 'key', body: {}, scopes: ['metrics:write'] }))
 *
 * Or for a list of routes:  for (const r of ROUTES) test(`${r.method} ${r.path}`, () => expectAccessMatrix(r))
 *
 * Always checked (each must answer 401 `unauthorized`):
 *   - no credential
 *   - malformed credential (garbage, wrong scheme, empty bearer, made-up `vk_…` key)
 *   - expired credential (JWT past exp; API key past expires_at), a revoked key, a JWT with a
 *     wrong signature, `alg: none` and another audience
 *   - the other kind of credential (a valid API key on a JWT route, in `x-api-key` and as a
 *     bearer; a valid JWT on a key route)
 * Always checked for JWT routes: a member whose membership is disabled gets 403 `forbidden`.
 * Checked when the route says so (each must answer 403):
 *   - `roles`: the member roles allowed; a member with any other role gets `forbidden`
 *   - `operator: true`: a non-operator user gets `forbidden`
 *   - `scopes`: the scopes of which one suffices; a key holding every other scope gets `insufficient_scope`
 * Finally a right credential must get past the guard (anything but 401/403), which also proves
 * the path exists. Path parameters may be placeholders: guards run before lookups and validation.
 * "Another tenant's object → 404" depends on the route's data: test it in the route's own file.
 *
 * Each call builds its own fresh app (so the anonymous rate limit never interferes), unless
 * `opts.app` gives one.
 */
import { expect } from 'bun:test'
import { SCOPES, type Scope } from '../../src/http/auth'
import type { MemberRole } from '../../src/http/principal'
import { testApp, type TestApp } from './app'
import { addMember, createKey, createTenant } from './fixtures'

export interface MatrixRoute {
  method: string
  path: string
  kind: 'jwt' | 'key'
  body?: unknown
  /** key routes: scopes of which any one suffices */
  scopes?: Scope[]
  /** jwt routes: member roles allowed (default: all) */
  roles?: MemberRole[]
  /** jwt routes: instance operator only */
  operator?: boolean
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

export async function expectAccessMatrix(route: MatrixRoute, opts: { app?: TestApp } = {}): Promise<void> {
  const t = opts.app ?? testApp()
  const label = `${route.method} ${route.path}`
  const send = (headers: Record<string, string>) => t.request(route.method, route.path, { headers, body: route.body })

  const expectStatus = async (why: string, headers: Record<string, string>, status: number, code: string) => {
    const res = await send(headers)
    expect({ route: label, case: why, status: res.status, code: res.body?.error?.code }).toEqual({ route: label, case: why, status, code })
  }
  const expect401 = (why: string, headers: Record<string, string>) => expectStatus(why, headers, 401, 'unauthorized')

  const tenant = await createTenant(t, { role: route.operator ? 'admin' : 'user' })

  // no credential
  await expect401('no credential', {})

  // malformed
  if (route.kind === 'jwt') {
    await expect401('garbage bearer', { authorization: 'Bearer not-a-token' })
    await expect401('three garbage parts', { authorization: 'Bearer aaa.bbb.ccc' })
    await expect401('basic scheme', { authorization: 'Basic dXNlcjpwYXNz' })
    await expect401('empty bearer', { authorization: 'Bearer ' })
  } else {
    await expect401('garbage key', { 'x-api-key': 'garbage' })
    await expect401('made-up vk_ key', { 'x-api-key': `vk_${'A'.repeat(46)}` })
    await expect401('made-up bearer key', { authorization: `Bearer vk_${'A'.repeat(46)}` })
    await expect401('empty bearer', { authorization: 'Bearer ' })
  }

  // expired, revoked, forged
  if (route.kind === 'jwt') {
    const now = t.clock.now()
    t.clock.set(now - 901_000)
    const old = await t.modules.users.tokens.sign({ userId: tenant.userId, clientId: tenant.clientId, role: route.operator ? 'admin' : 'user' })
    t.clock.set(now)
    await expect401('expired JWT', { authorization: `Bearer ${old}` })
    const [h, p, s] = tenant.token.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString())
    await expect401('tampered payload', { authorization: `Bearer ${h}.${b64url({ ...claims, sub: 'usr_other' })}.${s}` })
    await expect401('wrong signature', { authorization: `Bearer ${h}.${p}.${s.slice(0, -4)}AAAA` })
    await expect401('alg none', { authorization: `Bearer ${b64url({ alg: 'none', typ: 'JWT' })}.${p}.` })
    await expect401('wrong audience', { authorization: `Bearer ${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ ...claims, aud: 'other' })}.${s}` })
  } else {
    const expired = createKey(t, tenant.clientId, { scopes: [...SCOPES], expiresAt: t.clock.now() - 1 })
    await expect401('expired key', expired.headers)
    const revoked = createKey(t, tenant.clientId, { scopes: [...SCOPES] })
    t.db.sqlite.run('UPDATE api_keys SET is_active = 0 WHERE id = ?', [revoked.keyId])
    t.modules.apiKeys.verifier.invalidate(revoked.keyId)
    await expect401('revoked key', revoked.headers)
  }

  // the other kind of credential
  if (route.kind === 'jwt') {
    const key = createKey(t, tenant.clientId, { scopes: [...SCOPES] })
    await expect401('API key in x-api-key', key.headers)
    await expect401('API key as bearer', { authorization: `Bearer ${key.key}` })
  } else {
    await expect401('JWT on a key route', tenant.userHeaders)
  }

  // role, operator, scope
  if (route.kind === 'jwt') {
    const off = await addMember(t, tenant.clientId, 'owner', { role: route.operator ? 'admin' : 'user' })
    t.db.sqlite.run("UPDATE members SET status = 'disabled' WHERE user_id = ?", [off.userId])
    await expectStatus('disabled member', off.headers, 403, 'forbidden')
  }
  if (route.kind === 'jwt' && route.roles) {
    for (const role of ['owner', 'admin', 'member'] as const) {
      if (route.roles.includes(role)) continue
      const m = await addMember(t, tenant.clientId, role, { role: route.operator ? 'admin' : 'user' })
      await expectStatus(`member role ${role}`, m.headers, 403, 'forbidden')
    }
  }
  if (route.kind === 'jwt' && route.operator) {
    const plain = await createTenant(t, { role: 'user' })
    await expectStatus('non-operator', plain.userHeaders, 403, 'forbidden')
  }
  if (route.kind === 'key' && route.scopes) {
    const others = SCOPES.filter((s) => !route.scopes!.includes(s))
    const weak = createKey(t, tenant.clientId, { scopes: others })
    await expectStatus(`key with only ${others.join(',') || 'no scopes'}`, weak.headers, 403, 'insufficient_scope')
  }

  // a right credential gets past the guard
  const good = route.kind === 'jwt' ? tenant.userHeaders : createKey(t, tenant.clientId, { scopes: route.scopes ?? [...SCOPES] }).headers
  const res = await send(good)
  expect({ route: label, case: 'right credential', passed: res.status !== 401 && res.status !== 403 }).toEqual({
    route: label,
    case: 'right credential',
    passed: true,
  })
}
