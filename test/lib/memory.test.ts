import { describe, expect, test } from 'bun:test'
import { shrink, startMemoryReducer } from '../../src/lib/memory'
import { testApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'
import { hardwareSample } from '../helpers/samples'

// The server drops all compiled code after start-up; everything must still work once recompiled.
test('the app keeps answering after the start-up code is thrown away', async () => {
  const t = testApp()
  const tenant = await createTenant(t, { maxDevices: 2 })
  const reg = await t.request('POST', '/v1/clients/me/devices', {
    headers: tenant.keyHeaders,
    body: { hostname: 'h', os: 'linux', os_version: '6', arch: 'arm64', fingerprint: 'fp' },
  })
  expect(reg.status).toBe(201)
  const ingest = () =>
    t.request('POST', '/v1/metrics/hardware', { headers: { ...tenant.keyHeaders, 'x-device-id': reg.body.device_id }, body: hardwareSample(1) })
  expect((await ingest()).status).toBe(201)

  shrink()
  await Bun.sleep(0) // it runs when the VM is next idle

  expect((await ingest()).status).toBe(201)
  const bad = await t.request('POST', '/v1/metrics/hardware', {
    headers: { ...tenant.keyHeaders, 'x-device-id': reg.body.device_id },
    body: { cpu_percent: 'x' },
  })
  expect(bad.status).toBe(422)
  expect((await t.request('GET', '/health')).status).toBe(200)
})

describe('memory reducer', () => {
  function setup() {
    let requests = 0
    let shrinks = 0
    const reducer = startMemoryReducer({ requests: () => requests, quietMs: 60_000, shrink: () => shrinks++ })
    return { reducer, serve: (n = 1) => (requests += n), shrinks: () => shrinks }
  }

  test('shrinks once after a burst, when a whole period passes without a request', () => {
    const { reducer, serve, shrinks } = setup()
    reducer.tick() // quiet from the start: nothing to give back
    expect(shrinks()).toBe(0)
    serve(500)
    reducer.tick() // busy period
    expect(shrinks()).toBe(0)
    reducer.tick() // first quiet period after it
    expect(shrinks()).toBe(1)
    reducer.tick()
    reducer.tick() // staying quiet does not shrink again
    expect(shrinks()).toBe(1)
    reducer.stop()
  })

  test('never shrinks under steady traffic', () => {
    const { reducer, serve, shrinks } = setup()
    for (let i = 0; i < 10; i++) {
      serve()
      reducer.tick()
    }
    expect(shrinks()).toBe(0)
    reducer.tick()
    expect(shrinks()).toBe(1)
    reducer.stop()
  })

  test('a few collectors posting every 10 s do not make it shrink after each sample, only once they sent enough', () => {
    let requests = 0
    let shrinks = 0
    const reducer = startMemoryReducer({ requests: () => requests, quietMs: 5_000, minRequests: 100, shrink: () => shrinks++ })
    for (let i = 0; i < 99; i++) {
      requests += 1 // a sample, then 5 s without one
      reducer.tick()
      reducer.tick()
    }
    expect(shrinks).toBe(0)
    requests += 1
    reducer.tick()
    reducer.tick() // the hundredth request, then a quiet period
    expect(shrinks).toBe(1)
    reducer.stop()
  })

  test('the app counts every admitted request, on both routers', async () => {
    const t = testApp()
    const before = t.requestsAdmitted()
    await t.request('GET', '/health')
    await t.request('POST', '/v1/metrics/batch', { body: {} }) // the direct route: 401, but admitted
    expect(t.requestsAdmitted() - before).toBe(2)
  })
})
