import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { enqueueNotification } from '../../../src/modules/channels/channels.delivery'
import { channelsTestApp, FIRING, type ChannelsTestApp } from '../../helpers/channels'
import { fakeNotifyService, type FakeNotifyService } from '../../helpers/fake-notify'
import { createTenant } from '../../helpers/fixtures'
import { VERSION } from '../../../src/version'

/**
 * Each kind against a local fake of its service: the request a real service would receive,
 * byte for byte where it matters (method, path, headers, JSON or form body).
 */
let fake: FakeNotifyService
let t: ChannelsTestApp
let headers: Record<string, string>
let clientId: string

beforeAll(async () => {
  fake = fakeNotifyService()
  t = channelsTestApp({ apiPort: fake.port })
  const tenant = await createTenant(t)
  headers = tenant.userHeaders
  clientId = tenant.clientId
  t.worker.start()
})
afterAll(async () => {
  await t.worker.stop()
  fake.stop()
})

/** Creates a channel through the API, queues FIRING for it, lets the worker send it, returns what the fake received. */
async function deliver(kind: string, config: Record<string, unknown>) {
  const created = await t.request('POST', '/v1/channels', { headers, body: { name: kind, kind, config } })
  expect(created.status).toBe(201)
  fake.received.length = 0
  await enqueueNotification(t.channels, clientId, [created.body.id], FIRING)
  await t.worker.idle()
  expect(fake.received).toHaveLength(1)
  const page = await t.request('GET', `/v1/channels/${created.body.id}/deliveries`, { headers })
  expect(page.body.items[0].status).toBe('delivered')
  return fake.received[0]!
}

const base = () => `http://hooks.example.test:${fake.port}`
const UA = `Vigil/${VERSION}`

