import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'

/**
 * dist/vigil with no operator prints a one-time setup token, and the first registration needs it
 * whenever it may come from another machine: the service listens beyond loopback (0.0.0.0; the
 * requests still go to 127.0.0.1), trusts a proxy, or the request carries a forwarded header.
 */
const json = { 'content-type': 'application/json' }
const account = { email: 'ops@example.test', password: 'correct horse battery' }
const running: { kill(): void; exited: Promise<number> }[] = []
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.kill()
    await p.exited
  }
})

/** The service's log output, read as it comes. */
function output(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let seen = ''
  return {
    /** the first line matching (the token is printed right after the service listens) */
    async line(pattern: RegExp): Promise<string> {
      for (;;) {
        const match = seen.split('\n').find((l) => pattern.test(l))
        if (match) return match
        const { value, done } = await reader.read()
        if (done) throw new Error(`no line matching ${pattern} in:\n${seen}`)
        seen += decoder.decode(value)
      }
    },
    /** everything, once the process has ended */
    async all(): Promise<string> {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return seen
        seen += decoder.decode(value)
      }
    },
  }
}

const register = (base: string, headers: Record<string, string> = {}, extra: Record<string, string> = {}) =>
  fetch(`${base}/v1/auth/register`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify({ ...account, ...extra }) })

describe('the setup token of an instance without an operator', () => {
  test('printed once at start; the operator registers with it, nobody without it', async () => {
    const cwd = tempDir('vigil-setup-')
    const server = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_HOST: '0.0.0.0' } })
    running.push(server.proc)
    const log = output(server.proc.stdout)
    const line = JSON.parse(await log.line(/setup token/))
    expect(line.level).toBe('warn')
    expect(line.msg).toMatch(/^no operator yet: the first registration needs the setup token vst_\S+ \(header x-setup-token\);/)
    // listening beyond loopback with the default site URL: links would point at localhost
    expect(JSON.parse(await log.line(/VIGIL_SITE_URL is/)).msg).toContain('on 0.0.0.0')
    const token = /setup token (vst_[A-Za-z0-9_-]+)/.exec(line.msg)![1]!
    expect(line.register).toContain('/v1/auth/register')

    const missing = await register(server.base)
    expect(missing.status).toBe(403)
    expect(((await missing.json()) as any).error.code).toBe('setup_token_required')
    expect((await register(server.base, { 'x-setup-token': `${token}x` })).status).toBe(403)
    const ok = await register(server.base, { 'x-setup-token': token })
    expect(ok.status).toBe(201)
    expect(((await ok.json()) as any).role).toBe('admin')
    // an own instance is invite-only once the operator exists
    const next = await register(server.base, { 'x-setup-token': token }, { email: 'next@example.test' })
    expect(((await next.json()) as any).error.code).toBe('signup_closed')
  })

  test('none with an operator created from the shell', async () => {
    const cwd = tempDir('vigil-setup-')
    const dataDir = join(cwd, 'data')
    const create = Bun.spawn([ensureBinary(), 'admin', 'create', '--email', 'ops@example.test', '--password-stdin'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', VIGIL_DATA_DIR: dataDir },
      stdin: new TextEncoder().encode(account.password),
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(await create.exited).toBe(0)
    const exposed = await startBinary({ cwd, env: { VIGIL_DATA_DIR: dataDir, VIGIL_HOST: '0.0.0.0' } })
    running.push(exposed.proc)
    const log = output(exposed.proc.stdout)
    expect(JSON.parse(await log.line(/vigil listening/)).signup).toBe('invite')
    exposed.proc.kill()
    expect(await log.all()).not.toContain('setup token')
  })

  test('behind a proxy on loopback (VIGIL_HOST=127.0.0.1 VIGIL_TRUST_PROXY=true) a stranger cannot claim the instance', async () => {
    const cwd = tempDir('vigil-setup-')
    const server = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_TRUST_PROXY: 'true' } })
    running.push(server.proc)
    const log = output(server.proc.stdout)
    const token = /setup token (vst_[A-Za-z0-9_-]+)/.exec(JSON.parse(await log.line(/setup token/)).msg)![1]!
    const health = async (headers: Record<string, string> = {}) =>
      ((await (await fetch(`${server.base}/health`, { headers })).json()) as any).setup_token_required
    expect(await health()).toBe(true)
    const stranger = await register(server.base, { 'x-forwarded-for': '203.0.113.9' })
    expect(stranger.status).toBe(403)
    expect(((await stranger.json()) as any).error.code).toBe('setup_token_required')
    expect((await register(server.base, { 'x-forwarded-for': '203.0.113.9', 'x-setup-token': token })).status).toBe(201)
    expect(await health()).toBe(false)
    // the site URL is still the default loopback one: the log says so, and which setting to change
    const warning = JSON.parse(await log.line(/VIGIL_SITE_URL is/))
    expect(warning.level).toBe('warn')
    expect(warning.msg).toContain('through a proxy')
  })

  test('trusting a proxy while listening beyond loopback with no VIGIL_TRUSTED_PROXIES is warned about at start', async () => {
    const cwd = tempDir('vigil-setup-')
    const server = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_HOST: '0.0.0.0', VIGIL_TRUST_PROXY: 'true' } })
    running.push(server.proc)
    // whoever reaches 0.0.0.0 directly is taken for the proxy and may name its own address
    const warning = JSON.parse(await output(server.proc.stdout).line(/VIGIL_TRUST_PROXY is on/))
    expect(warning.level).toBe('warn')
    expect(warning.msg).toContain('no VIGIL_TRUSTED_PROXIES')
    expect(warning.msg).toContain('listen on 127.0.0.1')
  })

  test('on loopback without a trusted proxy: a forwarded request needs the token, one straight to the socket does not', async () => {
    const cwd = tempDir('vigil-setup-')
    const server = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data') } })
    running.push(server.proc)
    const line = JSON.parse(await output(server.proc.stdout).line(/setup token/))
    expect(line.msg).toMatch(/^no operator yet: the first registration needs the setup token vst_\S+ \(header x-setup-token\) when it comes through a proxy/)
    const health = async (headers: Record<string, string> = {}) =>
      ((await (await fetch(`${server.base}/health`, { headers })).json()) as any).setup_token_required
    expect(await health({ 'x-real-ip': '203.0.113.9' })).toBe(true)
    expect(await health()).toBe(false)
    const proxied: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }, { 'x-real-ip': '203.0.113.9' }]
    for (const forwarded of proxied) expect((await register(server.base, forwarded)).status).toBe(403)
    expect((await register(server.base)).status).toBe(201)
  })
})
