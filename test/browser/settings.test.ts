import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { fakeLlm } from '../helpers/fake-llm'
import { FAKE_SECRET_KEY, FAKE_WEBHOOK_SECRET, fakeStripe } from '../helpers/fake-stripe'
import {
  apiToken,
  checkA11y,
  describeBrowser,
  launchBrowser,
  newAccount,
  openPage,
  PHONE_390,
  reachableAcross,
  registerApi,
  shoot,
  signUpUI,
  startVigil,
  type Vigil,
} from './helpers'

/** The address the operator configured: Stripe is told to send people back there. */
const SITE = 'http://vigil.example.test'

/**
 * The settings, pricing and operator pages in a real browser against dist/vigil in service mode,
 * with the real Stripe SDK talking to a local fake Stripe and an OpenAI-compatible fake model as
 * the instance's default connection. One operator walks through every page; a second browser
 * context joins through an invitation link.
 */
describeBrowser('portal: settings, billing and the operator', () => {
  let vigil: Vigil
  let browser: Browser
  const stripe = fakeStripe()
  const llm = fakeLlm('openai')
  const operator = newAccount('owner')
  const contexts: BrowserContext[] = []
  let page: Page
  let problems: string[]

  beforeAll(async () => {
    vigil = await startVigil({
      VIGIL_MODE: 'service',
      VIGIL_SITE_URL: SITE,
      STRIPE_SECRET_KEY: FAKE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET,
      STRIPE_API_BASE: stripe.apiBase,
      // the instance's own connection may be on this machine; tenants' URLs may not (docs/outbound.md)
      VIGIL_AI_PROVIDER: 'openai',
      VIGIL_AI_BASE_URL: llm.baseUrl,
      VIGIL_AI_MODEL: 'fake-gpt',
      VIGIL_OUTBOUND_ALLOW_PRIVATE: 'true',
    })
    browser = await launchBrowser()
    const opened = await openPage(browser, vigil, '/signup', {
      context: await browser.newContext({ baseURL: vigil.base, viewport: { width: 1280, height: 800 } }),
    })
    page = opened.page
    problems = opened.problems
    contexts.push(opened.context)
    await opened.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: vigil.base })
    await signUpUI(page, operator, { path: null })
  }, 180_000) // may rebuild dist/vigil first

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {})
    await browser?.close()
    await vigil?.stop()
    stripe.stop()
    llm.stop()
  }, 30_000)

  /** Every page is checked the same way once it shows what it is about. */
  async function look(name: string) {
    await checkA11y(page)
    await shoot(page, name)
    expect(problems).toEqual([])
  }

  test('API keys: create with scopes, the key shown once and copied, then revoked', async () => {
    await page.goto('/settings/keys')
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.getByLabel('Name').fill('prometheus')
    await page.getByRole('checkbox', { name: /metrics:read/ }).check()
    await page.getByRole('checkbox', { name: /recommendations:write/ }).uncheck()
    await page.getByLabel('Expires').selectOption('90')
    await page.getByRole('button', { name: 'Create key' }).last().click()

    const secret = page.locator('.secret-value')
    await secret.waitFor()
    const key = (await secret.textContent())!.trim()
    expect(key).toMatch(/^vk_[A-Za-z0-9]{46}$/)
    await page.getByText('It cannot be shown again').waitFor()
    await page.getByRole('button', { name: 'Copy api key' }).click()
    await page.getByText('Copied to the clipboard').waitFor()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key)

    // the key works for what it was given: Prometheus' scrape of this client's devices
    expect((await fetch(`${vigil.base}/metrics`, { headers: { 'x-api-key': key } })).status).toBe(200)
    const row = page.getByRole('row', { name: /prometheus/ })
    expect(await row.getByText('metrics:read').count()).toBe(1)
    expect(await row.getByText('recommendations:write').count()).toBe(0)
    await look('settings-keys')
    // on a phone the row's Revoke stays on screen (no sideways scroll to find it)
    await page.setViewportSize(PHONE_390)
    expect(await reachableAcross(page.getByRole('button', { name: 'Revoke prometheus' }))).toBe(true)
    await page.setViewportSize({ width: 1280, height: 800 })

    await row.getByRole('button', { name: 'Revoke prometheus' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('button', { name: 'Revoke key' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByText('Revoked keys (1)').waitFor()
    expect((await fetch(`${vigil.base}/metrics`, { headers: { 'x-api-key': key } })).status).toBe(401)
    // after a reload the secret is gone for good
    await page.reload()
    await page.getByText('Revoked keys (1)').waitFor()
    expect(await page.locator('.secret-value').count()).toBe(0)
  }, 90_000)

  test('members: invite, the invitee signs up through the link, the role changes, pending invitations are revoked', async () => {
    const invitee = newAccount('invitee')
    await page.goto('/settings/members')
    await page.getByLabel('Email').fill(invitee.email)
    await page.getByLabel('Role', { exact: true }).selectOption('admin')
    await page.getByRole('button', { name: 'Invite', exact: true }).click()
    const link = (await page.locator('.secret-value').textContent())!.trim()
    expect(link).toStartWith(`${vigil.base}/invite/vin_`)
    await page.getByRole('row', { name: new RegExp(invitee.email) }).waitFor()
    await look('settings-members')

    // a second person, in a browser of their own
    const other = await openPage(browser, vigil, new URL(link).pathname)
    contexts.push(other.context)
    await other.page.getByRole('heading', { name: 'Join an account' }).waitFor()
    await signUpUI(other.page, invitee, { path: null })
    expect(new URL(other.page.url()).pathname).toBe('/dashboard')
    expect(other.problems).toEqual([])

    await page.reload()
    const row = page.getByRole('row', { name: new RegExp(invitee.email) })
    await row.getByText('Active').waitFor()
    const patched = page.waitForResponse((r) => r.url().includes('/v1/clients/me/members/') && r.request().method() === 'PATCH')
    await row.getByLabel(`Role of ${invitee.email}`).selectOption('member')
    expect((await patched).status()).toBe(200)
    await page.reload()
    expect(
      await page
        .getByRole('row', { name: new RegExp(invitee.email) })
        .getByLabel(`Role of ${invitee.email}`)
        .inputValue(),
    ).toBe('member')

    // a pending invitation, then revoked
    await page.getByLabel('Email').fill('later@example.test')
    await page.getByRole('button', { name: 'Invite', exact: true }).click()
    await page.getByRole('button', { name: 'Revoke the invitation of later@example.test' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke invitation' }).click()
    await page.getByText('No pending invitations').waitFor()
  }, 90_000)

  test('pricing → Stripe checkout → back on the dashboard with the new plan', async () => {
    await page.goto('/pricing')
    await page.getByRole('button', { name: 'Choose Pro (monthly)' }).waitFor()
    await look('pricing')

    // Stripe's hosted page, played by the test: the subscription exists once it is "paid"
    await page.route('https://checkout.stripe.test/**', async (route) => {
      const session = stripe.calls('/v1/checkout/sessions', 'POST').at(-1)!.params
      stripe.setSubscription({ customer: session.customer!, metadata: { client_id: session['metadata[client_id]']!, plan_id: session['metadata[plan_id]']! } })
      const back = session.success_url!.replace('{CHECKOUT_SESSION_ID}', 'cs_test_done')
      await route.fulfill({ status: 303, headers: { location: vigil.base + back.slice(SITE.length) } })
    })
    await page.getByRole('button', { name: 'Choose Pro (monthly)' }).click()
    await page.waitForURL((u) => u.pathname === '/dashboard')
    const session = stripe.calls('/v1/checkout/sessions', 'POST').at(-1)!.params
    expect(session.success_url).toBe(`${SITE}/dashboard?checkout=success&session_id={CHECKOUT_SESSION_ID}`)
    expect(session.cancel_url).toBe(`${SITE}/pricing?checkout=canceled`)
    await page.getByText('Your plan is now Pro (monthly): up to 10 devices').waitFor()
    expect(new URL(page.url()).search).toBe('') // spent: a reload does not confirm again
    await shoot(page, 'dashboard-after-checkout')

    await page.goto('/settings/billing')
    await page.getByText('Pro (monthly)').first().waitFor()
    await page.getByRole('button', { name: 'Manage billing' }).waitFor()
    await look('settings-billing')

    // a canceled checkout lands on the pricing page, which says nothing was charged
    await page.goto('/pricing?checkout=canceled')
    await page.getByText('Checkout was canceled').waitFor()
    await page.getByText('Your plan').first().waitFor()
  }, 90_000)

  test('AI: a key is kept masked, and the connection test answers from the model', async () => {
    await page.goto('/settings/ai')
    await page.getByLabel('Provider').selectOption('openai')
    await page.getByLabel('Base URL').fill('https://llm.example.test/v1')
    await page.getByLabel('API key').fill('sk-test-0123456789wxyz')
    await page.getByRole('button', { name: 'Save connection' }).click()
    await page.getByText('••••wxyz').waitFor()
    await page.getByRole('button', { name: 'Replace key' }).waitFor()
    expect(await page.content()).not.toContain('sk-test-0123456789wxyz')

    // back to the instance's connection (the fake model), which the test reaches
    await page.getByLabel('Provider').selectOption('')
    await page.getByRole('button', { name: 'Save connection' }).click()
    await page.getByText('Saved.').waitFor()
    await page.getByRole('button', { name: 'Test connection' }).click()
    await page.getByText(/Connected: openai \(fake-gpt\) answered in/).waitFor()
    expect(llm.requests.length).toBe(1)
    await page.getByText('1 of 48 calls').waitFor()
    await look('settings-ai')
  }, 90_000)

  test('operator: figures, settings, a client limit set by hand, collector versions', async () => {
    const someone = newAccount('tenant')
    await registerApi(vigil, someone)
    // the hub's own answer; where it has no warning to give, one is put in, to see it shown
    let warning = ''
    await page.context().route('**/v1/admin/instance', async (route) => {
      const res = await route.fetch()
      const body = (await res.json()) as { site_url_warning?: string | null }
      body.site_url_warning ??= 'VIGIL_SITE_URL is plain http: links in mail and checkout go over an unencrypted connection'
      warning = body.site_url_warning
      await route.fulfill({ response: res, json: body })
    })
    await page.goto('/admin')
    await page.getByText('Open: anyone who reaches the site').waitFor()
    await page
      .locator('.banner')
      .filter({ hasText: `Site address: ${warning}` })
      .waitFor()
    const row = page.getByRole('row', { name: new RegExp(someone.email) })
    await row.getByRole('button', { name: /Edit limits/ }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Max devices').fill('5')
    await dialog.getByRole('button', { name: 'Save limits' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await row.getByText('0 / 5').waitFor()
    const token = await apiToken(vigil, someone)
    const me = (await (await fetch(`${vigil.base}/v1/clients/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { max_devices: number }
    expect(me.max_devices).toBe(5)
    await page.getByRole('heading', { name: 'Collector versions' }).waitFor()
    await look('admin')
  }, 90_000)

  // last: the device it registers would change what the tests before it count
  test('API keys: a key bound to one device is bound to the device chosen in the form', async () => {
    const token = await apiToken(vigil, operator)
    const scripts = await fetch(`${vigil.base}/v1/auth/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'register' }),
    })
    const registered = await fetch(`${vigil.base}/v1/clients/me/devices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ((await scripts.json()) as { api_key: string }).api_key },
      body: JSON.stringify({ hostname: 'db-1', os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: 'fp-db-1' }),
    })
    const deviceId = ((await registered.json()) as { device_id: string }).device_id
    await page.goto('/settings/keys')
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.getByLabel('Name').fill('db-1 collector')
    await page.getByLabel('Device', { exact: true }).selectOption({ label: 'db-1' })
    await page.getByRole('button', { name: 'Create key' }).last().click()
    await page.locator('.secret-value').waitFor()
    await page
      .getByRole('row', { name: /db-1 collector/ })
      .getByText('db-1', { exact: true })
      .waitFor()
    const keys = (await (await fetch(`${vigil.base}/v1/auth/api-keys`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      name: string
      device_id: string | null
    }[]
    expect(keys.find((k) => k.name === 'db-1 collector')?.device_id).toBe(deviceId)
    expect(problems).toEqual([])
  }, 90_000)
})

/** An own instance sells nothing: billing is neither in the settings tabs nor reachable as a page. */
describeBrowser('portal: an own instance has no billing', () => {
  let vigil: Vigil
  let browser: Browser

  beforeAll(async () => {
    vigil = await startVigil({ VIGIL_MODE: 'own' })
    browser = await launchBrowser()
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await vigil?.stop()
  }, 30_000)

  test('no Billing tab; /settings/billing and /pricing say there are no plans', async () => {
    const { page, context, problems } = await openPage(browser, vigil, '/signup')
    await signUpUI(page, newAccount('self'), { path: null })
    await page.goto('/settings/keys')
    const tabs = page.getByRole('navigation', { name: 'Settings sections' })
    await tabs.getByRole('link', { name: 'Members' }).waitFor()
    expect(await tabs.getByRole('link', { name: 'Billing' }).count()).toBe(0)
    await page.goto('/settings/billing')
    await page.getByText('No billing on this instance').waitFor()
    await page.goto('/pricing')
    await page.getByText('No plans on this instance').waitFor()
    await checkA11y(page)
    expect(problems).toEqual([])
    await context.close()
  }, 90_000)
})
