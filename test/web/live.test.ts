import { afterAll, describe, expect, test } from 'bun:test'
import { setTokens } from '../../web/src/lib/api'
import { liveState, onLive, type LiveEvent } from '../../web/src/lib/live'
import { testApp, type TestApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'

/**
 * The portal's live client (web/src/lib/live.ts) against the real GET /v1/events: the page's
 * fetch goes to a test app's handle, as the browser's would go to the server.
 */
let server: TestApp = testApp()
const realFetch = globalThis.fetch
globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) =>
  server.handle(new Request(new URL(String(input), 'http://localhost').href, init))) as typeof fetch
afterAll(() => {
  globalThis.fetch = realFetch
  setTokens(null)
})

async function signedIn(t: TestApp) {
  const tenant = await createTenant(t, { maxDevices: 10 })
  setTokens({ access_token: tenant.token, token_type: 'bearer', expires_in: 900 })
  return tenant
}

async function register(t: TestApp, keyHeaders: Record<string, string>, fp: string): Promise<string> {
  const r = await t.request('POST', '/v1/clients/me/devices', {
    headers: keyHeaders,
    body: { hostname: `host-${fp}`, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: fp },
  })
  expect(r.status).toBe(201)
  return r.body.device_id
}

/** Resolves with the first event a listener of `type` hears. */
function next(type: string): { event: Promise<LiveEvent<any>>; stop: () => void } {
  let stop = () => {}
  const event = new Promise<LiveEvent<any>>((resolve) => {
    stop = onLive(type, (e) => resolve(e))
  })
  return { event, stop }
}

/** The stream is open (its response has come: the server listens for this client from then on). */
async function opened(): Promise<void> {
  while (liveState.value !== 'open') await Bun.sleep(5)
}

describe('live.ts', () => {
  test('one shared stream: listeners by type and for every type hear the server’s events', async () => {
    const tenant = await signedIn(server)
    const typed = next('device.registered')
    const any = next('*')
    await opened()
    const deviceId = await register(server, tenant.keyHeaders, 'a')
    const [e, all] = await Promise.all([typed.event, any.event])
    expect(e.type).toBe('device.registered')
    expect(e.id).toMatch(/^.+-\d+$/)
    expect(e.timestamp).toBe('2026-01-01T00:00:00.000Z')
    expect(e.data.device.device_id).toBe(deviceId)
    expect(all.id).toBe(e.id)
    typed.stop()
    any.stop()
  })

  test('after a gap it resumes where it was (Last-Event-ID): what happened meanwhile arrives', async () => {
    const tenant = await signedIn(server)
    const first = next('device.registered')
    await opened()
    await register(server, tenant.keyHeaders, 'b1')
    await first.event
    first.stop() // the last listener: the stream closes
    const missed = await register(server, tenant.keyHeaders, 'b2')
    const again = next('device.registered')
    expect((await again.event).data.device.device_id).toBe(missed)
    again.stop()
  })

  test('when the server cannot replay (it restarted), the first event is reset', async () => {
    const tenant = await signedIn(server)
    const first = next('device.registered')
    await opened()
    await register(server, tenant.keyHeaders, 'c1')
    await first.event
    first.stop()
    server = testApp() // another boot: the last event id names the old one
    await signedIn(server)
    const reset = next('reset')
    expect((await reset.event).type).toBe('reset')
    reset.stop()
  })
})
