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
    await page.locator('.opblock-summary-path', { hasText: '/health' }).first().waitFor({ timeout: 30_000 })
    // Swagger UI draws a long document's sections as they scroll into view: ask it what it read
    const tags = await page.evaluate<string[]>('[...window.ui.specSelectors.taggedOperations().keys()]')
    expect(tags).toEqual(expect.arrayContaining(['auth', 'devices', 'metrics', 'alerts', 'checks', 'containers']))
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
