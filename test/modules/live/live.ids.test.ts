import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startBinary, tempDir } from '../../helpers/binary'

/**
 * The live stream's event ids against dist/vigil over a real socket: each account's are its own
 * count, so another account's activity leaves no gap in them.
 */
describe("live stream ids are the account's own (dist/vigil)", () => {
  let base = ''
  let stop = async () => {}

  beforeAll(async () => {
    const cwd = tempDir('vigil-live-ids-')
    const started = await startBinary({
      cwd,
      env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_MODE: 'own', VIGIL_SIGNUP: 'open', VIGIL_RATE_LIMIT_FREE: '100000', VIGIL_OWN_RATE_LIMIT: '100000' },
    })
    base = started.base
    stop = async () => {
      started.proc.kill('SIGTERM')
      await started.proc.exited
    }
  }, 60_000)
  afterAll(() => stop())

  const json = { 'content-type': 'application/json' }
  async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const res = await fetch(base + path, { method, headers: { ...json, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
    expect(res.status).toBeLessThan(300)
    return res.json() as Promise<any>
  }

  async function tenant(name: string) {
    const account = { email: `${name}@example.test`, password: 'correct horse battery' }
    await call('POST', '/v1/auth/register', {}, account)
    const login = await call('POST', '/v1/auth/login', {}, account)
    const user = { authorization: `Bearer ${login.access_token}` }
    const key = { 'x-api-key': (await call('POST', '/v1/auth/api-keys', user, { name: 'collector' })).api_key as string }
    return { user, key }
  }

  const device = (fp: string) => ({ hostname: fp, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: fp })

  /** the `id:` lines of a text/event-stream, as they come */
  async function* ids(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder()
    let buffer = ''
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true })
      let end = buffer.indexOf('\n\n')
      while (end !== -1) {
        const id = /^id: (.+)$/m.exec(buffer.slice(0, end))?.[1]
        buffer = buffer.slice(end + 2)
        if (id) yield id
        end = buffer.indexOf('\n\n')
      }
    }
  }

  test("another account's events leave no gap in an account's ids", async () => {
    const a = await tenant('a')
    const b = await tenant('b')
    const res = await fetch(`${base}/v1/events`, { headers: a.user })
    expect(res.status).toBe(200)
    const seen = ids(res.body!)

    await call('POST', '/v1/clients/me/devices', a.key, device('fp-a')) // device.registered
    await call('POST', '/v1/clients/me/devices', b.key, device('fp-b'))
    for (let i = 0; i < 10; i++) await call('POST', '/v1/metrics/batch', b.key, { hardware: { cpu_percent: i }, network: { latency_avg_ms: i } })
    await call('POST', '/v1/metrics/batch', a.key, { hardware: { cpu_percent: 1 }, network: { latency_avg_ms: 1 } }) // status, two samples

    const got: string[] = []
    for await (const id of seen) {
      got.push(id)
      if (got.length === 4) break
    }
    await res.body?.cancel().catch(() => {})
    const epoch = got[0]!.split('-')[0]
    expect(got).toEqual([1, 2, 3, 4].map((n) => `${epoch}-${n}`))
  }, 30_000)
})
