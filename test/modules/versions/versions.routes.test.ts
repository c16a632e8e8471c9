import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { createKey, createTenant } from '../../helpers/fixtures'
import { compareSemver } from '../../../src/modules/versions/versions.semver'

const publish = (t: TestApp, headers: Record<string, string>, body: Record<string, unknown>) => t.request('POST', '/v1/versions', { headers, body })

describe('compareSemver', () => {
  test('orders by precedence, numerically, releases above their pre-releases', () => {
    const sorted = ['1.9.3', '1.10.0', '1.0.0', '1.0.0-rc.1', '1.0.0-beta.11', '1.0.0-beta.2', '1.0.0-alpha', '0.9.9', '2.0.0+build.5'].sort(compareSemver)
    expect(sorted).toEqual(['0.9.9', '1.0.0-alpha', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.9.3', '1.10.0', '2.0.0+build.5'])
  })
})

describe('POST /v1/versions', () => {
  test('the operator publishes a version (200); a duplicate is 409; bad input 422', async () => {
    const t = testApp()
    const op = await createTenant(t, { role: 'admin' })
    const res = await publish(t, op.userHeaders, {
      platform: 'Linux',
      version: '1.2.3',
      build_number: 7,
      release_notes: 'fixes',
      download_url: 'https://example.test/c.tar.gz',
      sha256: 'AB'.repeat(32),
      is_mandatory: true,
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      id: expect.any(String),
      platform: 'linux',
      version: '1.2.3',
      build_number: 7,
      release_notes: 'fixes',
      download_url: 'https://example.test/c.tar.gz',
      sha256: 'ab'.repeat(32),
      is_mandatory: true,
      auto_install: true,
      created_at: expect.any(String),
    })
    expect((await publish(t, op.userHeaders, { platform: 'linux', version: '1.2.3' })).status).toBe(409)
    const minimal = await publish(t, op.userHeaders, { platform: 'windows', version: '0.1.0' })
    expect(minimal.body).toMatchObject({ build_number: null, release_notes: null, download_url: null, sha256: null, is_mandatory: false, auto_install: false })
    for (const body of [
      { platform: 'linux', version: 'latest' },
      { platform: 'linux' },
      { platform: 'li nux', version: '1.0.0' },
      { platform: 'linux', version: '1.0.0', download_url: 'not a url' },
    ]) {
      expect((await publish(t, op.userHeaders, body)).status).toBe(422)
    }
  })

  test('a non-operator is 403', async () => {
    const t = testApp()
    const u = await createTenant(t)
    expect((await publish(t, u.userHeaders, { platform: 'linux', version: '1.0.0' })).status).toBe(403)
  })
})

describe('GET /v1/versions/{platform}', () => {
  test('the latest by semantic-version order, not publication order; 404 when none', async () => {
    const t = testApp()
    const op = await createTenant(t, { role: 'admin' })
    const c = await createTenant(t)
    expect((await t.request('GET', '/v1/versions/linux', { headers: c.keyHeaders })).status).toBe(404)
    for (const v of ['1.9.3', '1.10.0', '1.10.1-rc.1', '1.2.0']) await publish(t, op.userHeaders, { platform: 'linux', version: v })
    await publish(t, op.userHeaders, { platform: 'darwin', version: '9.0.0' })
    const res = await t.request('GET', '/v1/versions/Linux', { headers: c.keyHeaders })
    expect(res.status).toBe(200)
    expect(res.body.version).toBe('1.10.1-rc.1')
    await publish(t, op.userHeaders, { platform: 'linux', version: '1.10.1' })
    expect((await t.request('GET', '/v1/versions/linux', { headers: c.keyHeaders })).body.version).toBe('1.10.1')
    expect((await t.request('GET', '/v1/versions/freebsd', { headers: c.keyHeaders })).status).toBe(404)
  })

  test('a default-scoped key and a versions:read key may read; a key with neither is 403 insufficient_scope', async () => {
    const t = testApp()
    const c = await createTenant(t)
    const reader = createKey(t, c.clientId, { scopes: ['versions:read'] })
    const other = createKey(t, c.clientId, { scopes: ['devices:write', 'recommendations:write'] })
    expect((await t.request('GET', '/v1/versions/linux', { headers: c.keyHeaders })).status).toBe(404)
    expect((await t.request('GET', '/v1/versions/linux', { headers: reader.headers })).status).toBe(404)
    const denied = await t.request('GET', '/v1/versions/linux', { headers: other.headers })
    expect(denied.status).toBe(403)
    expect(denied.body.error.code).toBe('insufficient_scope')
  })
})

describe('GET /v1/versions', () => {
  test('the operator lists every published version, newest first, paged and by platform', async () => {
    const t = testApp()
    const op = await createTenant(t, { role: 'admin' })
    for (const [platform, version] of [
      ['linux-x64', '1.0.0'],
      ['linux-arm64', '1.0.0'],
      ['linux-x64', '1.1.0'],
    ]) {
      expect((await publish(t, op.userHeaders, { platform, version })).status).toBe(200)
      t.clock.advance(1_000)
    }
    const all = await t.request('GET', '/v1/versions', { headers: op.userHeaders })
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0 })
    expect(all.body.items.map((v: any) => `${v.platform}@${v.version}`)).toEqual(['linux-x64@1.1.0', 'linux-arm64@1.0.0', 'linux-x64@1.0.0'])
    const page = await t.request('GET', '/v1/versions?limit=1&offset=1', { headers: op.userHeaders })
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1, items: [{ platform: 'linux-arm64' }] })
    const one = await t.request('GET', '/v1/versions?platform=Linux-X64', { headers: op.userHeaders })
    expect(one.body.total).toBe(2)
    expect(one.body.items.every((v: any) => v.platform === 'linux-x64')).toBe(true)
    for (const q of ['limit=0', 'limit=201', 'offset=-1', 'platform=a%20b']) {
      expect((await t.request('GET', `/v1/versions?${q}`, { headers: op.userHeaders })).status).toBe(422)
    }
  })

  test('anyone but the operator is refused', async () => {
    const t = testApp()
    const u = await createTenant(t)
    expect((await t.request('GET', '/v1/versions', { headers: u.userHeaders })).status).toBe(403)
    expect((await t.request('GET', '/v1/versions', { headers: { 'x-api-key': u.apiKey } })).status).toBe(401)
    expect((await t.request('GET', '/v1/versions')).status).toBe(401)
  })
})
