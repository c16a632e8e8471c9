import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { enqueueNotification } from '../../../src/modules/channels/channels.delivery'
import { channelsTestApp, FIRING } from '../../helpers/channels'
import { fakeNotifyService, type FakeNotifyService } from '../../helpers/fake-notify'
import { addMember, createTenant } from '../../helpers/fixtures'

const DISCORD_TOKEN = 'Zx9-SuperSecretWebhookToken_abcdefghijklmnop'
const BOT_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const SMTP_PASSWORD = 'pa55-w0rd-for-smtp'

let fake: FakeNotifyService
beforeAll(() => {
  fake = fakeNotifyService()
})
afterAll(() => fake.stop())

const discordUrl = () => `http://hooks.example.test:${fake.port}/api/webhooks/123456789012345678/${DISCORD_TOKEN}`

async function setup() {
  const t = channelsTestApp({ apiPort: fake.port })
  const owner = await createTenant(t)
  const create = (body: Record<string, unknown>) => t.request('POST', '/v1/channels', { headers: owner.userHeaders, body })
  return { t, owner, create }
}

describe('CRUD', () => {
  test('the kinds catalogue has every kind with its fields, secret ones marked', async () => {
    const { t, owner } = await setup()
    const res = await t.request('GET', '/v1/channels/kinds', { headers: owner.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body.items.map((k: { id: string }) => k.id)).toEqual(['webhook', 'email', 'ntfy', 'gotify', 'discord', 'slack', 'telegram', 'teams', 'pushover'])
    const telegram = res.body.items.find((k: { id: string }) => k.id === 'telegram')
    expect(telegram.shoutrrr).toBe('telegram')
    expect(telegram.fields.map((f: { name: string; secret: boolean }) => [f.name, f.secret])).toEqual([
      ['bot_token', true],
      ['chat_id', false],
      ['silent', false],
    ])
  })

  test('create, read, list, change, delete; secrets write-only and masked', async () => {
    const { t, owner, create } = await setup()
    const made = await create({ name: 'Ops Discord', kind: 'discord', config: { webhook_url: discordUrl(), username: 'Vigil' }, min_severity: 'warning' })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({
      name: 'Ops Discord',
      kind: 'discord',
      enabled: true,
      min_severity: 'warning',
      config: { username: 'Vigil' },
      secrets: { webhook_url: '••••mnop' },
    })
    const id = made.body.id
    expect((await t.request('GET', `/v1/channels/${id}`, { headers: owner.userHeaders })).body).toEqual(made.body)
    expect((await t.request('GET', '/v1/channels', { headers: owner.userHeaders })).body.items).toEqual([made.body])

    // a change that leaves the secret out keeps it
    t.clock.advance(1000)
    const renamed = await t.request('PATCH', `/v1/channels/${id}`, {
      headers: owner.userHeaders,
      body: { name: 'Discord', enabled: false, config: { username: null } },
    })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ name: 'Discord', enabled: false, config: {}, secrets: { webhook_url: '••••mnop' } })
    expect(renamed.body.updated_at).not.toBe(made.body.updated_at)
    const exported = await t.request('POST', `/v1/channels/${id}/export`, { headers: owner.userHeaders })
    expect(exported.body.url).toBe(`discord://${DISCORD_TOKEN}@123456789012345678`)

    // a required secret cannot be removed
    const removed = await t.request('PATCH', `/v1/channels/${id}`, { headers: owner.userHeaders, body: { config: { webhook_url: null } } })
    expect([removed.status, removed.body.error.code, removed.body.error.param]).toEqual([422, 'invalid_channel_config', 'config.webhook_url'])

    expect((await t.request('DELETE', `/v1/channels/${id}`, { headers: owner.userHeaders })).status).toBe(204)
    expect((await t.request('GET', `/v1/channels/${id}`, { headers: owner.userHeaders })).status).toBe(404)
  })

  test('bad input is 422 naming the field', async () => {
    const { create } = await setup()
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ name: 'x', kind: 'pager', config: {} }, 422, 'validation', ''],
      [{ name: '', kind: 'ntfy', config: { topic: 't' } }, 422, 'validation', ''],
      [{ name: 'x', kind: 'ntfy', config: { topic: 't', colour: 'red' } }, 422, 'invalid_channel_config', 'config.colour'],
      [{ name: 'x', kind: 'ntfy', config: {} }, 422, 'invalid_channel_config', 'config.topic'],
      [{ name: 'x', kind: 'ntfy', config: { topic: 'has space' } }, 422, 'invalid_channel_config', 'config.topic'],
      [{ name: 'x', kind: 'ntfy', config: { topic: 't', priority: 9 } }, 422, 'invalid_channel_config', 'config.priority'],
      [{ name: 'x', kind: 'ntfy', config: { topic: 't', priority: '5' } }, 422, 'invalid_channel_config', 'config.priority'],
      [{ name: 'x', kind: 'ntfy', config: { topic: 't', server: 'ftp://ntfy.sh' } }, 422, 'invalid_channel_config', 'config.server'],
      [{ name: 'x', kind: 'webhook', config: { url: 'https://user:pw@example.com/' } }, 422, 'invalid_channel_config', 'config.url'],
      [{ name: 'x', kind: 'discord', config: { webhook_url: 'https://discord.com/channels/1' } }, 422, 'invalid_channel_config', 'config.webhook_url'],
      [{ name: 'x', kind: 'email', config: { host: 'mail.example.com', from: 'nope', to: ['a@example.com'] } }, 422, 'invalid_channel_config', 'config.from'],
      [
        { name: 'x', kind: 'email', config: { host: 'mail.example.com', from: 'a@example.com', to: ['a@example.com', 'x'] } },
        422,
        'invalid_channel_config',
        'config.to',
      ],
      [
        { name: 'x', kind: 'email', config: { host: 'mail.example.com\r\nRCPT', from: 'a@example.com', to: ['b@example.com'] } },
        422,
        'invalid_channel_config',
        'config.host',
      ],
      [{ name: 'x', kind: 'telegram', config: { bot_token: 'abc', chat_id: '1' } }, 422, 'invalid_channel_config', 'config.bot_token'],
      [
        { name: 'x', kind: 'pushover', config: { app_token: 'short', user_key: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG' } },
        422,
        'invalid_channel_config',
        'config.app_token',
      ],
    ]
    for (const [body, status, code, param] of cases) {
      const res = await create(body)
      const got =
        code === 'validation' ? [res.status, res.body.detail ? 'validation' : res.body.error.code, ''] : [res.status, res.body.error.code, res.body.error.param]
      expect([JSON.stringify(body), ...got]).toEqual([JSON.stringify(body), status, code, param])
    }
  })

  test('every string and the settings object are bounded: 422 with the detail list beyond them', async () => {
    const { create } = await setup()
    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']))
    for (const body of [
      { name: 'x'.repeat(101), kind: 'ntfy', config: { topic: 't' } },
      { name: 'x', kind: 'ntfy', config: { topic: 't'.repeat(4001) } },
      { name: 'x', kind: 'ntfy', config: tooMany },
      { name: 'x', kind: 'email', config: { host: 'mail.example.com', from: 'a@example.com', to: ['b'.repeat(321)] } },
    ]) {
      const res = await create(body)
      expect([JSON.stringify(body).slice(0, 40), res.status, Array.isArray(res.body.detail)]).toEqual([JSON.stringify(body).slice(0, 40), 422, true])
    }
    // a long key is no field of any kind: 422 naming it
    expect((await create({ name: 'x', kind: 'ntfy', config: { ['k'.repeat(65)]: 't' } })).body.error.code).toBe('invalid_channel_config')
  })

  test('an account may have at most 100 channels: the next is 409 conflict, another account is not affected', async () => {
    const { t, owner, create } = await setup()
    // 99 written straight to the store (the API's own rate limit is not what is tested), the 100th through the API
    const now = t.clock.now()
    for (let i = 0; i < 99; i++) {
      t.channels.store.insertChannel({
        ...{ id: `chn_${i}`, client_id: owner.clientId, name: `c${i}`, kind: 'ntfy', config: '{"topic":"t"}', secrets_enc: null },
        ...{ enabled: 1, min_severity: 'info', created_at: now, updated_at: now },
      })
    }
    expect((await create({ name: 'c99', kind: 'ntfy', config: { topic: 't99' } })).status).toBe(201)
    const over = await create({ name: 'one more', kind: 'ntfy', config: { topic: 'more' } })
    expect(over.status).toBe(409)
    expect(over.body.error).toMatchObject({ code: 'conflict', message: 'An account may have at most 100 notification channels; delete one first' })
    const other = await createTenant(t)
    const theirs = await t.request('POST', '/v1/channels', { headers: other.userHeaders, body: { name: 'x', kind: 'ntfy', config: { topic: 'x' } } })
    expect(theirs.status).toBe(201)
  })

  test('test sends are limited per account: 30 a minute, then 429 with Retry-After; another account is not affected', async () => {
    const { t, owner, create } = await setup()
    const id = (await create({ name: 'hook', kind: 'webhook', config: { url: `http://hooks.example.test:${fake.port}/hook` } })).body.id
    for (let i = 0; i < 30; i++) expect((await t.request('POST', `/v1/channels/${id}/test`, { headers: owner.userHeaders })).status).toBe(200)
    const refused = await t.request('POST', `/v1/channels/${id}/test`, { headers: owner.userHeaders })
    expect(refused.status).toBe(429)
    expect(refused.body.error.code).toBe('rate_limited')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    const other = await createTenant(t)
    const theirs = await t.request('POST', '/v1/channels', {
      headers: other.userHeaders,
      body: { name: 'x', kind: 'webhook', config: { url: `http://hooks.example.test:${fake.port}/x` } },
    })
    expect((await t.request('POST', `/v1/channels/${theirs.body.id}/test`, { headers: other.userHeaders })).status).toBe(200)
    t.clock.advance(2_000) // a token back every 2 s
    expect((await t.request('POST', `/v1/channels/${id}/test`, { headers: owner.userHeaders })).status).toBe(200)
  })

  test("another tenant's channel is 404 on every route; enqueue skips it", async () => {
    const { t, create } = await setup()
    const id = (await create({ name: 'n', kind: 'ntfy', config: { topic: 'mine' } })).body.id
    const other = await createTenant(t)
    for (const [method, path] of [
      ['GET', `/v1/channels/${id}`],
      ['PATCH', `/v1/channels/${id}`],
      ['DELETE', `/v1/channels/${id}`],
      ['POST', `/v1/channels/${id}/test`],
      ['POST', `/v1/channels/${id}/export`],
      ['GET', `/v1/channels/${id}/deliveries`],
    ] as const) {
      const res = await t.request(method, path, { headers: other.userHeaders, body: method === 'PATCH' ? { name: 'stolen' } : undefined })
      expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 404, 'not_found'])
    }
    expect((await t.request('GET', '/v1/channels', { headers: other.userHeaders })).body.items).toEqual([])
    expect(await enqueueNotification(t.channels, other.clientId, [id], FIRING)).toEqual([])
  })

  test('members read, only owners and admins write, test and export', async () => {
    const { t, owner, create } = await setup()
    const id = (await create({ name: 'n', kind: 'ntfy', config: { topic: 'mine' } })).body.id
    const member = await addMember(t, owner.clientId, 'member')
    expect((await t.request('GET', `/v1/channels/${id}`, { headers: member.headers })).status).toBe(200)
    expect((await t.request('POST', `/v1/channels/${id}/export`, { headers: member.headers })).status).toBe(403)
    const admin = await addMember(t, owner.clientId, 'admin')
    expect((await t.request('POST', `/v1/channels/${id}/export`, { headers: admin.headers })).status).toBe(200)
  })
})

