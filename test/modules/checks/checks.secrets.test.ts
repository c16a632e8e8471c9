import { describe, expect, test } from 'bun:test'
import { sealPlainSecrets } from '../../../src/modules/checks/checks.secrets'
import { maskUrl } from '../../../src/modules/checks/checks.settings'
import { testApp, type TestApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'

const localApp = () => testApp({ config: { outbound: { allowPrivate: false, allowLocal: true } } })

const SECRETS = ['Bearer s3cr3t-bearer-abcd', 'k3y-value-0123456789', '{"password":"b0dy-secret-wxyz"}', 'u-t0ken-in-url-9876']
const settingsWith = (base: string) => ({
  url: `${base}/hook?page=2&token=${SECRETS[3]}`,
  method: 'POST',
  headers: { authorization: SECRETS[0]!, 'x-api-key': SECRETS[1]!, accept: 'application/json' },
  body: SECRETS[2],
})

const rawRow = (t: TestApp) => t.db.sqlite.query<{ settings: string }, []>('SELECT settings FROM checks').get()!.settings
const noSecretIn = (text: string) => {
  for (const s of SECRETS) expect(text).not.toContain(s)
  for (const s of ['s3cr3t', 'k3y-value', 'b0dy-secret', 't0ken-in-url']) expect(text).not.toContain(s)
}

async function agentSetup() {
  const t = localApp()
  const a = await createTenant(t)
  const device = insertDevice(t, a.clientId, { hostname: 'nas' })
  t.db.sqlite.run('UPDATE devices SET seq = 700 WHERE id = ?', [device])
  const res = await t.request('POST', '/v1/checks', {
    headers: a.userHeaders,
    body: { name: 'api', kind: 'http', settings: settingsWith('https://api.example'), run_on_hub: false, device_ids: [device] },
  })
  expect(res.status).toBe(201)
  return { t, a, device, created: res.body as { id: string; settings: Record<string, any> } }
}

describe("a check's secrets at rest", () => {
  test('a check the agents run is refused a URL with credentials in it or another scheme, as a hub check is: nothing stored', async () => {
    const { t, a, device, created } = await agentSetup()
    for (const url of ['https://admin:hunter2-pw@nas.lan/', 'ftp://nas.lan/file']) {
      const made = await t.request('POST', '/v1/checks', {
        headers: a.userHeaders,
        body: { name: 'nas', kind: 'http', settings: { url }, run_on_hub: false, device_ids: [device] },
      })
      expect(made.status).toBe(422)
      expect(made.body.error).toMatchObject({ code: 'unsafe_url', param: 'settings.url' })
      const changed = await t.request('PATCH', `/v1/checks/${created.id}`, { headers: a.userHeaders, body: { settings: { url } } })
      expect(changed.status).toBe(422)
      expect(changed.body.error.code).toBe('unsafe_url')
    }
    expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM checks').get()!.n).toBe(1)
    expect(rawRow(t)).not.toContain('hunter2')
  })

  test('the stored row holds no credential header, body or URL credential in plain text; answers mask them', async () => {
    const { t, a, created } = await agentSetup()
    noSecretIn(rawRow(t))
    expect(created.settings).toMatchObject({
      url: 'https://api.example/hook?page=2&token=••••9876',
      headers: { authorization: '••••abcd', 'x-api-key': '••••6789', accept: 'application/json' },
      body: '••••yz"}',
    })
    const list = await t.request('GET', '/v1/checks', { headers: a.userHeaders })
    const one = await t.request('GET', `/v1/checks/${created.id}`, { headers: a.userHeaders })
    noSecretIn(JSON.stringify(list.body))
    noSecretIn(JSON.stringify(one.body))
    noSecretIn(JSON.stringify(t.logs))
  })

  test('masked values sent back keep the stored ones; new values replace them; the agent receives the definition whole', async () => {
    const { t, a, device, created } = await agentSetup()
    const patched = await t.request('PATCH', `/v1/checks/${created.id}`, {
      headers: a.userHeaders,
      body: { settings: { ...created.settings, headers: { ...created.settings.headers, accept: 'text/plain' } } },
    })
    expect(patched.status).toBe(200)
    noSecretIn(rawRow(t))
    const agent = await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: a.keyHeaders })
    expect(agent.body.checks[0].settings).toMatchObject({
      ...settingsWith('https://api.example'),
      headers: { authorization: SECRETS[0], 'x-api-key': SECRETS[1], accept: 'text/plain' },
    })
    // a new secret replaces the old one and is sealed as well
    await t.request('PATCH', `/v1/checks/${created.id}`, {
      headers: a.userHeaders,
      body: { settings: { ...patched.body.settings, headers: { ...patched.body.settings.headers, authorization: 'Bearer n3w-one-1111' } } },
    })
    expect(rawRow(t)).not.toContain('n3w-one')
    const again = await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: a.keyHeaders })
    expect(again.body.checks[0].settings.headers.authorization).toBe('Bearer n3w-one-1111')
    expect(again.body.checks[0].settings.body).toBe(SECRETS[2])
  })

  test("the hub's probe sends the secrets: header, body and the URL's credential", async () => {
    const seen = Promise.withResolvers<{ url: string; auth: string | null; key: string | null; body: string }>()
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        seen.resolve({ url: req.url, auth: req.headers.get('authorization'), key: req.headers.get('x-api-key'), body: await req.text() })
        return new Response('ok')
      },
    })
    try {
      const t = localApp()
      const a = await createTenant(t)
      const res = await t.request('POST', '/v1/checks', {
        headers: a.userHeaders,
        body: { name: 'api', kind: 'http', settings: settingsWith(`http://127.0.0.1:${server.port}`), interval_s: 60 },
      })
      expect(res.status).toBe(201)
      noSecretIn(rawRow(t))
      t.clock.advance(61_000)
      t.modules.checkScheduler.tick()
      const got = await seen.promise
      expect(got).toEqual({ url: `http://127.0.0.1:${server.port}/hook?page=2&token=${SECRETS[3]}`, auth: SECRETS[0]!, key: SECRETS[1]!, body: SECRETS[2]! })
    } finally {
      server.stop(true)
    }
  })

  test('checks saved with plain-text secrets are sealed at start-up, once, and still run with them', async () => {
    const { t, a, device, created } = await agentSetup()
    // a row as it was stored before secrets were sealed
    t.db.sqlite.run('UPDATE checks SET settings = ?', [JSON.stringify(settingsWith('https://api.example'))])
    expect(await sealPlainSecrets(t.modules.checks.checks, t.ctx.secretKey)).toBe(1)
    noSecretIn(rawRow(t))
    expect(await sealPlainSecrets(t.modules.checks.checks, t.ctx.secretKey)).toBe(0)
    const agent = await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: a.keyHeaders })
    expect(agent.body.checks[0].id).toBe(created.id)
    expect(agent.body.checks[0].settings).toMatchObject(settingsWith('https://api.example'))
  })

  test('URL parameters that look like credentials are masked, the rest kept as written', () => {
    expect(maskUrl('https://x.example/a?key=abcdefghijklmnop&q=1#frag')).toBe('https://x.example/a?key=••••mnop&q=1#frag')
    expect(maskUrl('https://x.example/a?sig=short&password=p&api_token=zz')).toBe('https://x.example/a?sig=••••&password=••••&api_token=••••')
    expect(maskUrl('https://x.example/a?page=2')).toBe('https://x.example/a?page=2')
    expect(maskUrl('https://x.example/a')).toBe('https://x.example/a')
  })
})
