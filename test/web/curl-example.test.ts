import { afterAll, expect, test } from 'bun:test'
import { curlExample } from '../../web/src/devices/examples'
import { testApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'

// The Add a device page's example is run as printed: sh + curl against a real socket
const t = testApp()
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => t.handle(req) })
afterAll(() => server.stop(true))

test('the curl example registers the machine and stores its hardware sample', async () => {
  const tenant = await createTenant(t)
  const script = curlExample(`http://127.0.0.1:${server.port}`, tenant.apiKey)
  const run = Bun.spawn(['sh', '-euc', script], { stdout: 'pipe', stderr: 'pipe' })
  const [code, out, err] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()])
  expect({ code, err }).toEqual({ code: 0, err: '' })
  expect(JSON.parse(out)).toMatchObject({ device_id: expect.stringMatching(/^dev_/) })

  const devices = (await t.request('GET', '/v1/clients/me/devices', { headers: tenant.userHeaders })).body
  expect(devices).toHaveLength(1)
  expect(devices[0].hostname).toBe((await Bun.$`hostname`.text()).trim())
  const latest = await t.request('GET', `/v1/metrics/hardware/${devices[0].device_id}/latest`, { headers: tenant.userHeaders })
  expect(latest.status).toBe(200)
  expect(latest.body).toMatchObject({ cpu_percent: 12.5, ram_total_gb: 15.5, cpu_brand: 'Example CPU @ 2.40GHz', disk_used_percent: 36.9 })
})

test('quotes in the hub address or key cannot break out of the shell words', () => {
  const script = curlExample("http://x/'; rm -rf / #", "k'ey")
  expect(script).toContain(`HUB='http://x/'\\''; rm -rf / #'`)
  expect(script).toContain(`KEY='k'\\''ey'`)
})
