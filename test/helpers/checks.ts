import type { Attempt } from '../../src/modules/checks/checks.attempt'
import type { TestApp } from './app'

/** One attempt as a probe records it: up in `ms`, or down with the connection refused. */
export const attempt = (ts: number, ok: boolean, ms = 50): Attempt => ({
  ts,
  ok,
  response_ms: ok ? ms : null,
  status_code: null,
  error: ok ? null : 'connection refused',
  cert_expires_at: null,
})

/** A TCP check made through the API (down after one failure, up after one success); its id. */
export async function makeTcpCheck(t: TestApp, headers: Record<string, string>, name: string): Promise<string> {
  const res = await t.request('POST', '/v1/checks', {
    headers,
    body: { name, kind: 'tcp', settings: { host: 'x.example', port: 1 }, down_after: 1, up_after: 1 },
  })
  return res.body.id as string
}
