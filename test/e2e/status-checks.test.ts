import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { BADGE_COLOURS } from '../../src/modules/status-pages/status-pages.svg'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'

/**
 * A public status page showing a real check, against the executable: the hub checks an HTTP
 * server on 127.0.0.1 (VIGIL_OUTBOUND_ALLOW_LOCAL, as an operator with a service beside Vigil
 * sets it); the page shows it up, then down once the server stops, and its badge turns red.
 * Checks run every 10 s at the least: the test waits on the page's state, bounded, and makes
 * no time pass by sleeping.
 */
beforeAll(() => void ensureBinary(), 120_000)

const stops: (() => void)[] = []
afterAll(() => {
  for (const stop of stops.splice(0)) stop()
})

/** Asks until `probe` answers something, or fails after `ms`. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 45_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const got = await probe()
    if (got !== undefined) return got
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(250) // a poll interval, not a wait for time to pass: the deadline bounds it
  }
}

test('a checked local server on a public page: up, then down and a red badge once it stops, and nothing private unless chosen', async () => {
  const cwd = tempDir('vigil-status-checks-')
  const server = await startBinary({
    cwd,
    env: {
      VIGIL_DATA_DIR: join(cwd, 'data'),
      VIGIL_OUTBOUND_ALLOW_LOCAL: 'true',
      VIGIL_RATE_LIMIT_FREE: '1000000',
      VIGIL_RATE_LIMIT_ANONYMOUS: '1000000',
    },
  })
  stops.push(() => server.proc.kill())
  const site = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('shop is open') })
  let siteUp = true
  stops.push(() => siteUp && site.stop(true))

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(server.base + path, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    let json: any = null
    try {
      json = JSON.parse(text)
    } catch {}
    return { status: res.status, text, body: json }
  }
  const creds = { email: 'shop@example.test', password: 'correct horse battery' }
  expect((await call('POST', '/v1/auth/register', creds)).status).toBe(201)
  const auth = { authorization: `Bearer ${(await call('POST', '/v1/auth/login', creds)).body.access_token}` }

  // the team named the check after its target, as people do: the page must not show that name unless asked
  const url = `http://127.0.0.1:${site.port}/health`
  const check = await call(
    'POST',
    '/v1/checks',
    { name: url, kind: 'http', settings: { url, keyword: 'open' }, interval_s: 10, timeout_ms: 2000, down_after: 1, up_after: 1 },
    auth,
  )
  expect(check.status).toBe(201)
  const page = await call(
    'POST',
    '/v1/status-pages',
    { slug: 'shop', title: 'Shop', groups: [{ name: 'Web', items: [{ type: 'check', id: check.body.id, key: 'web' }] }] },
    auth,
  )
  expect(page.status).toBe(201)

  const item = async () => (await call('GET', '/status/shop.json')).body.groups[0].items[0] as { name: string; state: string }
  const up = await until('the check to show up', async () => ((await item()).state === 'up' ? item() : undefined))
  expect(up.name).toBe('Service 1')
  const green = await call('GET', '/status/shop/badge/web/status.svg')
  expect(green.text).toContain('<title>Service 1: up</title>')
  expect(green.text).toContain(BADGE_COLOURS.green)
  // today's figure is a fraction of the day, the 90 days' a percentage: 100.00%, never 10000.00%
  const today = (await call('GET', '/status/shop.json')).body.groups[0].items[0]
  expect(today.days.at(-1).uptime).toBe(1)
  expect(today.uptime_90d).toBe(100)
  expect((await call('GET', '/status/shop')).text).toContain('Service 1: 100.00% uptime over the last 90 days')
  expect((await call('GET', '/status/shop/badge/web/uptime.svg')).text).toContain('>100.00%<')

  site.stop(true)
  siteUp = false
  await until('the check to show down', async () => ((await item()).state === 'down' ? true : undefined))
  // the check's own answer holds the error; the public ones never do
  const detail = await until('the failure to be recorded', async () => {
    const c = await call('GET', `/v1/checks/${check.body.id}`, undefined, auth)
    return c.body.last_error ? (c.body.last_error as string) : undefined
  })
  const html = await call('GET', '/status/shop')
  const json = await call('GET', '/status/shop.json')
  const red = await call('GET', '/status/shop/badge/web/status.svg')
  expect(html.text).toContain('Major outage') // its only item is down
  expect(json.body.status.state).toBe('major_outage')
  expect(red.text).toContain('<title>Service 1: down</title>')
  expect(red.text).toContain(BADGE_COLOURS.red)
  expect(red.text).not.toContain(BADGE_COLOURS.green)
  for (const text of [html.text, json.text, red.text]) {
    for (const secret of [url, '127.0.0.1', '/health', detail, check.body.id, 'chk_', 'ECONNREFUSED']) {
      expect(text).not.toContain(secret)
    }
  }

  // the team chooses to show the check's own name: then, and only then, the URL it carries is public
  const shown = await call(
    'PATCH',
    `/v1/status-pages/${page.body.id}`,
    { groups: [{ name: 'Web', items: [{ type: 'check', id: check.body.id, key: 'web', show_name: true }] }] },
    auth,
  )
  expect(shown.status).toBe(200)
  expect((await item()).name).toBe(url)
  const named = await call('GET', '/status/shop')
  expect(named.text).toContain(url)
  expect(named.text).not.toContain(detail) // the error never
}, 120_000)
