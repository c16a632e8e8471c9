import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import {
  checkA11y,
  describeBrowser,
  launchBrowser,
  newAccount,
  openPage,
  PHONE,
  DESKTOP,
  registerApi,
  shoot,
  signInUI,
  startVigil,
  type Vigil,
} from './helpers'

// a page, a server and a scheduler in one test: more than bun's 5 s default
setDefaultTimeout(90_000)

/** A check's own page (the form at /checks/new matches the same pattern). */
const onCheckPage = (u: URL) => /^\/checks\/[^/]+$/.test(u.pathname) && u.pathname !== '/checks/new'

/** The hub runs a new check within one interval (10 s here) and the page reads again every 10 s. */
const STATE_WAIT = 45_000

/**
 * The checks pages end to end against dist/vigil: a check of a local HTTP server started here,
 * made through the form (its 422 on the field, Test now's raw result), seen up, then down on its
 * page, the list and the dashboard once the server stops; a heartbeat's secret URL shown once and
 * rotated; axe and screenshots of each page on a phone and a desktop, light and dark.
 */
describeBrowser('portal: checks', () => {
  let vigil: Vigil
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let problems: string[]
  let target: ReturnType<typeof Bun.serve> | null = null
  let checkPath = ''
  const account = newAccount('checks')

  beforeAll(async () => {
    target = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('all good') })
    // the hub may call 127.0.0.1 (the outbound policy refuses loopback by default)
    vigil = await startVigil({ VIGIL_SIGNUP: 'open', VIGIL_OUTBOUND_ALLOW_LOCAL: 'true' })
    browser = await launchBrowser()
    await registerApi(vigil, account)
    ;({ page, context, problems } = await openPage(browser, vigil, '/signin'))
    await signInUI(page, account, { goto: false })
  }, 120_000)
  afterAll(async () => {
    target?.stop(true)
    await context?.close()
    await browser?.close()
    await vigil?.stop()
  })

  test('an account without checks is told what the kinds are and how to add one', async () => {
    await page.getByRole('link', { name: 'Checks', exact: true }).first().click()
    await page.waitForURL('**/checks')
    await page.getByText('No checks yet').waitFor()
    expect(await page.locator('.empty').textContent()).toContain('Heartbeat')
    await checkA11y(page)
    await shoot(page, 'checks-empty')
  })

  test('the form marks the field the API refused, Test now shows the raw result, and the check is created', async () => {
    const url = `http://127.0.0.1:${target!.port}/health`
    await page.getByRole('link', { name: 'Add a check' }).first().click()
    await page.waitForURL('**/checks/new')
    await page.getByLabel('Name', { exact: true }).fill('Local site')
    await page.getByLabel('URL', { exact: true }).fill(url)
    await page.getByLabel('Every (seconds)').fill('5')
    await page.getByLabel('Down after').fill('1')
    await page.getByLabel('Up after').fill('1')

    await page.getByRole('button', { name: 'Test now' }).click()
    const result = page.getByRole('region', { name: 'Test result' })
    await result.waitFor()
    expect(await result.locator('pre').textContent()).toContain('"status_code": 200')
    expect(await result.locator('.badge').textContent()).toBe('Up')

    await page.getByRole('button', { name: 'Create check' }).click()
    const interval = page.getByLabel('Every (seconds)')
    await page.locator('#field-interval_s[aria-invalid="true"]').waitFor()
    expect(await page.locator('#field-interval_s-error').textContent()).toMatch(/10/)
    await checkA11y(page)
    await shoot(page, 'checks-form-invalid')

    await interval.fill('10')
    await page.getByRole('button', { name: 'Create check' }).click()
    await page.waitForURL(onCheckPage)
    checkPath = new URL(page.url()).pathname
    await page.getByRole('heading', { name: 'Local site' }).waitFor()
    await page.locator('.page-subtitle .badge', { hasText: 'Up' }).waitFor({ timeout: STATE_WAIT })
    expect(problems).toEqual([])
  })

  test('the check page shows uptime, the chart, where it runs and recent results; a reload keeps the page and the range', async () => {
    await page.getByRole('button', { name: '7d' }).click()
    await page.waitForURL(/range=7d/)
    await page.reload()
    await page.getByRole('heading', { name: 'Local site' }).waitFor()
    expect(await page.getByRole('button', { name: '7d' }).getAttribute('aria-pressed')).toBe('true')
    await page.getByRole('heading', { name: 'Where it runs' }).waitFor()
    expect(await page.locator('table').filter({ hasText: 'Hub' }).first().textContent()).toContain('Up')
    await page.getByRole('heading', { name: 'Recent results' }).waitFor()
    await page.locator('.vg-chart').waitFor()
    await checkA11y(page)
    await page.setViewportSize(PHONE)
    await checkA11y(page)
    await page.setViewportSize(DESKTOP)
    await shoot(page, 'checks-page-up')
  })

  test('when the server stops, the check goes down on its page, first on the list, and on the dashboard', async () => {
    target!.stop(true)
    target = null
    await page.locator('.page-subtitle .badge', { hasText: 'Down' }).waitFor({ timeout: STATE_WAIT })
    await page.getByRole('heading', { name: 'Incidents' }).waitFor()
    await page.locator('table').filter({ hasText: 'Ongoing' }).waitFor({ timeout: STATE_WAIT })
    await shoot(page, 'checks-page-down')

    await page.goto('/checks')
    const first = page.locator('tbody tr').first()
    await first.waitFor()
    expect(await first.textContent()).toContain('Local site')
    expect(await first.locator('.badge').textContent()).toBe('Down')
    expect(await page.locator('.page-subtitle').textContent()).toContain('1 down')
    await checkA11y(page)
    await page.setViewportSize(PHONE)
    await checkA11y(page)
    await page.setViewportSize(DESKTOP)
    await shoot(page, 'checks-list-down')

    await page.goto('/dashboard')
    await page.getByRole('link', { name: '1 check down' }).waitFor()
  })

  test('a heartbeat shows its secret URL once, with curl and cron lines; rotating it stops the old URL', async () => {
    await page.goto('/checks/new?kind=heartbeat')
    await page.getByLabel('Name', { exact: true }).fill('Nightly backup')
    await page.getByLabel('Period (seconds)').fill('86400')
    await page.getByRole('button', { name: 'Create check' }).click()
    await page.waitForURL(onCheckPage)
    const secret = page.locator('.secret-value')
    await secret.waitFor()
    const url = (await secret.textContent())!
    expect(url).toMatch(/\/hb\/[^<>]+$/)
    expect(await page.locator('.vg-command').first().textContent()).toContain(url)
    await checkA11y(page)
    await shoot(page, 'checks-heartbeat-secret')
    expect((await fetch(url)).status).toBe(200)
    await page.locator('.page-subtitle .badge', { hasText: 'Up' }).waitFor({ timeout: STATE_WAIT })

    await page.reload()
    await page.getByRole('heading', { name: 'Nightly backup' }).waitFor()
    expect(await page.locator('.secret-value').count()).toBe(0)
    expect(await page.locator('.ck-page').textContent()).not.toContain(url)

    await page.getByRole('button', { name: 'Rotate token' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate token' }).click()
    await secret.waitFor()
    const rotated = (await secret.textContent())!
    expect(rotated).not.toBe(url)
    expect((await fetch(url)).status).toBe(404)
    expect((await fetch(rotated)).status).toBe(200)
  })

  test('a status page is made in the editor with a group holding the check, gets a note, and shows both publicly', async () => {
    await page.goto('/checks')
    await page.getByRole('link', { name: 'Status pages' }).click()
    await page.waitForURL('**/checks/status-pages')
    await page.getByText('No status pages yet').waitFor()
    await page.getByRole('button', { name: 'New status page' }).first().click()
    await page.getByLabel('Title').fill('Acme Status')
    expect(await page.getByLabel('Address', { exact: true }).inputValue()).toBe('acme-status')
    await page.getByRole('button', { name: 'Add a group' }).click()
    await page.getByLabel('Group name').fill('Web')
    await page.getByLabel('Add a check or device').selectOption({ label: 'Check: Local site' })
    await page.getByLabel('Public name').fill('Website')
    await page.getByLabel('Custom domain').fill('not a domain')
    await page.getByRole('button', { name: 'Create the page' }).click()
    await page.locator('#field-custom_domain[aria-invalid="true"]').waitFor()
    await page.getByLabel('Custom domain').fill('')
    await page.getByRole('button', { name: 'Create the page' }).click()
    await page.waitForURL(/\/checks\/status-pages\/[^/]+$/)
    await page.getByRole('heading', { name: 'Acme Status' }).waitFor()

    await page.locator('#note-title').fill('Website is slow')
    await page.locator('#note-body').fill('We are looking into it.')
    await page.getByRole('button', { name: 'Post the note' }).click()
    await page.locator('.ck-note', { hasText: 'Website is slow' }).waitFor()
    await checkA11y(page)
    await shoot(page, 'checks-status-page-editor')

    const html = await (await fetch(`${vigil.base}/status/acme-status`)).text()
    expect(html).toContain('Website')
    expect(html).toContain('Website is slow')
    expect(html).not.toContain('127.0.0.1')
  })

  test('pause, edit and delete from the check page', async () => {
    await page.goto(checkPath)
    await page.getByRole('button', { name: 'Pause' }).click()
    await page.locator('.page-subtitle .badge', { hasText: 'Paused' }).waitFor()
    await page.getByRole('link', { name: 'Edit' }).click()
    await page.waitForURL('**/edit')
    await page.getByLabel('Name', { exact: true }).fill('Local site (old)')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await page.getByRole('heading', { name: 'Local site (old)' }).waitFor()
    await page.setViewportSize(PHONE)
    await page.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete check' }).click()
    await page.waitForURL('**/checks')
    await page.setViewportSize(DESKTOP)
    expect(await page.locator('tbody').textContent()).not.toContain('Local site')
    expect(problems).toEqual([])
  })
})
