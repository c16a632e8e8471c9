import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'

/**
 * Public status pages against the executable, over a real socket and without a session: the
 * page, its JSON and badges, ETag and 304, a custom domain by Host, the 404 page, the
 * anonymous rate limit, and nothing private on any of them. The pages here show devices; a
 * page showing a real check is in status-checks.test.ts.
 */
beforeAll(() => void ensureBinary(), 60_000)

const stops: (() => void)[] = []
afterAll(() => {
  for (const stop of stops.splice(0)) stop()
})

async function instance(env: Record<string, string> = {}) {
  const cwd = tempDir('vigil-status-')
  const server = await startBinary({
    cwd,
    env: {
      VIGIL_DATA_DIR: join(cwd, 'data'),
      VIGIL_SIGNUP: 'open',
      VIGIL_RATE_LIMIT_FREE: '1000000',
      VIGIL_OWN_RATE_LIMIT: '1000000',
      VIGIL_RATE_LIMIT_ANONYMOUS: '1000000',
      ...env,
    },
  })
  stops.push(() => server.proc.kill())
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(server.base + path, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    let json: any = null
    try {
      json = JSON.parse(text)
    } catch {}
    return { status: res.status, headers: res.headers, text, body: json }
  }
  /** an account with one device that has reported, and a page showing it */
  const account = async (email: string, page: Record<string, unknown>, item: Record<string, unknown> = {}) => {
    const creds = { email, password: 'correct horse battery' }
    expect((await call('POST', '/v1/auth/register', creds)).status).toBe(201)
    const auth = { authorization: `Bearer ${(await call('POST', '/v1/auth/login', creds)).body.access_token}` }
    const key = (await call('POST', '/v1/auth/api-keys', { name: 'collector' }, auth)).body.api_key as string
    const device = await call(
      'POST',
      '/v1/clients/me/devices',
      { hostname: 'fileserver.corp.internal', os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: `fp-${email}`, mac_address: '52:54:00:12:34:56' },
      { 'x-api-key': key },
    )
    const deviceId = device.body.device_id as string
    expect((await call('POST', '/v1/metrics/hardware', { cpu_percent: 12 }, { 'x-api-key': key, 'x-device-id': deviceId })).status).toBe(201)
    const made = await call(
      'POST',
      '/v1/status-pages',
      { ...page, groups: [{ name: 'Storage', items: [{ type: 'device', id: deviceId, key: 'files', ...item }] }] },
      auth,
    )
    expect(made.status).toBe(201)
    return { auth, deviceId, page: made.body, call: (m: string, p: string, b?: unknown) => call(m, p, b, auth) }
  }
  return { call, account, base: server.base }
}

describe('public status pages (dist/vigil)', () => {
  test('the page, its JSON and its badges need no session, carry ETag and Cache-Control, and answer 304', async () => {
    const { call, account } = await instance()
    const a = await account('a@example.test', { slug: 'acme', title: 'Acme', description: 'Our services' }, { label: 'File server' })
    const page = await call('GET', '/status/acme')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('cache-control')).toBe('public, max-age=30')
    expect(page.headers.get('content-security-policy')).toStartWith("default-src 'none'; style-src 'sha256-")
    expect(page.text).toContain('<h3>File server</h3>')
    expect(page.text).toContain('All systems operational')
    expect((await call('GET', '/status/acme', undefined, { 'if-none-match': page.headers.get('etag')! })).status).toBe(304)

    const json = await call('GET', '/status/acme.json')
    expect(json.body).toMatchObject({ title: 'Acme', description: 'Our services', status: { state: 'operational' } })
    expect(json.body.groups[0].items[0]).toMatchObject({ key: 'files', name: 'File server', type: 'device', state: 'up' })
    expect((await call('GET', '/status/acme.json', undefined, { 'if-none-match': json.headers.get('etag')! })).status).toBe(304)

    const badge = await call('GET', '/status/acme/badge/files/status.svg')
    expect(badge.status).toBe(200)
    expect(badge.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8')
    expect(badge.headers.get('cache-control')).toBe('public, max-age=30')
    expect(badge.text).toContain('<title>File server: up</title>')
    expect((await call('GET', '/status/acme/badge/files/uptime.svg?days=30')).text).toContain('no data') // devices have no uptime history
    expect((await call('GET', '/status/acme/badge/files/uptime.svg?days=0')).status).toBe(422)
    expect((await call('GET', '/status/acme/badge/files/status.svg', undefined, { 'if-none-match': badge.headers.get('etag')! })).status).toBe(304)

    // nothing private on any of them: the device's id, hostname, MAC, the account and page ids
    for (const text of [page.text, json.text, badge.text]) {
      for (const secret of [a.deviceId, 'fileserver', 'corp.internal', '52:54:00', a.page.id, 'cli_', 'dev_']) expect(text).not.toContain(secret)
    }
  })

  test('an unknown slug is the 404 page, byte for byte the one an unpublished page gets', async () => {
    const { call, account } = await instance()
    const a = await account('b@example.test', { slug: 'hidden', title: 'Hidden', published: false })
    const browser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }
    const unknown = await call('GET', '/status/no-such-page', undefined, browser)
    const hidden = await call('GET', '/status/hidden', undefined, browser)
    expect([unknown.status, hidden.status]).toEqual([404, 404])
    expect(hidden.text).toBe(unknown.text)
    expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(unknown.text).toContain('No status page here')
    // a caller that is not a browser gets the error body, the same for both
    const [plainUnknown, plainHidden] = [await call('GET', '/status/no-such-page'), await call('GET', '/status/hidden')]
    expect(plainUnknown.body.error.code).toBe('not_found')
    expect(plainHidden.body).toEqual(plainUnknown.body)
    expect((await call('GET', '/status/hidden.json')).body.error.code).toBe('not_found')
    await a.call('PATCH', `/v1/status-pages/${a.page.id}`, { published: true })
    expect((await call('GET', '/status/hidden')).status).toBe(200)
  })

  test('a request whose Host is a custom domain gets that page at /', async () => {
    const { call, account } = await instance()
    await account('c@example.test', { slug: 'custom', title: 'Custom Co', custom_domain: 'status.custom.test' })
    const mapped = await call('GET', '/', undefined, { host: 'status.custom.test' })
    expect(mapped.status).toBe(200)
    expect(mapped.text).toContain('<h1>Custom Co</h1>')
    const landing = await call('GET', '/')
    expect(landing.text).not.toContain('Custom Co')
  })

  test('the public paths share the anonymous rate limit', async () => {
    const { call, account } = await instance({ VIGIL_RATE_LIMIT_ANONYMOUS: '20', VIGIL_RATE_LIMIT_DELAY_MS: '0' })
    await account('d@example.test', { slug: 'limited', title: 'L' })
    const paths = ['/status/limited', '/status/limited.json', '/status/limited/badge/files/status.svg', '/status/nope']
    const remaining: number[] = []
    let refused: Awaited<ReturnType<typeof call>> | null = null
    for (let i = 0; i < 21 && !refused; i++) {
      const res = await call('GET', paths[i % paths.length]!)
      expect(res.headers.get('x-ratelimit-limit')).toBe('20')
      if (res.status === 429) refused = res
      else remaining.push(Number(res.headers.get('x-ratelimit-remaining')))
    }
    // every public path took one from the same bucket, down to none left
    expect(remaining.at(-1)).toBe(0)
    expect(remaining.every((r, i) => i === 0 || r === remaining[i - 1]! - 1)).toBe(true)
    expect(refused?.body.error.code).toBe('rate_limited')
    expect(refused?.headers.get('retry-after')).toBeTruthy()
  })
})
