import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { executableTarget, type Target } from '../helpers/contract'
import { block, container } from '../modules/containers/fixtures'

/**
 * Containers and disks over HTTP, against dist/vigil: ingest through the batch, each read
 * endpoint, the fleet's filters, another account's objects (404) and the bounds (422).
 */

let target: Target
type Account = { portal: Record<string, string>; collector: Record<string, string>; deviceId: string }
let a: Account
let b: Account
const base = Date.now() - 120_000
const at = (ms: number) => new Date(ms).toISOString()

async function account(email: string): Promise<Account> {
  const password = 'correct horse battery'
  expect((await target.send('POST', '/v1/auth/register', { body: { email, password } })).status).toBe(201)
  const login = await target.send('POST', '/v1/auth/login', { body: { email, password } })
  const portal = { authorization: `Bearer ${login.json.access_token}` }
  const key = await target.send('POST', '/v1/auth/api-keys', { body: { name: 'collector' }, headers: portal })
  const collector = { 'x-api-key': key.json.api_key as string }
  const device = await target.send('POST', '/v1/clients/me/devices', {
    body: { hostname: `host-${email}`, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: `fp-${email}` },
    headers: collector,
  })
  expect(device.status).toBe(201)
  return { portal, collector, deviceId: device.json.device_id }
}

const batch = (who: Account, body: Record<string, unknown>) => target.send('POST', '/v1/metrics/batch', { body, headers: who.collector })

beforeAll(async () => {
  target = await executableTarget()
  a = await account('a@example.test')
  b = await account('b@example.test')
  expect(
    (
      await batch(a, {
        recorded_at: at(base),
        hardware: { cpu_percent: 3 },
        containers: block([
          container('web', { labels: { 'com.docker.compose.project': 'shop' } }),
          container('db', { image: 'postgres:16', cpu_percent: 80 }),
          container('worker', { health: 'healthy' }),
        ]),
      })
    ).status,
  ).toBe(201)
  expect(
    (
      await batch(a, {
        recorded_at: at(base + 10_000),
        containers: block([
          container('web', { labels: { 'com.docker.compose.project': 'shop' }, cpu_percent: 20 }),
          container('db', { image: 'postgres:16', state: 'exited', exit_code: 1, cpu_percent: null }),
          container('worker', { health: 'unhealthy' }),
        ]),
        disks_smart: {
          available: true,
          unavailable_reason: null,
          devices: [
            { ...disk('/dev/sda'), passed: false, reallocated_sectors: 24 },
            { ...disk('/dev/nvme0'), kind: 'nvme', nvme_percentage_used: 3 },
          ],
        },
      })
    ).status,
  ).toBe(201)
  expect((await batch(b, { recorded_at: at(base), containers: block([container('secret-app')]) })).status).toBe(201)
}, 60_000)

afterAll(() => target.stop())

function disk(name: string) {
  return {
    name,
    model: 'Example SSD',
    serial: 'S123',
    kind: 'ata',
    capacity_bytes: 500e9,
    passed: true,
    temperature_c: 35,
    power_on_hours: 1200,
    reallocated_sectors: 0,
    pending_sectors: 0,
    uncorrectable_sectors: 0,
    nvme_percentage_used: null,
    nvme_media_errors: null,
  }
}

