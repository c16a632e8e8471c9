import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { insertDevice } from '../../helpers/devices'

const promtool = Bun.which('promtool')
if (!promtool) console.warn('promtool not found (Debian package prometheus): the exposition is not checked by promtool here')

describe('promtool', () => {
  test.skipIf(!promtool)('promtool check metrics accepts a scrape with traffic, jobs, odd hostnames and every device field', async () => {
    const t = testApp()
    const operator = await createTenant(t, { role: 'admin' })
    const tenant = await tenantWithDevices(t, 1)
    insertDevice(t, tenant.clientId, { hostname: 'odd "host"\\name\nwith newline' })
    await t.request('POST', '/v1/metrics/batch', {
      headers: tenant.keyHeaders,
      body: { hardware: { ...hardwareSample(), gpu_load: 12.5 }, network: networkSample() },
    })
    await t.request('GET', '/v1/clients/me/devices', { headers: tenant.userHeaders })
    await t.request('GET', '/no/such/route')
    await t.jobs.find((j) => j.name === 'metrics.rollup')!.run()
    await new Promise<void>((resolve) => setImmediate(resolve))
    const r = await t.request('GET', '/metrics', { headers: operator.userHeaders })
    expect(r.status).toBe(200)
    const check = Bun.spawnSync([promtool!, 'check', 'metrics'], { stdin: Buffer.from(r.text) })
    const said = check.stdout.toString() + check.stderr.toString()
    expect({ exit: check.exitCode, said }).toEqual({ exit: 0, said: '' })
  })
})
