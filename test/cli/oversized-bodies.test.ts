import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { join } from 'node:path'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'

const CAP = 4096
/** far past the cap plus the 64 KiB Bun was once allowed on top of it, where Bun answered a bare 413 itself */
const OVER = 512 * 1024

/**
 * Sends one request over a raw socket (a declared Content-Length, or chunked) in a single write,
 * then reads until the server has answered and closed or gone quiet; returns status, headers, body.
 */
function rawPost(port: number, path: string, headers: Record<string, string>, bytes: number, chunked: boolean) {
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    const done = () => {
      socket.destroy()
      const [head = '', body = ''] = text.split('\r\n\r\n', 2)
      const [statusLine = '', ...lines] = head.split('\r\n')
      const h = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
      if (!statusLine) return reject(new Error('no answer'))
      resolve({ status: Number(statusLine.split(' ')[1]), headers: h, body })
    }
    socket.on('data', (d) => {
      text += d.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      const length = /content-length:\s*(\d+)/i.exec(text)?.[1]
      if (end > 0 && length !== undefined && text.length >= end + 4 + Number(length)) done()
    })
    socket.on('close', done)
    socket.on('error', () => {})
    const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
    const payload = Buffer.alloc(bytes, 0x20)
    if (chunked)
      socket.write(
        Buffer.concat([
          Buffer.from([...head, 'Transfer-Encoding: chunked', '', ''].join('\r\n')),
          Buffer.from(`${bytes.toString(16)}\r\n`),
          payload,
          Buffer.from('\r\n0\r\n\r\n'),
        ]),
      )
    else socket.write(Buffer.concat([Buffer.from([...head, `Content-Length: ${bytes}`, '', ''].join('\r\n')), payload]))
  })
}

describe('dist/vigil: bodies over VIGIL_MAX_BODY_BYTES', () => {
  let server: Awaited<ReturnType<typeof startBinary>>
  let keyHeaders: Record<string, string>
  beforeAll(async () => {
    ensureBinary()
    const cwd = tempDir()
    server = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_MAX_BODY_BYTES: String(CAP) } })
    const json = { 'content-type': 'application/json' }
    const account = { email: 'ops@example.test', password: 'correct horse battery' }
    await fetch(`${server.base}/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...account, company: 'Acme' }) })
    const login = (await (await fetch(`${server.base}/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(account) })).json()) as {
      access_token: string
    }
    const created = await fetch(`${server.base}/v1/auth/api-keys`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${login.access_token}` },
      body: JSON.stringify({ name: 'collector' }),
    })
    keyHeaders = { 'x-api-key': ((await created.json()) as { api_key: string }).api_key }
  }, 60_000)
  afterAll(() => void server?.proc.kill('SIGTERM'))

  const cases = [
    ['an Elysia route (anonymous refresh)', '/v1/auth/refresh', () => ({})],
    ['a direct route (metrics batch, with a key)', '/v1/metrics/batch', () => keyHeaders],
  ] as const
  for (const [what, path, headers] of cases) {
    for (const chunked of [false, true]) {
      test(`${what}, ${chunked ? 'chunked' : 'declared Content-Length'}: the documented 413 with the usual headers`, async () => {
        const res = await rawPost(server.port, path, headers(), OVER, chunked)
        expect(res.status).toBe(413)
        expect(JSON.parse(res.body).error).toMatchObject({ code: 'payload_too_large', message: `The request body is larger than ${CAP} bytes` })
        expect(res.headers['x-request-id']).toBeTruthy()
        expect(res.headers['x-ratelimit-limit']).toBeTruthy()
        expect(res.headers['x-ratelimit-remaining']).toBeTruthy()
        expect((await fetch(`${server.base}/health`)).status).toBe(200)
      })
    }
  }
})