describe('a device’s containers', () => {
  test('lists them with their newest figures, state, health and the engine', async () => {
    const res = await target.send('GET', `/v1/devices/${a.deviceId}/containers`, { headers: a.portal })
    expect(res.status).toBe(200)
    expect(res.json.engine).toMatchObject({ kind: 'docker', version: '27.3.1', api_version: '1.47', unavailable_reason: null, recorded_at: at(base + 10_000) })
    const byName = Object.fromEntries(res.json.items.map((c: { name: string }) => [c.name, c]))
    expect(byName.web).toMatchObject({ state: 'running', cpu_percent: 20, labels: { 'com.docker.compose.project': 'shop' }, needs_attention: false })
    expect(byName.web.uptime_seconds).toBeGreaterThan(0)
    expect(byName.db).toMatchObject({ state: 'exited', exit_code: 1, needs_attention: true, uptime_seconds: null })
    expect(byName.worker).toMatchObject({ health: 'unhealthy', needs_attention: true })
    expect(byName.web.memory_percent).toBe(25)
  })

  test('one container’s state history and series', async () => {
    const list = await target.send('GET', `/v1/devices/${a.deviceId}/containers`, { headers: a.portal })
    const db = list.json.items.find((c: { name: string }) => c.name === 'db')
    const events = await target.send('GET', `/v1/devices/${a.deviceId}/containers/${db.container_id}/events?limit=2`, { headers: a.portal })
    expect(events.status).toBe(200)
    expect(events.json).toMatchObject({ name: 'db', total: 3, limit: 2, offset: 0 })
    expect(events.json.items[0]).toMatchObject({ kind: 'stopped', exit_code: 1, at: at(base + 10_000) })
    const web = list.json.items.find((c: { name: string }) => c.name === 'web')
    const series = await target.send('GET', `/v1/devices/${a.deviceId}/containers/${web.container_id}/series?range=1h`, { headers: a.portal })
    expect(series.status).toBe(200)
    expect(series.json).toMatchObject({ resolution: 'raw', step_seconds: 10 })
    expect(series.json.values.cpu_percent).toEqual([12.5, 20])
    const day = await target.send('GET', `/v1/devices/${a.deviceId}/containers/${web.container_id}/series?range=24h`, { headers: a.portal })
    // the rollup job has not run: the newest minutes come from the raw blocks
    expect(day.json.resolution).toBe('1m')
    expect(day.json.values.cpu_percent.length).toBeGreaterThan(0)
    expect(day.json.max.cpu_percent.at(-1)).toBe(20)
  })
})

describe('the fleet’s containers', () => {
  const fleet = async (q = '') => {
    const res = await target.send('GET', `/v1/containers${q}`, { headers: a.portal })
    expect(res.status).toBe(200)
    return res.json
  }
  const names = (page: { items: { name: string }[] }) => page.items.map((c) => c.name)

  test('those needing attention come first, then by device and name', async () => {
    const page = await fleet()
    expect(names(page)).toEqual(['db', 'worker', 'web'])
    expect(page).toMatchObject({ total: 3, counts: { containers: 3, running: 2, needs_attention: 2 } })
  })

  test('filters by state, health, image, name, device and attention', async () => {
    expect(names(await fleet('?state=exited'))).toEqual(['db'])
    expect(names(await fleet('?health=unhealthy'))).toEqual(['worker'])
    expect(names(await fleet('?image=POSTGRES'))).toEqual(['db'])
    expect(names(await fleet('?name=ork'))).toEqual(['worker'])
    expect(names(await fleet('?needs_attention=false'))).toEqual(['web'])
    expect((await fleet(`?device_id=${a.deviceId}`)).total).toBe(3)
    // a LIKE wildcard is a plain character
    expect((await fleet('?name=%25')).total).toBe(0)
  })

  test('sorts and pages', async () => {
    expect(names(await fleet('?sort=-name'))).toEqual(['worker', 'web', 'db'])
    expect(names(await fleet('?sort=-cpu'))).toEqual(['web', 'worker', 'db'])
    const page = await fleet('?sort=name&limit=1&offset=1')
    expect(names(page)).toEqual(['web'])
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1 })
  })

  test('another account sees only its own, and naming a device of another account is 404', async () => {
    const res = await target.send('GET', '/v1/containers', { headers: b.portal })
    expect(res.json.items.map((c: { name: string }) => c.name)).toEqual(['secret-app'])
    const other = await target.send('GET', `/v1/containers?device_id=${a.deviceId}`, { headers: b.portal })
    expect([other.status, other.json.error.code]).toEqual([404, 'not_found'])
  })
})

