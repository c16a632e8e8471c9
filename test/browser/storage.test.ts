import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { hardwareSample, networkSample } from '../helpers/samples'
import {
  apiToken,
  checkA11y,
  describeBrowser,
  launchBrowser,
  newAccount,
  openPage,
  PHONE_390,
  registerApi,
  shoot,
  signInUI,
  startVigil,
  type Vigil,
} from './helpers'

/**
 * The operator page's Storage card against dist/vigil: a 2 MB budget passed by two hours of a
 * device's samples, applied, and a disk warning level every disk passes (0.01% used), so the
 * hub's own warning is what the banner shows.
 */
describeBrowser('portal: the operator’s storage card', () => {
  let vigil: Vigil
  let browser: Browser
  const operator = newAccount('operator')

  beforeAll(async () => {
    vigil = await startVigil({ VIGIL_STORAGE_BUDGET: '2MB', VIGIL_STORAGE_DISK_WARN: '0.01%' })
    browser = await launchBrowser()
    await registerApi(vigil, operator)
    const auth = { authorization: `Bearer ${await apiToken(vigil, operator)}`, 'content-type': 'application/json' }
    const key = (await (
      await fetch(`${vigil.base}/v1/auth/api-keys`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'collector' }) })
    ).json()) as {
      api_key: string
    }
    const keyHeaders = { 'x-api-key': key.api_key, 'content-type': 'application/json' }
    const device = (await (
      await fetch(`${vigil.base}/v1/clients/me/devices`, {
        method: 'POST',
        headers: keyHeaders,
        body: JSON.stringify({ hostname: 'pi', os: 'linux', os_version: '6', arch: 'arm64', fingerprint: 'fp-pi' }),
      })
    ).json()) as { device_id: string }
    const end = Math.floor(Date.now() / 1000) * 1000 - 10_000
    for (let b = 0; b < 8; b++) {
      const items = Array.from({ length: 200 }, (_, i) => {
        const n = b * 200 + i
        // readings that do not compress away (raw samples are kept compactly): enough data to pass the budget
        const extra = Array.from({ length: 96 }, (_, k) => Math.sin(n * 97 + k) * 1e3)
        return {
          hardware: { ...hardwareSample(n), vendor_extra: extra },
          network: networkSample(n),
          recorded_at: new Date(end - (1600 - n) * 10_000).toISOString(),
        }
      })
      const r = await fetch(`${vigil.base}/v1/metrics/bulk`, {
        method: 'POST',
        headers: keyHeaders,
        body: JSON.stringify({ device_id: device.device_id, items }),
      })
      expect(r.status).toBe(201)
    }
    const enforced = await fetch(`${vigil.base}/v1/admin/storage/enforce`, { method: 'POST', headers: auth })
    expect(enforced.status).toBe(200)
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await vigil?.stop()
  })

  test('the space per tier and the rest, the budget, the disk, and the hub’s warning as a banner', async () => {
    const { page, problems } = await openPage(browser, vigil, '/signin')
    await signInUI(page, operator, { goto: false })
    await page.goto('/admin')
    const card = page.locator('section.card').filter({ has: page.getByRole('heading', { name: 'Storage' }) })
    const table = card.getByRole('table', { name: 'Space each part of the database uses' })
    for (const part of ['Raw samples', '1-minute rollups', '10-minute rollups', 'Hourly rollups', 'Daily rollups', 'Everything else']) {
      await table.getByRole('row', { name: new RegExp(part) }).waitFor()
    }
    expect(await table.getByRole('row', { name: /Raw samples/ }).textContent()).toMatch(/\d+(\.\d+)? (KiB|MiB)/)
    const fact = (text: RegExp) => card.locator('dd').filter({ hasText: text }).waitFor()
    await fact(/of a 1\.91 MiB budget \(\d+ %, VIGIL_STORAGE_BUDGET=2MB\)/)
    await fact(/The budget holds about [\d.]+ days at the current rate/)
    await fact(/[\d,]+ rows from raw samples/)
    await fact(/warns from 0\.01 %/)
    // the raw samples pruned were rolled up first: the 1-minute tier reaches back before them
    expect(await table.getByRole('row', { name: /1-minute rollups/ }).textContent()).not.toMatch(/—$/)
    await card
      .locator('.banner')
      .filter({ hasText: /Storage: the disk holding the data dir is \d+% full \(VIGIL_STORAGE_DISK_WARN is 0\.01%\)/ })
      .waitFor()
    await checkA11y(page)
    await shoot(page, 'admin-storage')
    await page.setViewportSize(PHONE_390)
    await table.getByRole('row', { name: /Raw samples/ }).waitFor()
    await checkA11y(page, { schemes: ['light'] })
    expect(problems).toEqual([])
  }, 90_000)
})
