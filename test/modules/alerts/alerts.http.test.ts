import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { executableTarget, seedWorld, type Target, type World } from '../../helpers/contract'

/**
 * The alerts API as shipped: dist/vigil on a fresh data dir, over a real socket. What a rule
 * and the routing may name, the per-account caps, the bounds of every string, and what the
 * timeline says about notices.
 */
let target: Target
let world: World
let other: World['jwt']

const send = (method: string, path: string, body?: unknown, headers = world.jwt) => target.send(method, path, { headers, body })
const locs = (res: { json: any }) => (res.json?.detail ?? []).map((d: { loc: (string | number)[] }) => d.loc)
const channel = async (headers: Record<string, string>, extra: Record<string, unknown> = {}) => {
  const res = await send('POST', '/v1/channels', { name: 'ops', kind: 'ntfy', config: { topic: 'alerts' }, ...extra }, headers)
  expect(res.status).toBe(201)
  return res.json.id as string
}

beforeAll(async () => {
  target = await executableTarget()
  world = await seedWorld(target)
  const account = { email: 'other@example.test', password: 'correct horse battery' }
  await target.send('POST', '/v1/auth/register', { body: account })
  const login = await target.send('POST', '/v1/auth/login', { body: account })
  other = { authorization: `Bearer ${login.json.access_token}` }
}, 60_000)

afterAll(async () => {
  await target?.stop()
})

describe('rules and routing name only channels of the account', () => {
  test('a rule naming a channel that does not exist, or is another account’s, is refused at channel_ids', async () => {
    const theirs = await channel(other)
    const mine = await channel(world.jwt)
    for (const ids of [['chn_nosuch'], [theirs], [mine, theirs]]) {
      const res = await send('POST', '/v1/alerts/rules', { name: 'cpu', metric: 'cpu_percent', threshold: 90, channel_ids: ids })
      expect(res.status).toBe(422)
      expect(locs(res)).toContainEqual(['body', 'channel_ids'])
    }
    const ok = await send('POST', '/v1/alerts/rules', { name: 'cpu', metric: 'cpu_percent', threshold: 90, channel_ids: [mine] })
    expect(ok.status).toBe(201)
    const patch = await send('PATCH', `/v1/alerts/rules/${ok.json.id}`, { channel_ids: [theirs] })
    expect(patch.status).toBe(422)
    expect(locs(patch)).toContainEqual(['body', 'channel_ids'])
    await send('DELETE', `/v1/alerts/rules/${ok.json.id}`)
  })

  test('the severity routing refuses another account’s channel and keeps its value', async () => {
    const theirs = await channel(other)
    const mine = await channel(world.jwt)
    const res = await send('PATCH', '/v1/alerts/settings', { routing: { warning: [mine], critical: [theirs] } })
    expect(res.status).toBe(422)
    expect(locs(res)).toContainEqual(['body', 'routing', 'critical'])
    expect((await send('GET', '/v1/alerts/settings')).json.routing).toEqual({ warning: [], critical: [] })
    expect((await send('PATCH', '/v1/alerts/settings', { routing: { warning: [mine], critical: [] } })).status).toBe(200)
    expect((await send('PATCH', '/v1/alerts/settings', { routing: { warning: [], critical: [] } })).status).toBe(200)
  })
})

describe('the timeline tells what was queued', () => {
  test('a notice to a disabled channel is not claimed: the timeline says none was queued and why; an enabled one is counted', async () => {
    const off = await channel(world.jwt, { enabled: false })
    const on = await channel(world.jwt)
    const quiet = await send('POST', '/v1/alerts/rules', { name: 'quiet', metric: 'ram_percent', threshold: 50, channel_ids: [off] })
    const loud = await send('POST', '/v1/alerts/rules', { name: 'loud', metric: 'swap_percent', threshold: 50, channel_ids: [on, off] })
    expect(quiet.status).toBe(201)
    expect(loud.status).toBe(201)
    expect((await send('POST', '/v1/metrics/hardware', { ram_percent: 80, swap_percent: 80 }, world.key)).status).toBe(201)
    const alerts = (await send('GET', '/v1/alerts?state=firing')).json.items as { id: string; rule: { id: string } }[]
    const timeline = async (ruleId: string) => {
      const a = alerts.find((x) => x.rule.id === ruleId)!
      return (await send('GET', `/v1/alerts/${a.id}`)).json.timeline as { type: string; note: string | null }[]
    }
    const q = await timeline(quiet.json.id)
    expect(q.map((e) => e.type)).toEqual(['pending', 'firing', 'not_notified'])
    expect(q[2]!.note).toBe('no firing notice was sent: none of its 1 channel(s) is enabled and takes warning notices')
    const l = await timeline(loud.json.id)
    expect(l.at(-1)).toMatchObject({ type: 'notified', note: 'firing notice queued for 1 channel(s)' })
    await send('DELETE', `/v1/alerts/rules/${quiet.json.id}`)
    await send('DELETE', `/v1/alerts/rules/${loud.json.id}`)
  })
})

