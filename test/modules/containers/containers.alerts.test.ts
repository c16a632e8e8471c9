import { describe, expect, test } from 'bun:test'
import type { AlertNotification } from '../../../src/modules/alerts/alerts.model'
import { testApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'
import { insertChannel } from '../alerts/channel-rows'
import { block, container } from './fixtures'

/** Container and S.M.A.R.T. observations trip the account's rules like metric samples do. */
async function setup() {
  const sent: AlertNotification[] = []
  const t = testApp({
    notify: (_clientId, channels, n) => {
      sent.push(n)
      return channels.length
    },
  })
  const tenant = await createTenant(t)
  const deviceId = insertDevice(t, tenant.clientId, { hostname: 'nas' })
  const pager = insertChannel(t, tenant.clientId)
  await t.request('PATCH', '/v1/alerts/settings', {
    headers: tenant.userHeaders,
    body: { routing: { warning: [pager], critical: [pager] }, group_window_seconds: 0 },
  })
  const send = async (body: Record<string, unknown>, advance = 10_000) => {
    t.clock.advance(advance)
    const res = await t.request('POST', '/v1/metrics/batch', {
      headers: { ...tenant.keyHeaders, 'x-device-id': deviceId },
      body: { recorded_at: new Date(t.clock.now()).toISOString(), ...body },
    })
    expect(res.status).toBe(201)
  }
  const containers = (items: ReturnType<typeof container>[]) => send({ containers: block(items) })
  const rule = async (body: Record<string, unknown>) =>
    t.request('POST', '/v1/alerts/rules', { headers: tenant.userHeaders, body: { severity: 'critical', ...body } })
  return { t, tenant, deviceId, sent, send, containers, rule }
}

describe('container alerts', () => {
  test('the default rules: a container exiting non-zero notifies, running again resolves', async () => {
    const { t, tenant, sent, containers } = await setup()
    await containers([container('web'), container('db')])
    expect(sent).toEqual([])
    const rules = await t.request('GET', '/v1/alerts/rules', { headers: tenant.userHeaders })
    const defaults = rules.body.items.map((r: { builtin: string; enabled: boolean }) => [r.builtin, r.enabled])
    expect(defaults).toEqual(
      expect.arrayContaining([
        ['container_exited', true],
        ['container_unhealthy', true],
        ['container_oom', true],
        ['container_restarting', true],
        ['container_cpu', false],
        ['container_memory', false],
        ['smart_failing', true],
      ]),
    )
    await containers([container('web', { state: 'exited', exit_code: 137, finished_at: new Date(t.clock.now()).toISOString() }), container('db')])
    expect(sent.map((n) => n.title)).toEqual(['CRITICAL: container web exited with code 137 on nas'])
    await containers([container('web', { id: 'web-id-2' }), container('db')])
    expect(sent.map((n) => n.event)).toEqual(['firing', 'resolved'])
    expect(sent[0]!.body).toContain('nas: container web exited with code 137; firing since')
    expect(sent[1]!.title).toBe('RESOLVED: container web is no longer stopped with an error on nas')
    expect(sent[1]!.body).toContain('nas: container web is no longer stopped with an error; resolved at')
  })

  test('unhealthy and OOM-killed containers notify; a stopped container with exit code 0 does not', async () => {
    const { sent, containers } = await setup()
    await containers([container('api'), container('batch')])
    await containers([container('api', { health: 'unhealthy' }), container('batch', { state: 'exited', exit_code: 0 })])
    expect(sent.map((n) => n.title)).toEqual(['WARNING: container api is unhealthy on nas'])
    await containers([container('api', { health: 'unhealthy' }), container('batch', { state: 'exited', exit_code: 137, oom_killed: true })])
    expect(
      sent
        .map((n) => n.title)
        .slice(1)
        .sort(),
    ).toEqual(['CRITICAL: container batch exited with code 137 on nas', 'CRITICAL: container batch was OOM-killed on nas'])
  })

  test('a crash loop: the restart count rising three times within 15 minutes', async () => {
    const { sent, containers } = await setup()
    await containers([container('app')])
    for (let i = 1; i <= 3; i++) await containers([container('app', { restart_count: i })])
    expect(sent.map((n) => n.title)).toEqual(['WARNING: container app restarted 3 times in 15 min on nas'])
  })

  test('rules by name pattern and by label, and a missing container', async () => {
    const { sent, containers, rule } = await setup()
    const labels = { 'com.docker.compose.project': 'shop' }
    expect((await rule({ name: 'Shop down', metric: 'container[com.docker.compose.project=shop]:running', operator: '<', threshold: 1 })).status).toBe(201)
    expect((await rule({ name: 'Gone', metric: 'container:cache-*:missing', operator: '>', threshold: 0 })).status).toBe(201)
    await containers([container('cart', { labels }), container('cache-1'), container('other')])
    await containers([container('cart', { labels, state: 'paused' }), container('other', { state: 'paused' })])
    expect(sent.map((n) => n.title).sort()).toEqual([
      'CRITICAL: container cache-1 is gone (it was running) on nas',
      'CRITICAL: container cart is not running on nas',
    ])
  })

  test('missing: a running container that goes notifies; a stopped one removed does not', async () => {
    const { sent, containers, rule } = await setup()
    expect((await rule({ name: 'Gone', metric: 'container:*:missing', operator: '>', threshold: 0 })).status).toBe(201)
    await containers([container('live'), container('old', { state: 'exited', exit_code: 0 })])
    await containers([])
    expect(sent.map((n) => n.title)).toEqual(['CRITICAL: container live is gone (it was running) on nas'])
  })

  test('a replayed older block trips nothing', async () => {
    const { t, tenant, deviceId, sent, containers } = await setup()
    await containers([container('web')])
    const old = new Date(t.clock.now() - 5_000).toISOString()
    const res = await t.request('POST', '/v1/metrics/batch', {
      headers: { ...tenant.keyHeaders, 'x-device-id': deviceId },
      body: { recorded_at: old, containers: block([container('web', { state: 'exited', exit_code: 1 })]) },
    })
    expect(res.status).toBe(201)
    expect(sent).toEqual([])
  })

  test('a rule on an unknown container field is refused with the reason', async () => {
    const { rule } = await setup()
    const res = await rule({ name: 'x', metric: 'container:*:colour', operator: '>', threshold: 0 })
    expect(res.status).toBe(422)
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'metric'] })
    expect(res.body.detail[0].msg).toContain('is not a container field')
    expect((await rule({ name: 'x', metric: 'smart:*:colour', operator: '>', threshold: 0 })).status).toBe(422)
  })
})