describe('each kind sends what its service documents', () => {
  test('generic webhook: our JSON, Authorization when set', async () => {
    const r = await deliver('webhook', { url: `${base()}/hook?src=vigil`, authorization: 'Bearer s3cret-token-value' })
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/hook?src=vigil')
    expect(r.headers['content-type']).toBe('application/json')
    expect(r.headers.authorization).toBe('Bearer s3cret-token-value')
    expect(r.headers['user-agent']).toBe(UA)
    expect(r.headers.host).toBe(`hooks.example.test:${fake.port}`)
    expect(JSON.parse(r.body)).toEqual({ type: 'vigil.notification', version: 1, ...FIRING })
  })

  test('ntfy: JSON publish to the server root, priority and tag by severity, click, Bearer token', async () => {
    const r = await deliver('ntfy', { server: `http://ntfy.example.test:${fake.port}`, topic: 'vigil-alerts', token: 'tk_abcdefghijklmnopqrstuvwxyz012' })
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/')
    expect(r.headers.authorization).toBe('Bearer tk_abcdefghijklmnopqrstuvwxyz012')
    expect(r.headers['content-type']).toBe('application/json')
    expect(JSON.parse(r.body)).toEqual({
      topic: 'vigil-alerts',
      title: FIRING.title,
      message: FIRING.body,
      priority: 5,
      tags: ['rotating_light'],
      click: FIRING.url,
    })
  })

  test('ntfy with username: Basic user:password, a fixed priority', async () => {
    const r = await deliver('ntfy', { server: `http://ntfy.example.test:${fake.port}`, topic: 't1', username: 'phil', token: 'correct-horse', priority: 2 })
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('phil:correct-horse').toString('base64')}`)
    expect(JSON.parse(r.body).priority).toBe(2)
  })

  test('gotify: POST /message, the token in X-Gotify-Key, priority by severity, click extra', async () => {
    const r = await deliver('gotify', { server: `http://gotify.example.test:${fake.port}/gotify/`, token: 'AbCdEfGhIjKlMnO' })
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/gotify/message')
    expect(r.headers['x-gotify-key']).toBe('AbCdEfGhIjKlMnO')
    expect(JSON.parse(r.body)).toEqual({
      title: FIRING.title,
      message: FIRING.body,
      priority: 8,
      extras: { 'client::display': { contentType: 'text/plain' }, 'client::notification': { click: { url: FIRING.url } } },
    })
  })

  test('discord: one embed, no mentions, thread_id in the query', async () => {
    const r = await deliver('discord', { webhook_url: `${base()}/api/webhooks/123456789012345678/AbC-dEf_ghi`, thread_id: '998877' })
    expect(r.path).toBe('/api/webhooks/123456789012345678/AbC-dEf_ghi?thread_id=998877')
    expect(r.headers['content-type']).toBe('application/json')
    expect(JSON.parse(r.body)).toEqual({
      embeds: [
        {
          title: FIRING.title,
          description: FIRING.body,
          url: FIRING.url,
          color: 0xd60510,
          timestamp: FIRING.timestamp,
          footer: { text: 'Firing · critical · web-1' },
        },
      ],
      allowed_mentions: { parse: [] },
    })
  })

  test('slack: text fallback and blocks, mrkdwn escaped', async () => {
    const r = await deliver('slack', { webhook_url: `${base()}/services/T0001/B0001/XXXXXXXXXXXXXXXXXXXXXXXX` })
    expect(r.path).toBe('/services/T0001/B0001/XXXXXXXXXXXXXXXXXXXXXXXX')
    expect(JSON.parse(r.body)).toEqual({
      text: FIRING.title,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: FIRING.title, emoji: true } },
        { type: 'section', text: { type: 'mrkdwn', text: FIRING.body } },
        { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in Vigil' }, url: FIRING.url }] },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'Firing · critical · web-1' }] },
      ],
    })
  })

  test('telegram: sendMessage under the bot token, HTML escaped, previews off', async () => {
    const r = await deliver('telegram', { bot_token: '123456789:AAEhBP0av28Y_example_token_abc', chat_id: '-1001234567890', silent: true })
    expect(r.path).toBe('/bot123456789:AAEhBP0av28Y_example_token_abc/sendMessage')
    expect(r.headers.host).toBe(`api.example.test:${fake.port}`)
    expect(JSON.parse(r.body)).toEqual({
      chat_id: '-1001234567890',
      text:
        '<b>CRITICAL: disk / above 90% on web-1</b>\n\nDisk / is at 93.4% (threshold 90%) since 2026-01-01 00:00 UTC.\nLargest growth: /var/log.\n\n' +
        '<i>Firing · critical · web-1</i>\n\n<a href="https://vigil.example.com/devices/dev_1">Open in Vigil</a>',
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
      disable_notification: true,
    })
  })

  test('teams: an Adaptive Card in the attachments shape of a Workflows webhook', async () => {
    const url = `http://flows.example.test:${fake.port}/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=SIGxyz`
    const r = await deliver('teams', { workflow_url: url })
    expect(r.path).toBe('/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=SIGxyz')
    expect(JSON.parse(r.body)).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            msteams: { width: 'Full' },
            body: [
              { type: 'TextBlock', text: FIRING.title, weight: 'Bolder', size: 'Medium', color: 'Attention', wrap: true },
              { type: 'TextBlock', text: FIRING.body, wrap: true },
              {
                type: 'FactSet',
                facts: [
                  { title: 'Severity', value: 'critical' },
                  { title: 'Event', value: 'firing' },
                  { title: 'Devices', value: 'web-1' },
                ],
              },
            ],
            actions: [{ type: 'Action.OpenUrl', title: 'Open in Vigil', url: FIRING.url }],
          },
        },
      ],
    })
  })

  test('pushover: the messages.json form', async () => {
    const r = await deliver('pushover', { app_token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi', user_key: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG', device: 'phone' })
    expect(r.path).toBe('/1/messages.json')
    expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({
      token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi',
      user: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG',
      title: FIRING.title,
      message: FIRING.body,
      priority: '1',
      timestamp: String(Date.parse(FIRING.timestamp) / 1000),
      url: FIRING.url!,
      url_title: 'Open in Vigil',
      device: 'phone',
    })
    expect(r.body.startsWith('token=azGDORePK8gMaC0QOYAMyEEuzJnyUi&user=uQiRzpo4DXghDmr9QzzfQu27cmVRsG&title=CRITICAL%3A+disk')).toBe(true)
  })
})