describe('a batch of containers or S.M.A.R.T. only', () => {
  const fresh = async (email: string) => {
    const who = await account(email)
    const device = async () => (await target.send('GET', `/v1/clients/me/devices/${who.deviceId}`, { headers: who.portal })).json
    expect((await device()).last_seen_at).toBeNull()
    return { who, device }
  }
  const smart = { disks_smart: { available: true, unavailable_reason: null, devices: [disk('/dev/sda')] } }

  test('a containers-only batch moves the device’s last_seen_at: it is alive', async () => {
    const { who, device } = await fresh('seen-c@example.test')
    expect((await batch(who, { recorded_at: at(base), containers: block([container('web')]) })).status).toBe(201)
    expect((await device()).last_seen_at).not.toBeNull()
  })

  test('a S.M.A.R.T.-only batch moves it too', async () => {
    const { who, device } = await fresh('seen-d@example.test')
    expect((await batch(who, { recorded_at: at(base), ...smart })).status).toBe(201)
    expect((await device()).last_seen_at).not.toBeNull()
  })

  test('bulk items carrying only containers or disks_smart are answered stored, not duplicate', async () => {
    const { who } = await fresh('bulk@example.test')
    const res = await target.send('POST', '/v1/metrics/bulk', {
      body: {
        items: [
          { recorded_at: at(base), containers: block([container('web')]) },
          { recorded_at: at(base + 10_000), ...smart },
          { recorded_at: at(base + 20_000), hardware: { cpu_percent: 1 } },
        ],
      },
      headers: who.collector,
    })
    expect(res.status).toBe(201)
    expect(res.json).toMatchObject({ stored: 3, duplicates: 0, rejected: 0 })
    expect(res.json.items.map((i: { status: string }) => i.status)).toEqual(['stored', 'stored', 'stored'])
    const list = await target.send('GET', `/v1/devices/${who.deviceId}/containers`, { headers: who.portal })
    expect(list.json.items.map((c: { name: string }) => c.name)).toEqual(['web'])
  })
})

describe('memory accounting', () => {
  test('each container of the fleet and of a device says whether its device accounts memory', async () => {
    const who = await account('pi@example.test')
    const noAccounting = block([container('app')], { memory_accounting: false })
    expect((await batch(who, { recorded_at: at(base), containers: noAccounting })).status).toBe(201)
    const fleet = await target.send('GET', '/v1/containers', { headers: who.portal })
    expect(fleet.json.items[0]).toMatchObject({ name: 'app', memory_accounting: false, memory_used_bytes: null, memory_percent: null })
    const own = await target.send('GET', `/v1/devices/${who.deviceId}/containers`, { headers: who.portal })
    expect(own.json.items[0]).toMatchObject({ memory_accounting: false })
    const other = await target.send('GET', '/v1/containers', { headers: a.portal })
    expect(other.json.items.every((c: { memory_accounting: boolean }) => c.memory_accounting)).toBe(true)
  })

  test('OpenAPI describes the field', async () => {
    const spec = (await target.send('GET', '/openapi.json')).json
    expect(JSON.stringify(spec)).toContain('no cgroup memory accounting (as of the newest block)')
  })
})

describe('disks', () => {
  test('a device’s S.M.A.R.T. health and the account’s failing disks', async () => {
    const res = await target.send('GET', `/v1/devices/${a.deviceId}/disks`, { headers: a.portal })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ available: true, unavailable_reason: null, collected_at: at(base + 10_000) })
    expect(res.json.items.map((d: { name: string; failing: boolean }) => [d.name, d.failing])).toEqual([
      ['/dev/nvme0', false],
      ['/dev/sda', true],
    ])
    const attention = await target.send('GET', '/v1/disks/attention', { headers: a.portal })
    expect(attention.json).toMatchObject({ disks_failing: 1, items: [{ device_id: a.deviceId, name: '/dev/sda', model: 'Example SSD' }] })
    expect((await target.send('GET', '/v1/disks/attention', { headers: b.portal })).json.disks_failing).toBe(0)
  })

  test('a device that never reported S.M.A.R.T. says so', async () => {
    const res = await target.send('GET', `/v1/devices/${b.deviceId}/disks`, { headers: b.portal })
    expect(res.json).toEqual({ device_id: b.deviceId, available: null, unavailable_reason: null, collected_at: null, items: [] })
  })
})