describe('S.M.A.R.T. alerts', () => {
  const disk = (over: Record<string, unknown> = {}) => ({
    name: '/dev/sda',
    model: 'Example HDD',
    serial: 'S1',
    kind: 'ata',
    capacity_bytes: 4e12,
    passed: true,
    temperature_c: 38,
    power_on_hours: 30_000,
    reallocated_sectors: 0,
    pending_sectors: 0,
    uncorrectable_sectors: 0,
    nvme_percentage_used: null,
    nvme_media_errors: null,
    ...over,
  })
  const smart = (devices: unknown[]) => ({ disks_smart: { available: true, unavailable_reason: null, devices } })

  test('a failing disk notifies through the default rule; a temperature rule reads each disk', async () => {
    const { sent, send, rule } = await setup()
    expect((await rule({ name: 'Disk hot', metric: 'smart:/dev/sd?:temperature_c', operator: '>', threshold: 50, severity: 'warning' })).status).toBe(201)
    await send(smart([disk()]))
    expect(sent).toEqual([])
    await send(smart([disk({ pending_sectors: 8, temperature_c: 55 })]), 1_800_000)
    expect(sent.map((n) => n.title).sort()).toEqual([
      'CRITICAL: disk /dev/sda is failing S.M.A.R.T. on nas',
      'WARNING: Disk /dev/sda temperature above 50 °C on nas',
    ])
  })

  test('reallocated sectors rising over the last week', async () => {
    const { sent, send, rule } = await setup()
    expect((await rule({ name: 'Reallocating', metric: 'smart:*:reallocated_growth', operator: '>', threshold: 0 })).status).toBe(201)
    await send(smart([disk({ reallocated_sectors: 10 })]))
    await send(smart([disk({ reallocated_sectors: 10 })]), 1_800_000)
    expect(sent).toEqual([])
    await send(smart([disk({ reallocated_sectors: 14 })]), 1_800_000)
    expect(sent.map((n) => n.title)).toEqual(['CRITICAL: Disk /dev/sda reallocated sectors gained in 7 days above 0 on nas'])
  })
})
