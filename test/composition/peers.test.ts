import { describe, expect, test } from 'bun:test'
import { openDatabase } from '../../src/db/connection'
import { testApp, type TestApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'
import { linkedPeers } from '../helpers/peer-links'
import { hardwareSample, networkSample } from '../helpers/samples'
import { sseReader } from '../helpers/sse'
import { tempDirs } from '../helpers/temp-dirs'

const PASSWORD = 'correct horse battery'

/** two hubs on one database, linked as several hubs on one PostgreSQL are (here in memory) */
function twoHubs() {
  const net = linkedPeers(2)
  const a = testApp({ peers: net.links[0] })
  const b = testApp({ db: a.db, clock: a.clock, peers: net.links[1] })
  return { a, b }
}

const me = async (t: TestApp, headers: Record<string, string>) => (await t.request('GET', '/v1/auth/me', { headers })).status

describe('several hubs on one database', () => {
  test("a user's stream on hub B shows the device registered and the samples posted on hub A, and B's device status follows them", async () => {
    const { a, b } = twoHubs()
    const tenant = await createTenant(a, { maxDevices: 5 })
    const res = await b.handle(new Request('http://localhost/v1/events', { headers: tenant.userHeaders }))
    const sse = sseReader(res)
    expect(await sse.next()).toEqual({ retry: 5000 })

    const reg = await a.request('POST', '/v1/clients/me/devices', {
      headers: tenant.keyHeaders,
      body: { hostname: 'host-1', os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: 'fp-1' },
    })
    expect(reg.status).toBe(201)
    const deviceId = reg.body.device_id as string
    const posted = await a.request('POST', '/v1/metrics/batch', {
      headers: { ...tenant.keyHeaders, 'x-device-id': deviceId },
      body: { hardware: hardwareSample(1), network: networkSample(1) },
    })
    expect(posted.status).toBe(201)

    const frames = [await sse.event(), await sse.event(), await sse.event(), await sse.event()]
    // as a stream on hub A has them: the status (B's own, from the sample it heard) before the samples
    expect(frames.map((f) => f!.event)).toEqual(['device.registered', 'device.status', 'sample', 'sample'])
    expect(frames[1]!.data.data).toMatchObject({ device_id: deviceId, status: 'online', previous: 'never' })
    expect(frames[2]!.data.data).toMatchObject({ device_id: deviceId, kind: 'hardware' })
    expect(frames[3]!.data.data).toMatchObject({ device_id: deviceId, kind: 'network' })
    // B's own ids: its epoch and its count
    expect(frames[3]!.id).toBe(`${b.ctx.events.position(tenant.clientId).epoch}-4`)
    expect(b.modules.presence.status(deviceId)).toBe('online')
    await sse.cancel()
  })

  test('a session signed out on hub A is refused by hub B on its next request, with no time passing', async () => {
    const { a, b } = twoHubs()
    const tenant = await createTenant(a)
    const login = await a.request('POST', '/v1/auth/login', { body: { email: tenant.email, password: PASSWORD } })
    expect(login.status).toBe(200)
    const headers = { authorization: `Bearer ${login.body.access_token}` }
    // verified (and kept verified) on B before the logout
    expect(await me(b, headers)).toBe(200)
    expect((await a.request('POST', '/v1/auth/logout', { body: { refresh_token: login.body.refresh_token } })).status).toBe(204)
    expect(await me(b, headers)).toBe(401)
  })
})

describe('several hubs, each with its own connection to one database file', () => {
  const newDir = tempDirs('vigil-peers-')
  test("a device registered or deleted on hub A changes what hub B's ingest answers at once, not only after B's cache is dropped", async () => {
    const file = `${newDir()}/vigil.db`
    const net = linkedPeers(2)
    const a = testApp({ db: openDatabase(file), peers: net.links[0] })
    const b = testApp({ db: openDatabase(file), clock: a.clock, peers: net.links[1] })
    const tenant = await createTenant(a, { maxDevices: 5 })
    const register = (fingerprint: string) =>
      a.request('POST', '/v1/clients/me/devices', {
        headers: tenant.keyHeaders,
        body: { hostname: fingerprint, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint },
      })
    const first = (await register('fp-1')).body.device_id as string
    // without x-device-id a sample goes to the client's only device; B caches which one that is
    const post = () => b.request('POST', '/v1/metrics/batch', { headers: tenant.keyHeaders, body: { hardware: hardwareSample(1) } })
    expect((await post()).status).toBe(201)
    expect((await register('fp-2')).status).toBe(201)
    // two devices now: B must ask which one
    expect((await post()).status).toBe(422)
    // a device deleted on A is gone for B's ingest at once
    const viaB = () =>
      b.request('POST', '/v1/metrics/batch', { headers: { ...tenant.keyHeaders, 'x-device-id': first }, body: { hardware: hardwareSample(2) } })
    expect((await viaB()).status).toBe(201)
    expect((await a.request('DELETE', `/v1/clients/me/devices/${first}`, { headers: tenant.userHeaders })).status).toBe(204)
    expect((await viaB()).status).toBe(404)
  })
})
