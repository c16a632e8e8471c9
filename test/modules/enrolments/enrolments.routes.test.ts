import { describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testApp, type TestApp } from '../../helpers/app'
import { addMember, createTenant } from '../../helpers/fixtures'
import { hardwareSample } from '../../helpers/samples'

const machine = (fingerprint: string, token: string) => ({
  token,
  hostname: `host-${fingerprint}`,
  os: 'linux',
  os_version: 'Debian 12',
  arch: 'x86_64',
  fingerprint,
})

async function enrolment(t: TestApp, headers: Record<string, string>, body: Record<string, unknown> = {}) {
  const r = await t.request('POST', '/v1/enrolments', { body, headers })
  expect(r.status).toBe(201)
  return r.body as { token: string; expires_at: string; install_command: string; pin: string | null }
}

const redeem = (t: TestApp, fingerprint: string, token: string) => t.request('POST', '/v1/enrolments/redeem', { body: machine(fingerprint, token) })

describe('POST /v1/enrolments', () => {
  test('an owner gets a token, its expiry (60 min) and the install one-liner for the address it called', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const e = await enrolment(t, a.userHeaders)
    expect(e.token).toMatch(/^vet_[A-Za-z0-9_-]{32}$/)
    expect(e.expires_at).toBe('2026-01-01T01:00:00.000Z')
    expect(e.pin).toBeNull()
    expect(e.install_command).toBe(`curl -fsSL http://localhost/install.sh | sudo sh -s -- --token ${e.token}`)
    // only the hash is stored
    const rows = t.db.sqlite.query<{ token_hash: string }, []>('SELECT token_hash FROM enrolments').all()
    expect(rows).toHaveLength(1)
    expect(rows[0]!.token_hash).not.toContain(e.token)
  })

  test('install_available and its reason: false with what to do on a hub with no executable to serve, true once it has one; both in the OpenAPI', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-enrol-'))
    const t = testApp({ config: { dataDir } })
    const a = await createTenant(t)
    const none = (await t.request('POST', '/v1/enrolments', { body: {}, headers: a.userHeaders })).body
    expect(none.install_available).toBe(false)
    expect(none.install_unavailable_reason).toContain('bun run build')
    mkdirSync(join(dataDir, 'agents'))
    writeFileSync(join(dataDir, 'agents', 'vigil-linux-arm64'), 'an arm64 build')
    const some = (await t.request('POST', '/v1/enrolments', { body: {}, headers: a.userHeaders })).body
    expect(some).toMatchObject({ install_available: true, install_unavailable_reason: null })

    const doc = (await t.request('GET', '/openapi.json')).body
    const schema = doc.paths['/v1/enrolments'].post.responses['201'].content['application/json'].schema
    const props = schema.properties ?? doc.components.schemas[schema.$ref.split('/').at(-1)].properties
    expect(props.install_available.description).toContain('install_unavailable_reason says why')
    expect(props.install_unavailable_reason.description).toContain('VIGIL_AGENT_EXECUTABLE')
  })

  test('hub_url and expires_in_minutes are taken', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const e = await enrolment(t, a.userHeaders, { hub_url: 'http://hub.lan:8080/', expires_in_minutes: 5 })
    expect(e.expires_at).toBe('2026-01-01T00:05:00.000Z')
    expect(e.install_command).toStartWith('curl -fsSL http://hub.lan:8080/install.sh | sudo sh -s -- --token vet_')
  })

  test('a member (not owner or admin), an API key and no credential are refused', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const member = await addMember(t, a.clientId, 'member')
    expect((await t.request('POST', '/v1/enrolments', { body: {}, headers: member.headers })).status).toBe(403)
    expect((await t.request('POST', '/v1/enrolments', { body: {}, headers: a.keyHeaders })).status).toBe(401)
    expect((await t.request('POST', '/v1/enrolments', { body: {} })).status).toBe(401)
  })
})

