import { describe, expect, test } from 'bun:test'
import { AppError } from '../../../src/http/errors'
import type { Settings } from '../../../src/modules/channels/channels.kind-spec'
import { applySettings } from '../../../src/modules/channels/channels.settings'
import { parseShoutrrr } from '../../../src/modules/channels/channels.shoutrrr'

/** Shoutrrr URLs as its documentation (v0.17, the version Beszel uses) writes them, and the channel each becomes. */
const IMPORTS: [url: string, kind: string, settings: Settings][] = [
  ['ntfy://ntfy.sh/vigil-alerts', 'ntfy', { server: 'https://ntfy.sh', topic: 'vigil-alerts' }],
  [
    'ntfy://:tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2@ntfy.example.com/alerts?priority=high',
    'ntfy',
    { server: 'https://ntfy.example.com', topic: 'alerts', token: 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2', priority: 4 },
  ],
  [
    'ntfy://phil:s3cret@ntfy.lan:8080/home?scheme=http&tags=warning',
    'ntfy',
    { server: 'http://ntfy.lan:8080', topic: 'home', username: 'phil', token: 's3cret' },
  ],
  ['gotify://gotify.example.com:443/AzyoeNS.D4iJLVa/?priority=1', 'gotify', { server: 'https://gotify.example.com', token: 'AzyoeNS.D4iJLVa', priority: 1 }],
  ['gotify://example.com/gotify/AzyoeNS.D4iJLVa?disabletls=yes', 'gotify', { server: 'http://example.com/gotify', token: 'AzyoeNS.D4iJLVa' }],
  ['discord://AbCdEf-123_xyz@123456789012345678', 'discord', { webhook_url: 'https://discord.com/api/webhooks/123456789012345678/AbCdEf-123_xyz' }],
  [
    'discord://tok@123456789?thread_id=987654321&username=Vigil',
    'discord',
    { webhook_url: 'https://discord.com/api/webhooks/123456789/tok', thread_id: '987654321', username: 'Vigil' },
  ],
  [
    'slack://hook:WNA3PBYV6-F20DUQND3RQ-Webc4MAvoacrpPakR8phF0zi@webhook?color=good&title=Great+News',
    'slack',
    { webhook_url: 'https://hooks.slack.com/services/WNA3PBYV6/F20DUQND3RQ/Webc4MAvoacrpPakR8phF0zi' },
  ],
  [
    'slack://T00000000A/B00000000B/XXXXXXXXXXXXXXXXXXXXXXXX',
    'slack',
    { webhook_url: 'https://hooks.slack.com/services/T00000000A/B00000000B/XXXXXXXXXXXXXXXXXXXXXXXX' },
  ],
  [
    'telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram?chats=@vigil_alerts',
    'telegram',
    { bot_token: '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: '@vigil_alerts' },
  ],
  [
    'telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram/?channels=-1001234567890&notification=no&preview=false&parseMode=html',
    'telegram',
    { bot_token: '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: '-1001234567890', silent: true },
  ],
  [
    'teams://?host=https%3A%2F%2Fprod-00.westus.logic.azure.com%3A443%2Fworkflows%2Fabc123%2Ftriggers%2Fmanual%2Fpaths%2Finvoke%3Fapi-version%3D2016-06-00%26sp%3D%2Ftriggers%2Fmanual%2Frun%26sv%3D1.0%26sig%3DXXXXXXXX&title=Alert',
    'teams',
    {
      workflow_url:
        'https://prod-00.westus.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-00&sp=/triggers/manual/run&sv=1.0&sig=XXXXXXXX',
    },
  ],
  [
    'pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG/?devices=device1,device2&priority=1',
    'pushover',
    { app_token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi', user_key: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG', device: 'device1,device2', priority: 1 },
  ],
  [
    'smtp://user:p%40ss@smtp.gmail.com:587/?from=me@gmail.com&to=you@example.com,ops@example.com',
    'email',
    {
      host: 'smtp.gmail.com',
      port: 587,
      security: 'starttls',
      username: 'user',
      password: 'p@ss',
      from: 'me@gmail.com',
      to: ['you@example.com', 'ops@example.com'],
    },
  ],
  [
    'smtp://mail.example.com:465/?fromaddress=a@example.com&toaddresses=b@example.com',
    'email',
    { host: 'mail.example.com', port: 465, security: 'tls', from: 'a@example.com', to: ['b@example.com'] },
  ],
  [
    'smtp://relay.lan:25/?from=a@example.com&to=b@example.com&encryption=None&usestarttls=No',
    'email',
    { host: 'relay.lan', port: 25, security: 'none', from: 'a@example.com', to: ['b@example.com'] },
  ],
  ['generic+https://example.com/api/v1/postStuff', 'webhook', { url: 'https://example.com/api/v1/postStuff' }],
  [
    'generic://example.com/hook?template=json&@Authorization=Bearer%20abc123&id=7',
    'webhook',
    { url: 'https://example.com/hook?id=7', authorization: 'Bearer abc123' },
  ],
  [
    'generic+http://192.168.1.5:8123/api/webhook/vigil?disabletls=yes&method=PUT',
    'webhook',
    { url: 'http://192.168.1.5:8123/api/webhook/vigil', method: 'PUT' },
  ],
]

describe('import: a Shoutrrr URL becomes a channel of the right kind', () => {
  for (const [url, kind, settings] of IMPORTS) {
    test(url.slice(0, 90), () => {
      const parsed = parseShoutrrr(url)
      expect(parsed.kind.id).toBe(kind as never)
      expect(applySettings(parsed.kind, parsed.settings)).toEqual(settings)
    })
  }
})

describe('export then import gives the same channel', () => {
  for (const [url, , settings] of IMPORTS) {
    test(url.slice(0, 90), () => {
      const { kind } = parseShoutrrr(url)
      const exported = kind.toShoutrrr(settings)
      const again = parseShoutrrr(exported)
      expect(again.kind.id).toBe(kind.id)
      expect(applySettings(kind, again.settings)).toEqual(settings)
    })
  }
})

test('exports are what Shoutrrr reads', () => {
  const exp = (url: string) => parseShoutrrr(url).kind.toShoutrrr(applySettings(parseShoutrrr(url).kind, parseShoutrrr(url).settings))
  expect(exp('discord://tok@123456789?thread_id=5')).toBe('discord://tok@123456789?thread_id=5')
  expect(exp('slack://T00000000A/B00000000B/XXXXXXXXXXXXXXXXXXXXXXXX')).toBe('slack://hook:T00000000A-B00000000B-XXXXXXXXXXXXXXXXXXXXXXXX@webhook')
  expect(exp('pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG')).toBe(
    'pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG/',
  )
  expect(exp('telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram?chats=12345')).toBe(
    'telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram?chats=12345&parsemode=HTML&preview=No',
  )
  expect(exp('ntfy://:tk_abc@ntfy.sh/alerts')).toBe('ntfy://:tk_abc@ntfy.sh/alerts?scheme=https')
  expect(exp('gotify://gotify.example.com/AzyoeNS.D4iJLVa')).toBe('gotify://gotify.example.com/AzyoeNS.D4iJLVa')
  expect(exp('smtp://u:p@mail.example.com:587/?from=a@example.com&to=b@example.com')).toBe(
    'smtp://u:p@mail.example.com:587/?fromaddress=a%40example.com&toaddresses=b%40example.com&encryption=ExplicitTLS&usestarttls=Yes&requirestarttls=Yes',
  )
  expect(exp('generic+https://example.com/hook?id=7&@Authorization=Bearer%20x')).toBe('generic+https://example.com/hook?id=7&%40Authorization=Bearer+x')
})

const REFUSED: [url: string, message: RegExp][] = [
  ['not a url', /not a URL/],
  ['matrix://user:pass@matrix.org/?rooms=!abc', /matrix is not a service Vigil sends to/],
  ['slack://xoxb:123456789012-1234567890123-4mt0t4l1YL3g1T5L4cK70k3N@C001CH4NN3L', /bot tokens are not supported/],
  ['telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram?chats=a,b', /one chat per channel/],
  ['telegram://nonsense@telegram?chats=1', /bot token is missing or malformed/],
  ['teams://group@tenant/altId/groupOwner?host=example.webhook.office.com', /host must be the full workflow URL/],
  ['smtp://mail.example.com:587/?to=b@example.com', /from/],
  ['discord://@123', /token is missing/],
  ['ntfy://ntfy.sh/', /topic is missing/],
  ['generic+https://example.com/hook?@X-Custom=1', /only Authorization/],
]

describe('URLs Vigil cannot take say why', () => {
  for (const [url, message] of REFUSED) {
    test(url, () => {
      const err = (() => {
        try {
          parseShoutrrr(url)
        } catch (e) {
          return e
        }
      })() as AppError
      expect(err).toBeInstanceOf(AppError)
      expect(err.code).toBe('invalid_shoutrrr_url')
      expect(err.message).toMatch(message)
    })
  }
})

test('a URL that parses but carries nonsense is a 422, never a crash', () => {
  for (const url of [
    'teams://?host=https://',
    'ntfy://%E0%A4%A@ntfy.sh/t',
    'gotify://h/%E0%A4%A',
    'smtp://%E0%A4%A:x@h:25/?from=a@b.c&to=d@e.f',
    'generic+https://',
  ]) {
    let err: unknown = null
    try {
      const { kind, settings } = parseShoutrrr(url)
      applySettings(kind, settings)
    } catch (e) {
      err = e
    }
    expect([url, (err as AppError)?.status]).toEqual([url, 422])
  }
})
