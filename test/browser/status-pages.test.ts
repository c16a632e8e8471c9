import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { manualClock } from '../../src/lib/clock'
import { testApp } from '../helpers/app'
import { insertDevice } from '../helpers/devices'
import { createTenant } from '../helpers/fixtures'
import { portOf, fakeChecksPort } from '../helpers/status-checks'
import { checkA11y, DESKTOP, describeBrowser, launchBrowser, openPage, PHONE, reachableAcross, shoot, type Vigil } from './helpers'

/**
 * The public status page in Chromium: phone and desktop, light and dark, axe clean, no request
 * to anywhere but its own origin (none at all beyond the page and the icon), readable without
 * script. Served in-process so checks can come from the fake checks port (the checks module is
 * not on this branch); the renderer is the one dist/vigil serves (test/e2e/status-pages.test.ts).
 */
let browser: Browser
let server: ReturnType<typeof Bun.serve> | null = null
let vigil: Vigil

const DAY = 86400_000

beforeAll(async () => {
  const clock = manualClock(Date.parse('2026-11-27T06:00:00Z'))
  let port: ReturnType<typeof fakeChecksPort> | undefined
  const t = testApp({
    clock,
    config: { rateLimits: { free: 100000, pro: 100000, enterprise: 100000, anonymous: 100000 } },
    statusChecks: portOf(() => port!),
  })
  const a = await createTenant(t)
  const days = Array.from({ length: 90 }, (_, i) => (i === 40 ? 0.97 : i === 70 ? 0.995 : i === 85 ? null : 1))
  port = fakeChecksPort(
    a.clientId,
    [
      { id: 'chk_web', name: 'Website', kind: 'http', state: 'up', last_checked_at: new Date(clock.now()).toISOString(), response_ms: 84, days },
      { id: 'chk_api', name: 'API', kind: 'http', state: 'degraded', last_checked_at: new Date(clock.now()).toISOString(), response_ms: 950, days },
      { id: 'chk_mail', name: 'Mail', kind: 'tcp', state: 'down', last_checked_at: new Date(clock.now()).toISOString(), response_ms: null, days },
    ],
    clock.now,
  )
  const nas = insertDevice(t, a.clientId, { hostname: 'nas' })
  const backup = insertDevice(t, a.clientId, { hostname: 'backup', lastSeenAt: clock.now() - 2 * DAY })
  const page = await t.request('POST', '/v1/status-pages', {
    headers: a.userHeaders,
    body: {
      slug: 'acme',
      title: 'Acme Cloud',
      description: 'Live status of the services we run for our customers.',
      groups: [
        {
          name: 'Public services',
          items: [
            { type: 'check', id: 'chk_web', show_name: true, show_response_times: true },
            { type: 'check', id: 'chk_api', show_name: true, show_response_times: true },
            { type: 'check', id: 'chk_mail', label: 'E-mail delivery' },
          ],
        },
        {
          name: 'Servers',
          items: [
            { type: 'device', id: nas, label: 'File storage' },
            { type: 'device', id: backup, label: 'Backups' },
          ],
        },
      ],
    },
  })
  const post = (body: Record<string, unknown>) => t.request('POST', `/v1/status-pages/${page.body.id}/notes`, { headers: a.userHeaders, body })
  await post({ kind: 'incident', title: 'E-mail is delayed', body: 'Outgoing mail is queued.\nWe are on it.', state: 'identified' })
  await post({
    kind: 'maintenance',
    title: 'Storage upgrade',
    body: 'Planned work on the file servers.',
    starts_at: '2026-11-28T01:00:00Z',
    ends_at: '2026-11-28T02:00:00Z',
  })
  await post({ kind: 'incident', title: 'Website slow', body: 'Resolved after a restart.', state: 'resolved' })
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => t.handle(req) })
  vigil = { base: `http://127.0.0.1:${server.port}`, dataDir: '', logs: () => '', stop: async () => {} }
  browser = await launchBrowser()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.stop(true)
})

describeBrowser('public status page', () => {
  test('desktop and phone, light and dark: axe clean, nothing from another origin, no CSP complaint', async () => {
    const { page, context, problems } = await openPage(browser, vigil, '/status/acme')
    const elsewhere: string[] = []
    page.on('request', (r) => {
      if (!r.url().startsWith(vigil.base) && !r.url().startsWith('data:')) elsewhere.push(r.url())
    })
    await page.reload()
    await expect(page.getByRole('heading', { level: 1, name: 'Acme Cloud' }).isVisible()).resolves.toBe(true)
    await expect(page.getByText('Partial outage').isVisible()).resolves.toBe(true)
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport)
      await checkA11y(page)
      // nothing needs a sideways scroll on a phone: the bars and charts shrink to the width
      const bars = page.locator('svg.bars').first()
      expect(await reachableAcross(bars)).toBe(true)
      expect(await reachableAcross(page.locator('svg.chart').first())).toBe(true)
      const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth)
      expect(overflow).toBeLessThanOrEqual(0)
    }
    await shoot(page, 'status-page')
    expect(elsewhere).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  })

  test("each day's bar says its date and uptime on hover; the chart and bars are named for screen readers", async () => {
    const { page, context } = await openPage(browser, vigil, '/status/acme')
    const titles = await page.locator('svg.bars').first().locator('rect title').allTextContents()
    expect(titles).toHaveLength(90)
    expect(titles[40]).toMatch(/^2026-\d\d-\d\d: 97\.00% up, down 43 min$/)
    expect(titles[85]).toMatch(/: no data$/)
    await expect(page.getByRole('img', { name: /^Website: 99\.\d\d% uptime over the last 90 days/ }).count()).resolves.toBe(1)
    await expect(page.getByRole('img', { name: /^Website: response time over the last 24 hours, median \d+ ms/ }).count()).resolves.toBe(1)
    await context.close()
  })

  test("the page's theme and the visitor's toggle: dark by the system, by the page, or by the button", async () => {
    const context = await browser.newContext({ baseURL: vigil.base, viewport: DESKTOP, colorScheme: 'dark' })
    const page = await context.newPage()
    await page.goto('/status/acme')
    const bg = () => page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor)
    expect(await bg()).toBe('rgb(15, 19, 24)')
    await page.getByRole('button', { name: 'Switch light or dark' }).click()
    expect(await bg()).toBe('rgb(255, 255, 255)')
    await page.reload() // the choice is kept
    expect(await bg()).toBe('rgb(255, 255, 255)')
    await checkA11y(page, { schemes: ['dark'] })
    await context.close()
  })

  test('without script the page reads the same (only the toggle is missing)', async () => {
    const context = await browser.newContext({ baseURL: vigil.base, viewport: PHONE, javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto('/status/acme')
    await expect(page.getByRole('heading', { name: 'E-mail is delayed' }).isVisible()).resolves.toBe(true)
    await expect(page.getByRole('heading', { name: 'File storage' }).isVisible()).resolves.toBe(true)
    await expect(page.getByRole('button', { name: 'Switch light or dark' }).count()).resolves.toBe(0)
    await context.close()
  })

  test('the 404 page is axe clean too', async () => {
    const { page, context, problems } = await openPage(browser, vigil, '/status/nothing-here')
    await expect(page.getByRole('heading', { name: 'No status page here' }).isVisible()).resolves.toBe(true)
    await checkA11y(page)
    expect(problems).toEqual([])
    await context.close()
  })
})