describe('POST /v1/enrolments/redeem', () => {
  test('registers the device and returns a key bound to it, which sends metrics for that device only', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 3 })
    const e = await enrolment(t, a.userHeaders)
    const r = await redeem(t, 'fp-1', e.token)
    expect(r.status).toBe(200)
    expect(r.body.client_id).toBe(a.clientId)
    expect(r.body.device_id).toStartWith('dev_')
    expect(r.body.api_key).toStartWith('vk_')
    const keys = (await t.request('GET', '/v1/auth/api-keys', { headers: a.userHeaders })).body as {
      key_id: string
      device_id: string | null
      scopes: string[]
    }[]
    const bound = keys.find((k) => k.key_id === r.body.key_id)!
    expect(bound.device_id).toBe(r.body.device_id)
    expect(bound.scopes).toEqual(['metrics:write', 'recommendations:write'])
    const headers = { 'x-api-key': r.body.api_key }
    const sent = await t.request('POST', '/v1/metrics/hardware', { body: hardwareSample(), headers })
    expect(sent.status).toBe(201)
    expect(sent.body.device_id).toBe(r.body.device_id)
    // bound: it cannot register or report as another device
    const other = await t.request('POST', '/v1/clients/me/devices', {
      body: { hostname: 'x', os: 'linux', os_version: '1', arch: 'x', fingerprint: 'fp-2' },
      headers,
    })
    expect(other.status).toBe(403)
    expect(other.body.error.code).toBe('device_mismatch')
  })

  test('single use: the second redemption is 401 invalid_enrolment', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 3 })
    const e = await enrolment(t, a.userHeaders)
    expect((await redeem(t, 'fp-1', e.token)).status).toBe(200)
    const again = await redeem(t, 'fp-2', e.token)
    expect(again.status).toBe(401)
    expect(again.body.error.code).toBe('invalid_enrolment')
    expect(again.body.error.param).toBe('token')
  })

  test('two redemptions of one token at once: exactly one wins', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 20 })
    const e = await enrolment(t, a.userHeaders)
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => redeem(t, `fp-${i}`, e.token)))
    expect(all.filter((r) => r.status === 200)).toHaveLength(1)
    expect(all.filter((r) => r.status === 401)).toHaveLength(9)
  })

  test('expires: valid a moment before expires_at, refused at it (manual clock)', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 3 })
    const first = await enrolment(t, a.userHeaders)
    const second = await enrolment(t, a.userHeaders)
    t.clock.advance(60 * 60_000 - 1)
    expect((await redeem(t, 'fp-1', first.token)).status).toBe(200)
    t.clock.advance(1)
    const late = await redeem(t, 'fp-2', second.token)
    expect(late.status).toBe(401)
    expect(late.body.error.code).toBe('invalid_enrolment')
  })

  test('unknown and malformed tokens are refused', async () => {
    const t = testApp()
    expect((await redeem(t, 'fp-1', 'vet_nope')).status).toBe(401)
    const missing = await t.request('POST', '/v1/enrolments/redeem', { body: { token: 'vet_x' } })
    expect(missing.status).toBe(422)
  })

  test('re-enrolling the same machine (same fingerprint) keeps its device and issues a new key', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 1 })
    const one = await redeem(t, 'fp-1', (await enrolment(t, a.userHeaders)).token)
    const two = await redeem(t, 'fp-1', (await enrolment(t, a.userHeaders)).token)
    expect(two.status).toBe(200)
    expect(two.body.device_id).toBe(one.body.device_id)
    expect(two.body.api_key).not.toBe(one.body.api_key)
    const devices = (await t.request('GET', '/v1/clients/me/devices', { headers: a.userHeaders })).body
    expect(devices).toHaveLength(1)
  })

  test('max_devices: a new machine past the limit is 403 device_limit_reached and the token stays unspent', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 1 })
    expect((await redeem(t, 'fp-1', (await enrolment(t, a.userHeaders)).token)).status).toBe(200)
    const e = await enrolment(t, a.userHeaders)
    const refused = await redeem(t, 'fp-2', e.token)
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe('device_limit_reached')
    t.db.sqlite.run('UPDATE clients SET max_devices = 2 WHERE id = ?', [a.clientId])
    expect((await redeem(t, 'fp-2', e.token)).status).toBe(200)
  })

  test("tenant isolation: a token enrols into its own client only, and another tenant's same fingerprint is another device", async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 3 })
    const b = await createTenant(t, { maxDevices: 3 })
    const ra = await redeem(t, 'fp-same', (await enrolment(t, a.userHeaders)).token)
    const rb = await redeem(t, 'fp-same', (await enrolment(t, b.userHeaders)).token)
    expect(ra.body.client_id).toBe(a.clientId)
    expect(rb.body.client_id).toBe(b.clientId)
    expect(rb.body.device_id).not.toBe(ra.body.device_id)
    // a's key cannot see b's device
    const seen = await t.request('GET', `/v1/clients/me/devices/${rb.body.device_id}`, { headers: a.userHeaders })
    expect(seen.status).toBe(404)
    expect((await t.request('GET', '/v1/clients/me/devices', { headers: b.userHeaders })).body).toHaveLength(1)
  })

  test('deleting the device revokes the enrolled key', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 3 })
    const r = await redeem(t, 'fp-1', (await enrolment(t, a.userHeaders)).token)
    expect((await t.request('DELETE', `/v1/clients/me/devices/${r.body.device_id}`, { headers: a.userHeaders })).status).toBe(204)
    expect((await t.request('POST', '/v1/metrics/hardware', { body: hardwareSample(), headers: { 'x-api-key': r.body.api_key } })).status).toBe(401)
  })
})