describe('secrets never leave in responses or logs', () => {
  test('sealed at rest, masked when read, scrubbed from failed attempts and the log', async () => {
    const { t, owner, create } = await setup()
    const discord = (await create({ name: 'd', kind: 'discord', config: { webhook_url: discordUrl() } })).body.id
    const telegram = (await create({ name: 't', kind: 'telegram', config: { bot_token: BOT_TOKEN, chat_id: '42' } })).body.id
    const mail = (
      await create({
        name: 'm',
        kind: 'email',
        config: { host: 'mail.example.test', port: 1, username: 'u', password: SMTP_PASSWORD, from: 'a@example.com', to: ['b@example.com'] },
      })
    ).body.id
    // a service that echoes the request back in its error, as some do
    fake.answerAlways((r) => ({ status: 401, body: JSON.stringify({ ok: false, description: `Unauthorized: ${r.path}` }) }))
    t.worker.start()
    await enqueueNotification(t.channels, owner.clientId, [discord, telegram, mail], FIRING)
    await t.worker.idle()
    await t.request('POST', `/v1/channels/${telegram}/test`, { headers: owner.userHeaders })
    fake.answerAlways({ status: 200, body: '{"ok":true}' })

    const answers = [
      await t.request('GET', '/v1/channels', { headers: owner.userHeaders }),
      ...(await Promise.all([discord, telegram, mail].map((id) => t.request('GET', `/v1/channels/${id}/deliveries`, { headers: owner.userHeaders })))),
      await t.request('PATCH', `/v1/channels/${mail}`, { headers: owner.userHeaders, body: { name: 'mail' } }),
    ]
    expect(answers[1]!.body.items[0].attempts[0].excerpt).toBe('{"ok":false,"description":"Unauthorized: /api/webhooks/123456789012345678/[secret]"}')
    expect(answers[2]!.body.items[0].attempts[0].excerpt).toBe('{"ok":false,"description":"Unauthorized: /bot[secret]/sendMessage"}')
    const everything = JSON.stringify([answers.map((a) => a.text), t.logs, t.db.sqlite.query('SELECT * FROM channels').all()])
    for (const secret of [DISCORD_TOKEN, BOT_TOKEN, BOT_TOKEN.split(':')[1], SMTP_PASSWORD]) expect(everything).not.toContain(secret!)
    await t.worker.stop()
  })
})

