import { expect, test } from 'bun:test'
import { releaseStartupMemory } from '../../src/lib/memory'
import { testApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'
import { hardwareSample } from '../modules/metrics/samples'

// The server drops all compiled code after start-up; everything must still work once recompiled.
test('the app keeps answering after the start-up code is thrown away', async () => {
  const t = testApp()
  const tenant = await createTenant(t, { maxDevices: 2 })
  const reg = await t.request('POST', '/v1/clients/me/devices', { headers: tenant.keyHeaders, body: { hostname: 'h', os: 'linux', os_version: '6', arch: 'arm64', fingerprint: 'fp' } })
  expect(reg.status).toBe(201)
  const ingest = () => t.request('POST', '/v1/metrics/hardware', { headers: { ...tenant.keyHeaders, 'x-device-id': reg.body.device_id }, body: hardwareSample(1) })
  expect((await ingest()).status).toBe(201)

  releaseStartupMemory()
  await Bun.sleep(0) // it runs when the VM is next idle

  expect((await ingest()).status).toBe(201)
  const bad = await t.request('POST', '/v1/metrics/hardware', { headers: { ...tenant.keyHeaders, 'x-device-id': reg.body.device_id }, body: { cpu_percent: 'x' } })
  expect(bad.status).toBe(422)
  expect((await t.request('GET', '/health')).status).toBe(200)
})
