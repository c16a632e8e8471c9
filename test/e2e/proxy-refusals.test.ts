import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startBinary, tempDir } from '../helpers/binary'

/**
 * A request refused before its body is read (a wrong key, the rate limit, a body too large)
 * closes its connection rather than reading the body to keep it: under a flood of large bodies
 * that reading was most of the hub's work. Behind a trusted proxy it must not: the proxy sends
 * the whole body it buffered, and a connection closed under it turns the hub's answer into the
 * proxy's 502 (nginx, with a body of a few hundred KiB). dist/vigil over a real socket.
 */
const procs: { kill(signal?: NodeJS.Signals): void; exited: Promise<number> }[] = []
afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
})

const refusedWithBody = async (base: string) => {
  const body = JSON.stringify({ hardware: { pad: 'x'.repeat(200_000) } })
  return fetch(`${base}/v1/metrics/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': `vk_${'a'.repeat(46)}` },
    body,
  })
}

test('a refusal before the body is read closes the connection, except to a trusted proxy, whose connection stays open', async () => {
  const direct = tempDir('vigil-proxy-refusal-')
  const alone = await startBinary({ cwd: direct, env: { VIGIL_DATA_DIR: join(direct, 'data') } })
  procs.push(alone.proc)
  const proxied = tempDir('vigil-proxy-refusal-')
  // the test's own connections come from 127.0.0.1: here they play the proxy's
  const behind = await startBinary({
    cwd: proxied,
    env: { VIGIL_DATA_DIR: join(proxied, 'data'), VIGIL_TRUST_PROXY: '1', VIGIL_TRUSTED_PROXIES: '127.0.0.1/32' },
  })
  procs.push(behind.proc)

  const closed = await refusedWithBody(alone.base)
  expect(closed.status).toBe(401)
  expect(closed.headers.get('connection')).toBe('close')

  const kept = await refusedWithBody(behind.base)
  expect(kept.status).toBe(401)
  expect(kept.headers.get('connection')).not.toBe('close')
  expect(((await kept.json()) as { error: { code: string } }).error.code).toBeDefined()
})
