import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { describeBrowser, launchBrowser, openPage, startVigil, type Vigil } from '../browser/helpers'

/**
 * The server's own pages under their CSP in a real browser (dist/vigil): the landing page, the
 * error codes and Swagger UI at /docs render and work with nothing refused.
 */
describeBrowser('the server pages under their Content-Security-Policy', () => {
  let vigil: Vigil
  let browser: Browser
  beforeAll(async () => {
    vigil = await startVigil()
    browser = await launchBrowser()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await vigil?.stop()
  })

  test('/docs: Swagger UI loads the document and lists the operations, no CSP violation', async () => {
    const { page, problems, context } = await openPage(browser, vigil, '/docs')
    // sections start folded: every one is listed, and opening one shows its operations
    const tags = page.locator('.opblock-tag')
    await tags.first().waitFor({ timeout: 30_000 })
    const names = await tags.allTextContents()
    for (const tag of ['auth', 'devices', 'metrics', 'alerts', 'checks', 'containers', 'status-pages']) {
      expect(names.some((n) => n.startsWith(tag))).toBe(true)
    }
    await tags.filter({ hasText: /^auth/ }).first().click()
    await page.locator('.opblock-summary-path', { hasText: '/v1/auth/register' }).first().waitFor({ timeout: 10_000 })
    await tags
      .filter({ hasText: /^health/ })
      .first()
      .click()
    await page.locator('.opblock-summary', { hasText: '/health' }).first().click()
    await page.locator('.opblock-body').first().waitFor()
    // a refused script, style or request is a console error ("Refused to … Content Security Policy")
    expect(problems).toEqual([])
    await context.close()
  }, 60_000)

  test('the landing page and /docs/errors keep their styles', async () => {
    for (const path of ['/', '/docs/errors']) {
      const { page, problems, context } = await openPage(browser, vigil, path)
      expect(await page.evaluate<number>('document.styleSheets.length')).toBeGreaterThan(0)
      expect(problems).toEqual([])
      await context.close()
    }
  }, 60_000)
})
