import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { createKey, createTenant } from '../../helpers/fixtures'
import { tenantWithDevices } from '../../helpers/metrics'
import { block, container } from './fixtures'

/** GET /metrics shows each present container under cAdvisor's names where the figure is the same. */
describe('containers on /metrics', () => {
  async function world() {
    const t = testApp()
    const operator = await createTenant(t, { role: 'admin' })
    const a = await tenantWithDevices(t, 1)
    const b = await tenantWithDevices(t, 1)
    const send = (tenant: typeof a, items: ReturnType<typeof container>[]) =>
      t.request('POST', '/v1/metrics/batch', { headers: tenant.keyHeaders, body: { device_id: tenant.deviceId, containers: block(items) } })
    expect((await send(a, [container('web', { image: 'nginx:1.27', labels: { secret: 'x' } }), container('old')])).status).toBe(201)
    t.clock.advance(10_000)
    expect((await send(a, [container('web', { image: 'nginx:1.27', labels: { secret: 'x' } })])).status).toBe(201)
    expect((await send(b, [container('b-app', { memory_used_bytes: null, cpu_percent: 250 })])).status).toBe(201)
    return { t, operator, a, b }
  }

  test('each figure of a present container, labelled by name, image, device and account only', async () => {
    const { t, operator, a } = await world()
    const r = await t.request('GET', '/metrics', { headers: operator.userHeaders })
    expect(r.status).toBe(200)
    const labels = `{name="web",image="nginx:1.27",device="${a.deviceId}",client="${a.clientId}"}`
    const lines = r.text.split('\n')
    for (const line of [
      `container_memory_working_set_bytes${labels} 52428800`,
      `container_spec_memory_limit_bytes${labels} 209715200`,
      `vigil_container_cpu_usage_ratio${labels} 0.125`,
      `vigil_container_network_receive_bytes_per_second${labels} 1000`,
      `vigil_container_network_transmit_bytes_per_second${labels} 500`,
      `vigil_container_fs_write_bytes_per_second${labels} 4096`,
      `container_processes${labels} 7`,
      `container_start_time_seconds${labels} ${Date.parse('2026-11-27T00:00:00Z') / 1000}`,
      `vigil_container_running${labels} 1`,
      `vigil_container_restarts_total${labels} 0`,
    ]) {
      expect(lines).toContain(line)
    }
    expect(r.text).toContain('# TYPE vigil_container_restarts_total counter')
    // gone containers are not shown, nor the containers' own labels
    expect(r.text).not.toContain('name="old"')
    expect(r.text).not.toContain('secret')
    // a figure the collector could not read is left out, never 0
    expect(r.text).not.toMatch(/container_memory_working_set_bytes\{name="b-app"/)
    expect(r.text).toMatch(/vigil_container_cpu_usage_ratio\{name="b-app".*\} 2.5\n/)
  })

  const promtool = Bun.which('promtool')
  test.skipIf(!promtool)('promtool check metrics accepts the container families', async () => {
    const { t, operator } = await world()
    const r = await t.request('GET', '/metrics', { headers: operator.userHeaders })
    const check = Bun.spawnSync([promtool!, 'check', 'metrics'], { stdin: Buffer.from(r.text) })
    expect({ exit: check.exitCode, said: check.stdout.toString() + check.stderr.toString() }).toEqual({ exit: 0, said: '' })
  })

  test('a tenant key sees its own containers only; a silent device’s containers drop out', async () => {
    const { t, a } = await world()
    const key = createKey(t, a.clientId, { scopes: ['metrics:read'] })
    const r = await t.request('GET', '/metrics', { headers: key.headers })
    expect(r.text).toContain('name="web"')
    expect(r.text).not.toContain('b-app')
    t.clock.advance(16 * 60_000)
    expect((await t.request('GET', '/metrics', { headers: key.headers })).text).not.toContain('name="web"')
  })
})