describe('another account’s objects are 404', () => {
  test('its device and its containers', async () => {
    const list = await target.send('GET', `/v1/devices/${a.deviceId}/containers`, { headers: a.portal })
    const id = list.json.items[0].container_id
    for (const path of [
      `/v1/devices/${a.deviceId}/containers`,
      `/v1/devices/${a.deviceId}/containers/${id}/events`,
      `/v1/devices/${a.deviceId}/containers/${id}/series`,
      `/v1/devices/${a.deviceId}/disks`,
      // its container under one's own device
      `/v1/devices/${b.deviceId}/containers/${id}/events`,
      `/v1/devices/${b.deviceId}/containers/${id}/series`,
    ]) {
      const res = await target.send('GET', path, { headers: b.portal })
      expect([path, res.status, res.json?.error?.code]).toEqual([path, 404, 'not_found'])
    }
  })

  test('without a token: 401', async () => {
    expect((await target.send('GET', '/v1/containers')).status).toBe(401)
  })
})

describe('bounds', () => {
  const refused = async (body: Record<string, unknown>, loc: string) => {
    const res = await batch(a, body)
    expect(res.status).toBe(422)
    expect(res.json.detail.map((d: { loc: (string | number)[] }) => d.loc.join('.'))).toContain(loc)
  }

  test('every string and list of the containers block is bounded', async () => {
    await refused({ containers: block([container('x'.repeat(256), { id: 'abc' })]) }, 'body.containers.items.0.name')
    await refused({ containers: block([container('web', { image: 'i'.repeat(513) })]) }, 'body.containers.items.0.image')
    await refused({ containers: block([container('web', { id: 'i'.repeat(129) })]) }, 'body.containers.items.0.id')
    const labels = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']))
    await refused({ containers: block([container('web', { labels })]) }, 'body.containers.items.0.labels')
    await refused({ containers: block([container('web', { labels: { k: 'v'.repeat(513) } })]) }, 'body.containers.items.0.labels.k')
    const longKey = 'k'.repeat(129)
    await refused({ containers: block([container('web', { labels: { [longKey]: 'v' } })]) }, `body.containers.items.0.labels.${longKey}`)
    await refused({ containers: block([container('web', { state: 'sleeping' as 'running' })]) }, 'body.containers.items.0.state')
    await refused({ containers: block([container('web', { restart_count: -1 })]) }, 'body.containers.items.0.restart_count')
    await refused({ containers: block([], { unavailable_reason: 'r'.repeat(501) }) }, 'body.containers.unavailable_reason')
    await refused({ containers: block([], { engine: { kind: 'docker', version: 'v'.repeat(65), api_version: null } }) }, 'body.containers.engine')
    await refused({ containers: block(Array.from({ length: 501 }, (_, i) => container(`c${i}`))) }, 'body.containers.items')
  })

  test('every string and list of the disks_smart block is bounded', async () => {
    const smart = (devices: unknown[], over = {}) => ({ disks_smart: { available: true, unavailable_reason: null, devices, ...over } })
    await refused(smart([{ ...disk('d'.repeat(129)) }]), 'body.disks_smart.devices.0.name')
    await refused(smart([{ ...disk('/dev/sda'), model: 'm'.repeat(201) }]), 'body.disks_smart.devices.0.model')
    await refused(smart([{ ...disk('/dev/sda'), kind: 'floppy' }]), 'body.disks_smart.devices.0.kind')
    await refused(smart(Array.from({ length: 65 }, (_, i) => disk(`/dev/sd${i}`))), 'body.disks_smart.devices')
    await refused(smart([], { unavailable_reason: 'r'.repeat(501) }), 'body.disks_smart.unavailable_reason')
  })

  test('query parameters outside their set are 422', async () => {
    for (const q of ['?limit=0', '?limit=501', '?sort=size', '?state=sleeping', '?needs_attention=yes', `?name=${'n'.repeat(256)}`]) {
      const res = await target.send('GET', `/v1/containers${q}`, { headers: a.portal })
      expect([q, res.status, Array.isArray(res.json.detail)]).toEqual([q, 422, true])
    }
    const list = await target.send('GET', `/v1/devices/${a.deviceId}/containers`, { headers: a.portal })
    const id = list.json.items[0].container_id
    const series = await target.send('GET', `/v1/devices/${a.deviceId}/containers/${id}/series?range=2y`, { headers: a.portal })
    expect(series.status).toBe(422)
    const backwards = await target.send('GET', `/v1/devices/${a.deviceId}/containers/${id}/series?start=${at(base)}&end=${at(base - 1000)}`, {
      headers: a.portal,
    })
    expect(backwards.status).toBe(422)
  })
})