describe('a rule scoped to a deleted device', () => {
  test('says so in scope_device_missing', async () => {
    const dev = await send('POST', '/v1/clients/me/devices', { hostname: 'gone', os: 'linux', os_version: '6', arch: 'x64', fingerprint: 'fp-gone' }, world.key)
    // the free own instance may allow one device only: the seeded one is reused then
    const deviceId = dev.status === 201 ? (dev.json.device_id as string) : world.ids.device_id!
    const rule = await send('POST', '/v1/alerts/rules', { name: 'one box', metric: 'cpu_percent', threshold: 99, scope: { type: 'device', value: deviceId } })
    expect(rule.status).toBe(201)
    expect(rule.json.scope_device_missing).toBe(false)
    expect((await send('DELETE', `/v1/clients/me/devices/${deviceId}`)).status).toBe(204)
    expect((await send('GET', `/v1/alerts/rules/${rule.json.id}`)).json.scope_device_missing).toBe(true)
    const listed = (await send('GET', '/v1/alerts/rules')).json.items.find((r: { id: string }) => r.id === rule.json.id)
    expect(listed.scope_device_missing).toBe(true)
    await send('DELETE', `/v1/alerts/rules/${rule.json.id}`)
  })
})

describe('bounds', () => {
  const long = (n: number) => 'x'.repeat(n)
  const cases: [string, string, string, unknown, (string | number)[]][] = [
    ['a rule name', 'POST', '/v1/alerts/rules', { name: long(101), metric: 'cpu_percent', threshold: 1 }, ['body', 'name']],
    ['a metric', 'POST', '/v1/alerts/rules', { name: 'n', metric: `cpu_${long(200)}`, threshold: 1 }, ['body', 'metric']],
    ['a channel id', 'POST', '/v1/alerts/rules', { name: 'n', metric: 'cpu_percent', threshold: 1, channel_ids: [long(101)] }, ['body', 'channel_ids', 0]],
    [
      'a scope value',
      'POST',
      '/v1/alerts/rules',
      { name: 'n', metric: 'cpu_percent', threshold: 1, scope: { type: 'tag', value: long(101) } },
      ['body', 'scope', 'value'],
    ],
    ['a silence comment', 'POST', '/v1/alerts/silences', { comment: long(501), ends_at: '2030-01-01T00:00:00Z' }, ['body', 'comment']],
    ['a cron pattern', 'POST', '/v1/alerts/silences', { cron: long(101), duration_seconds: 600 }, ['body', 'cron']],
    ['a time zone', 'POST', '/v1/alerts/silences', { cron: '0 2 * * *', duration_seconds: 600, timezone: long(65) }, ['body', 'timezone']],
    ['a gateway id', 'PUT', '/v1/alerts/dependencies/dev_x', { parent_device_id: long(101) }, ['body', 'parent_device_id']],
    ['a routing channel', 'PATCH', '/v1/alerts/settings', { routing: { warning: [long(101)], critical: [] } }, ['body', 'routing', 'warning', 0]],
  ]
  for (const [what, method, path, body, loc] of cases) {
    test(`422 for ${what} past its bound`, async () => {
      const res = await send(method, path, body)
      expect(res.status).toBe(422)
      expect(locs(res)).toContainEqual(loc)
    })
  }

  test('422 for an id in the path past its bound, not a lookup', async () => {
    for (const path of [`/v1/alerts/rules/${long(101)}`, `/v1/alerts/${long(101)}`, `/v1/alerts/silences/${long(101)}`]) {
      const res = await send('GET', path)
      expect({ path, status: res.status }).toEqual({ path, status: 422 })
    }
  })

  test('an acknowledgement note past 1000 characters is refused', async () => {
    const res = await send('POST', '/v1/alerts/alr_x/acknowledge', { note: long(1001) })
    expect(res.status).toBe(422)
    expect(locs(res)).toContainEqual(['body', 'note'])
  })
})

describe('per-account caps', () => {
  test('the 201st rule is refused with the error body; another account is not affected', async () => {
    const have = (await send('GET', '/v1/alerts/rules')).json.items.length as number
    for (let i = have; i < 200; i++) {
      const res = await send('POST', '/v1/alerts/rules', { name: `r${i}`, metric: 'cpu_percent', threshold: 99 })
      expect(res.status).toBe(201)
    }
    const over = await send('POST', '/v1/alerts/rules', { name: 'one too many', metric: 'cpu_percent', threshold: 99 })
    expect(over.status).toBe(409)
    expect(over.json.error).toMatchObject({ code: 'conflict', message: 'An account may have 200 alert rules; delete or reuse one first' })
    expect((await send('POST', '/v1/alerts/rules', { name: 'theirs', metric: 'cpu_percent', threshold: 99 }, other)).status).toBe(201)
  }, 60_000)

  test('the 501st silence is refused with the error body', async () => {
    for (let i = 0; i < 500; i++) {
      const res = await send('POST', '/v1/alerts/silences', { comment: `s${i}`, ends_at: '2030-01-01T00:00:00Z' })
      expect(res.status).toBe(201)
    }
    const over = await send('POST', '/v1/alerts/silences', { ends_at: '2030-01-01T00:00:00Z' })
    expect(over.status).toBe(409)
    expect(over.json.error.code).toBe('conflict')
  }, 60_000)
})
