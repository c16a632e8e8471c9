import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import {
  apiToken,
  checkA11y,
  DESKTOP,
  describeBrowser,
  launchBrowser,
  newAccount,
  openPage,
  PHONE_390,
  reachableAcross,
  registerApi,
  shoot,
  signInUI,
  startVigil,
  type Vigil,
} from './helpers'

/** a browser step takes seconds, not the default 5 */
const STEP = 90_000

/**
 * The alerting pages against dist/vigil: a rule made through its form trips on metrics posted
 * through the API and the alert appears live on /alerts and in the top bar's count, is
 * acknowledged with a note; a channel is made from the kind catalogue and tested from the page;
 * a silence; a webhook endpoint's secret shown once. Every page is checked with axe and
 * photographed (desktop and phone, light and dark).
 */
describeBrowser('portal: alerts, channels and webhooks', () => {
  let vigil: Vigil
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let problems: string[]
  let token: string
  let receiver: ReturnType<typeof Bun.serve>
  const received: { path: string; body: string; authorization: string | null }[] = []
  const operator = newAccount('alerts')
  let deviceId = ''
  let keyHeaders: Record<string, string> = {}

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${token}` }) => {
    const res = await fetch(`${vigil.base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json().catch(() => null)) as any }
  }
  const postSample = (cpu: number) =>
    api('POST', '/v1/metrics/batch', { hardware: { cpu_percent: cpu, ram_percent: 40, disk_partitions: [{ mountpoint: '/', percent: 50 }] } }, keyHeaders)

  beforeAll(async () => {
    // a local receiver for the channel's test (loopback is this host: whether it may be reached is the outbound policy's call)
    receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        received.push({ path: new URL(req.url).pathname, body: await req.text(), authorization: req.headers.get('authorization') })
        return new Response('ok')
      },
    })
    vigil = await startVigil({ VIGIL_OUTBOUND_ALLOW_LOCAL: 'true', VIGIL_OUTBOUND_ALLOW_PRIVATE: 'true' })
    browser = await launchBrowser()
    await registerApi(vigil, operator)
    token = await apiToken(vigil, operator)
    const key = await api('POST', '/v1/auth/api-keys', { name: 'web-1' })
    keyHeaders = { 'x-api-key': key.body.api_key }
    const device = await api(
      'POST',
      '/v1/clients/me/devices',
      { hostname: 'web-1', os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: 'fp-web-1' },
      keyHeaders,
    )
    deviceId = device.body.device_id
    keyHeaders['x-device-id'] = deviceId
    expect((await postSample(20)).status).toBe(201)
    ;({ page, context, problems } = await openPage(browser, vigil, '/signin'))
    await signInUI(page, operator, { goto: false })
  }, 240_000) // may rebuild dist/vigil first
  afterAll(async () => {
    await context?.close().catch(() => {})
    await browser?.close()
    await vigil?.stop()
    receiver?.stop(true)
  }, 60_000)

  test(
    'a rule made through its form fires on posted metrics: the alert appears live with the count in the top bar, and is acknowledged with a note',
    async () => {
      await page.goto('/alerts/rules/new')
      await page.getByLabel('Name', { exact: true }).fill('CPU busy (test)')
      await page.getByLabel('Metric').selectOption('cpu_percent')
      await page.getByLabel('Threshold', { exact: true }).fill('80')
      await page.getByLabel('For at least', { exact: true }).fill('0')
      await page.getByLabel('Severity').selectOption('critical')
      await checkA11y(page)
      await shoot(page, 'alert-rule-new')
      await page.getByRole('button', { name: 'Create rule' }).click()
      await page.waitForURL((u) => u.pathname === '/alerts/rules')
      const row = page.getByRole('row').filter({ hasText: 'CPU busy (test)' })
      await row.getByText('CPU used above 80 %').waitFor()
      // the defaults every account gets are there, marked
      await page.getByRole('row').filter({ hasText: 'Device offline' }).getByText('Default').waitFor()
      await checkA11y(page)
      await shoot(page, 'alert-rules')
      // on a phone each rule's actions stay on screen, and the page is still a table to a screen reader
      await page.setViewportSize(PHONE_390)
      for (const name of ['Disable CPU busy (test)', 'Edit CPU busy (test)', 'Delete CPU busy (test)']) {
        expect(
          await reachableAcross(
            page
              .getByRole('row')
              .filter({ hasText: 'CPU busy (test)' })
              .getByRole(name.startsWith('Edit') ? 'link' : 'button', { name }),
          ),
        ).toBe(true)
      }
      await checkA11y(page)
      await page.setViewportSize(DESKTOP)

      await page.goto('/alerts')
      await page.getByText('All clear').waitFor()
      expect(await page.locator('.topbar .nav-link .count').count()).toBe(0)
      // the sample crosses the threshold: the page hears it on the live stream, no reload
      expect((await postSample(97)).status).toBe(201)
      const item = page.locator('.alert-item').filter({ hasText: 'CPU busy (test)' })
      await item.waitFor({ timeout: 15_000 })
      expect(await item.textContent()).toContain('97 %')
      await page.locator('.topbar .nav-link .count').filter({ hasText: '1' }).waitFor({ timeout: 15_000 })
      await checkA11y(page)
      await shoot(page, 'alerts-firing')

      await item.getByRole('button', { name: 'Acknowledge CPU busy (test) on web-1' }).click()
      await item.getByLabel('Note').fill('On it: a runaway job')
      await item.getByRole('button', { name: 'Acknowledge', exact: true }).click()
      await item.getByText(`by ${operator.email}`).waitFor()
      await item.getByText('On it: a runaway job').waitFor()
      const alerts = await api('GET', '/v1/alerts?state=firing')
      const firing = alerts.body.items[0] as { fired_at: string; started_at: string }
      expect(alerts.body.items[0].acknowledged).toMatchObject({ by: operator.email, note: 'On it: a runaway job' })

      // its own page: the timeline and what it kept
      await item.getByRole('link', { name: 'CPU busy (test)' }).click()
      await page.getByRole('heading', { name: 'CPU busy (test) on web-1' }).waitFor()
      await page.locator('.timeline').getByText('Acknowledged').waitFor()
      await page.getByText('The hardware sample that crossed').waitFor()
      // each time is labelled as what it is: the fired time as "Firing since", the pending one as "Pending from"
      const fact = (label: string) =>
        page
          .locator('dl.facts dt', { hasText: new RegExp(`^${label}$`) })
          .locator('xpath=following-sibling::dd[1]')
          .locator('time')
      expect(await fact('Firing since').getAttribute('datetime')).toBe(firing.fired_at)
      expect(await fact('Pending from').getAttribute('datetime')).toBe(firing.started_at)
      expect(await page.locator('dl.facts dt', { hasText: /^Started$/ }).count()).toBe(0)
      await checkA11y(page)
      await shoot(page, 'alert-detail')

      // it resolves: the open list empties and the count goes, live again
      await page.goto('/alerts')
      await item.waitFor()
      expect((await postSample(10)).status).toBe(201)
      await page.getByText('All clear').waitFor({ timeout: 15_000 })
      await page.locator('.topbar .nav-link .count').waitFor({ state: 'detached', timeout: 15_000 })
      // the history keeps it, filtered by the URL
      await page.goto(`/alerts?state=resolved&device=${deviceId}`)
      const historyRow = page.getByRole('row').filter({ hasText: 'CPU busy (test)' })
      await historyRow.getByText('Resolved').waitFor()
      // the history names the same moment the same way: it fired then
      expect(await historyRow.locator('.alert-since').textContent()).toStartWith('Fired ')
      expect(await historyRow.locator('.alert-since time').getAttribute('datetime')).toBe(firing.fired_at)
      await page.reload()
      expect(await page.getByLabel('State').inputValue()).toBe('resolved')
      // on a phone the history's rows keep their links on screen
      await page.setViewportSize(PHONE_390)
      expect(await reachableAcross(historyRow.getByRole('link', { name: 'CPU busy (test)' }))).toBe(true)
      expect(await reachableAcross(historyRow.getByRole('link', { name: 'web-1' }))).toBe(true)
      await page.setViewportSize(DESKTOP)
      await checkA11y(page)
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'a channel from the kind catalogue: an address the server may never call is refused at its field; send test reports the outcome',
    async () => {
      await page.goto('/settings/channels')
      await page.getByText('No channels yet').waitFor()
      await checkA11y(page)
      await page.getByRole('button', { name: 'Add channel' }).click()
      await page.getByLabel('Kind').selectOption('webhook')
      await page.getByLabel('Name', { exact: true }).fill('Receiver')
      await page.getByLabel('URL').fill('http://169.254.169.254/hook')
      await page.getByLabel(/^Authorization header/).fill('Bearer s3cret-token')
      await page.getByRole('button', { name: 'Create channel' }).click()
      await page.locator('#field-config-url-error').getByText('cloud-metadata').waitFor()
      expect(await page.getByLabel('URL').getAttribute('aria-invalid')).toBe('true')

      // a name, not an address: checked when it is called (vm is this host, 127.0.0.1, which VIGIL_OUTBOUND_ALLOW_LOCAL lets through)
      await page.getByLabel('URL').fill(`http://vm:${receiver.port}/hook`)
      await page.getByRole('button', { name: 'Create channel' }).click()
      const row = page.getByRole('row').filter({ hasText: 'Receiver' })
      await row.waitFor()
      // the secret is never shown again, only its last characters
      expect(await row.textContent()).not.toContain('s3cret')
      await row.getByRole('button', { name: 'Edit Receiver' }).click()
      expect(await page.getByLabel(/^Authorization header/).inputValue()).toBe('')
      expect(await page.getByLabel(/^Authorization header/).getAttribute('placeholder')).toContain('oken')
      await checkA11y(page)
      await shoot(page, 'channel-edit')
      await page.getByRole('button', { name: 'Cancel' }).click()

      await row.getByRole('button', { name: 'Send test to Receiver' }).click()
      const outcome = page.locator('.banner').filter({ hasText: 'Test to Receiver' })
      await outcome.waitFor({ timeout: 30_000 })
      // the page says what happened, and it is what happened at the receiver
      expect(await outcome.textContent()).toContain('Delivered (HTTP 200)')
      const hook = received.filter((r) => r.path === '/hook')
      expect(hook).toHaveLength(1)
      expect(JSON.parse(hook[0]!.body)).toMatchObject({ type: 'vigil.notification', event: 'test' })
      // the secret typed once is the one sent
      expect(hook[0]!.authorization).toBe('Bearer s3cret-token')
      await row.getByRole('button', { name: 'Delivery log of Receiver' }).click()
      await page.locator('.delivery').filter({ hasText: 'Test notification' }).waitFor()
      await checkA11y(page)
      await shoot(page, 'channels')

      // Shoutrrr: import one, export it back
      await page.getByRole('button', { name: 'Import Shoutrrr URL' }).click()
      await page.getByRole('textbox', { name: 'Shoutrrr URL' }).fill('ntfy://ntfy.sh/vigil-browser-test')
      await page.getByRole('button', { name: 'Import', exact: true }).click()
      const ntfy = page.getByRole('row').filter({ hasText: 'ntfy.sh/vigil-browser-test' })
      await ntfy.waitFor()
      await ntfy.getByRole('button', { name: /^Export / }).click()
      await page.locator('.secret-value').filter({ hasText: 'ntfy://' }).waitFor()
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'the rule form marks the device list when the server refuses the scope’s device (a 422 on scope.value)',
    async () => {
      const doomed = await api(
        'POST',
        '/v1/clients/me/devices',
        { hostname: 'doomed-1', os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: 'fp-doomed-1' },
        keyHeaders,
      )
      const doomedId = doomed.body.device_id as string
      await page.goto('/alerts/rules/new')
      await page.getByLabel('Name', { exact: true }).fill('Doomed CPU')
      await page.getByLabel('Threshold', { exact: true }).fill('95')
      await page.getByLabel('One device').check()
      await page.getByLabel('Device', { exact: true }).selectOption(doomedId)
      // deleted while the form is open: the server refuses the device it names
      expect((await api('DELETE', `/v1/clients/me/devices/${doomedId}`)).status).toBe(204)
      await page.getByRole('button', { name: 'Create rule' }).click()
      await page.locator('#field-scope_device-error').getByText('No such device in this account').waitFor()
      expect(await page.getByLabel('Device', { exact: true }).getAttribute('aria-invalid')).toBe('true')
      await page.getByText('Check the marked fields below.').waitFor()
      await checkA11y(page)
      await shoot(page, 'alert-rule-scope-error')
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'a rule whose one device was deleted says so on the rules list and on its own page',
    async () => {
      const gone = await api(
        'POST',
        '/v1/clients/me/devices',
        { hostname: 'gone-1', os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: 'fp-gone-1' },
        keyHeaders,
      )
      const goneId = gone.body.device_id as string
      const rule = await api('POST', '/v1/alerts/rules', {
        name: 'Gone box CPU',
        metric: 'cpu_percent',
        operator: '>',
        threshold: 90,
        scope: { type: 'device', value: goneId },
      })
      expect(rule.status).toBe(201)
      expect((await api('DELETE', `/v1/clients/me/devices/${goneId}`)).status).toBe(204)
      // the hub's own answer; a hub that does not send the field yet is told what it would say
      await context.route('**/v1/alerts/rules**', async (route) => {
        const res = await route.fetch()
        const body = (await res.json()) as any
        for (const r of body.items ?? [body]) r.scope_device_missing ??= r.scope?.type === 'device' && r.scope.value === goneId
        await route.fulfill({ response: res, json: body })
      })
      await page.goto('/alerts/rules')
      const row = page.getByRole('row').filter({ hasText: 'Gone box CPU' })
      await row.getByText('Device deleted').waitFor()
      // the others are not marked
      expect(await page.getByRole('row').filter({ hasText: 'CPU busy (test)' }).getByText('Device deleted').count()).toBe(0)
      await checkA11y(page)
      await shoot(page, 'alert-rules-device-deleted')
      await row.getByRole('link', { name: 'Gone box CPU', exact: true }).click()
      await page.getByText('The device this rule watches was deleted').waitFor()
      await context.unroute('**/v1/alerts/rules**')
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'a silence, and the webhook endpoint whose signing secret is shown once',
    async () => {
      await page.goto('/alerts/silences')
      await page.getByText('No silences').waitFor()
      await page.getByRole('button', { name: 'New silence' }).click()
      await page.getByLabel('Why').fill('Disk swap on web-1')
      await page.getByLabel('One device').check()
      await page.getByLabel('Device', { exact: true }).selectOption(deviceId)
      await checkA11y(page)
      await page.getByRole('button', { name: 'Create silence' }).click()
      const row = page.getByRole('row').filter({ hasText: 'Disk swap on web-1' })
      await row.getByText('Silencing').waitFor()
      expect(await row.textContent()).toContain('web-1')
      await shoot(page, 'silences')
      await row.getByRole('button', { name: 'End now: Disk swap on web-1' }).click()
      await row.getByText('Not now').waitFor()

      await page.goto('/settings/webhooks')
      await page.getByText('No webhooks yet').waitFor()
      await checkA11y(page)
      await page.getByRole('button', { name: 'Add endpoint' }).click()
      await page.getByLabel('URL', { exact: true }).fill(`http://vm:${receiver.port}/webhook`)
      await page.getByRole('button', { name: 'Create endpoint' }).click()
      const secret = page.locator('.secret-value')
      await secret.waitFor()
      const value = (await secret.textContent()) ?? ''
      expect(value).toMatch(/^whsec_/)
      await checkA11y(page)
      await shoot(page, 'webhooks-secret')
      // shown once: a reload shows its last characters only
      await page.reload()
      const endpoint = page.getByRole('row').filter({ hasText: '/webhook' })
      await endpoint.waitFor()
      expect(await page.locator('.secret-value').count()).toBe(0)
      expect(await endpoint.textContent()).toContain(`••••${value.slice(-4)}`)
      await endpoint.getByRole('button', { name: /^Send test event/ }).click()
      // the test event arrives signed, and its delivery shows as delivered
      await page.locator('.delivery').filter({ hasText: 'webhook.test' }).getByText('Delivered').waitFor({ timeout: 30_000 })
      expect(received.some((r) => r.path === '/webhook' && r.body.includes('webhook.test'))).toBe(true)
      await checkA11y(page)
      await shoot(page, 'webhooks')
      expect(problems).toEqual([])
    },
    STEP,
  )
})