describe('Shoutrrr import and export', () => {
  test('import makes the channel, export gives the URL back with its secrets', async () => {
    const { t, owner } = await setup()
    const url = 'pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG/?devices=phone&priority=0'
    const made = await t.request('POST', '/v1/channels/import', { headers: owner.userHeaders, body: { url, min_severity: 'critical' } })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({
      name: 'Pushover',
      kind: 'pushover',
      min_severity: 'critical',
      config: { device: 'phone', priority: 0 },
      secrets: { app_token: '••••nyUi', user_key: '••••VRsG' },
    })
    expect(JSON.stringify(made.body)).not.toContain('azGDORePK8gMaC0QOYAMyEEuzJnyUi')
    const exported = await t.request('POST', `/v1/channels/${made.body.id}/export`, { headers: owner.userHeaders })
    expect(exported.body.url).toBe('pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG/?devices=phone&priority=0')
    expect(t.logs.some((l) => l.includes('channel exported as a Shoutrrr URL') && l.includes(owner.userId))).toBe(true)

    const named = await t.request('POST', '/v1/channels/import', { headers: owner.userHeaders, body: { url: 'ntfy://ntfy.sh/vigil', name: 'Phone' } })
    expect(named.body).toMatchObject({ name: 'Phone', kind: 'ntfy', config: { server: 'https://ntfy.sh', topic: 'vigil' }, secrets: {} })
    const bad = await t.request('POST', '/v1/channels/import', { headers: owner.userHeaders, body: { url: 'matrix://u:p@matrix.org' } })
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([422, 'invalid_shoutrrr_url', 'url'])
    const empty = await t.request('POST', '/v1/channels/import', { headers: owner.userHeaders, body: { url: 'teams://?host=https://' } })
    expect([empty.status, empty.body.error.code]).toEqual([422, 'invalid_channel_config'])
    const unsafe = await t.request('POST', '/v1/channels/import', { headers: owner.userHeaders, body: { url: 'generic+http://169.254.169.254/latest' } })
    expect([unsafe.status, unsafe.body.error.code]).toEqual([422, 'unsafe_url'])
  })
})
