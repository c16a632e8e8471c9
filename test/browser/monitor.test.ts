import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { hardwareSample, networkSample } from '../helpers/samples'
import { apiToken, checkA11y, describeBrowser, launchBrowser, newAccount, openPage, registerApi, shoot, signInUI, startVigil, type Vigil } from './helpers'

// page.evaluate callbacks run in the browser (this program has no DOM types)
declare const document: any

// a page and a server in one test: more than bun's 5 s default (bunfig's timeout is not applied here)
setDefaultTimeout(60_000)

/**
 * The monitoring pages end to end against dist/vigil: a device added through the page (its own
 * curl example, run as printed), its samples on the dashboard and its charts as they arrive over
 * the live stream, rename, range and zoom kept in the URL, recommendations; axe and screenshots
 * of each page.
 */
describeBrowser('portal: monitoring', () => {
  let vigil: Vigil
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let problems: string[]
  let apiKey = ''
  let deviceId = ''
  const account = newAccount('monitor')

  beforeAll(async () => {
    vigil = await startVigil({ VIGIL_SIGNUP: 'open' })
    browser = await launchBrowser()
    await registerApi(vigil, account)
    ;({ page, context, problems } = await openPage(browser, vigil, '/signin'))
    await signInUI(page, account, { goto: false })
  }, 120_000)
  afterAll(async () => {
    await context?.close()
    await browser?.close()
    await vigil?.stop()
  })

  /** A collector's batch with the key the page created (server time, so each one is new). */
  async function post(cpu: number, extra: Record<string, unknown> = {}) {
    const res = await fetch(`${vigil.base}/v1/metrics/batch`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'x-device-id': deviceId, 'content-type': 'application/json' },
      body: JSON.stringify({ hardware: { ...hardwareSample(), cpu_percent: cpu, ...extra }, network: networkSample() }),
    })
    expect(res.status).toBe(201)
  }

  const card = () => page.locator('.vg-device-card').filter({ has: page.getByRole('heading') })

  test('an empty account leads to Add a device, with the command to run', async () => {
    await page.goto('/dashboard')
    await page.getByText('No devices yet').waitFor()
    expect(await page.locator('.vg-command').textContent()).toContain(`${vigil.base}/install.sh`)
    await checkA11y(page)
    await shoot(page, 'monitor-dashboard-empty')
    await page.getByRole('link', { name: 'Add a device' }).first().click()
    await page.waitForURL('**/devices/new')
  })

  /** The account's API keys, as the API lists them. */
  async function keyCount(): Promise<number> {
    const res = await fetch(`${vigil.base}/v1/auth/api-keys`, { headers: { authorization: `Bearer ${await apiToken(vigil, account)}` } })
    expect(res.status).toBe(200)
    return ((await res.json()) as unknown[]).length
  }

  test('Add a device: the install command makes no API key; the key for scripts is made once, when asked; the curl example registers a device the page then announces', async () => {
    const keysBefore = await keyCount()
    await page.getByRole('button', { name: 'Create the install command' }).click()
    const install = page.locator('.secret').filter({ hasText: 'Install command' }).locator('.secret-value')
    await install.waitFor()
    const first = (await install.textContent())!
    expect(first).toMatch(new RegExp(`^curl -fsSL ${vigil.base}/install.sh \\| sudo sh -s -- --token vet_`))
    // another command is another single-use token, still no key
    await page.getByRole('button', { name: 'Make another install command' }).click()
    await page.waitForFunction((old) => document.querySelector('.secret-value')?.textContent !== old, first)
    expect(await keyCount()).toBe(keysBefore)
    expect(await page.locator('.secret').filter({ hasText: 'API key' }).count()).toBe(0)
    await page.getByText('Waiting for the device to register').waitFor()

    await page.getByLabel('Key name').fill('web server key')
    await page.getByRole('button', { name: 'Create an API key' }).click()
    const key = page.locator('.secret').filter({ hasText: 'API key' }).locator('.secret-value')
    await key.waitFor()
    apiKey = (await key.textContent())!.trim()
    expect(apiKey).toMatch(/^vk_/)
    expect(await keyCount()).toBe(keysBefore + 1)
    // the key stays for this visit: no form to make another one
    expect(await page.getByRole('button', { name: 'Create an API key' }).count()).toBe(0)
    await checkA11y(page)
    await shoot(page, 'monitor-add-device')

    // the example exactly as the page prints it
    const script = (await page.locator('.vg-command').textContent())!
    const run = Bun.spawn(['sh', '-euc', script], { stdout: 'pipe', stderr: 'pipe' })
    const [code, out] = await Promise.all([run.exited, new Response(run.stdout).text()])
    expect(code).toBe(0)
    deviceId = JSON.parse(out).device_id
    await page.getByText('is reporting: its first sample arrived').waitFor()
    await shoot(page, 'monitor-add-device-arrived')
    await page.getByRole('link', { name: 'Open the device' }).waitFor()
  })

  test('a hub with no collector to serve says why instead of offering the install command', async () => {
    const other = await openPage(browser, vigil, '/signin', {
      context: await browser.newContext({ baseURL: vigil.base, viewport: { width: 1280, height: 800 } }),
    })
    // the hub's own answer, as a hub started from source gives it
    await other.context.route('**/v1/enrolments', async (route) => {
      const res = await route.fetch()
      const body = (await res.json()) as Record<string, unknown>
      await route.fulfill({
        response: res,
        json: { ...body, install_available: false, install_unavailable_reason: 'the hub runs from source and has no executable to serve' },
      })
    })
    await signInUI(other.page, account, { goto: false })
    await other.page.goto('/devices/new')
    await other.page.getByRole('button', { name: 'Create the install command' }).click()
    await other.page.getByText('This hub cannot serve the collector: the hub runs from source and has no executable to serve').waitFor()
    expect(await other.page.locator('.secret').filter({ hasText: 'Install command' }).count()).toBe(0)
    expect(await other.page.getByRole('button', { name: /install command/ }).count()).toBe(0)
    await checkA11y(other.page)
    expect(await other.page.getByText('Waiting for the device to register').count()).toBe(0)
    await shoot(other.page, 'monitor-add-device-unavailable')
    expect(other.problems).toEqual([])
    await other.context.close()
  })

  test('the dashboard shows the device and its figures change as samples arrive, without a reload', async () => {
    await page.goto('/dashboard')
    await card().first().waitFor()
    expect(await card().count()).toBe(1)
    expect(await card().locator('.badge').textContent()).toContain('Online')
    await post(77)
    await card().getByText('77 %').waitFor()
    await post(91)
    await card().getByText('91 %').waitFor()
    expect(await card().getByText('high').count()).toBeGreaterThan(0)
    // search and sort live in the URL
    await page.getByLabel('Search').fill('no such host')
    await page.getByText('No device matches').waitFor()
    expect(new URL(page.url()).searchParams.get('q')).toBe('no such host')
    await page.reload()
    await page.getByText('No device matches').waitFor()
    await page.getByRole('button', { name: 'Clear the search' }).click()
    await card().first().waitFor()
    await checkA11y(page)
    await shoot(page, 'monitor-dashboard')
  })

  test('a card’s status and its "seen" agree: both come from the last report and the device’s own interval', async () => {
    // the page's clock stands still (timers still run), so "seen" and the status are read at one known moment
    const other = await openPage(browser, vigil, '/signin', {
      context: await browser.newContext({ baseURL: vigil.base, viewport: { width: 1280, height: 800 } }),
    })
    const now = Date.now()
    await other.page.clock.setFixedTime(now)
    await signInUI(other.page, account, { goto: false })
    // the hub's overview of a 2 s device, its status from a moment before its latest sample
    let quietFor = 0
    await other.context.route('**/v1/clients/me/fleet', async (route) => {
      const res = await route.fetch()
      const body = (await res.json()) as { devices: Record<string, unknown>[] }
      for (const d of body.devices)
        Object.assign(d, { interval_seconds: 2, status: quietFor ? 'online' : 'stale', last_seen_at: new Date(now - quietFor).toISOString() })
      await route.fulfill({ response: res, json: body })
    })
    const card = other.page.locator('.vg-device-card').filter({ has: other.page.getByRole('heading') })
    await other.page.goto('/dashboard')
    await card.getByText('Seen just now').waitFor()
    expect(await card.locator('.badge').textContent()).toContain('Online')
    // quiet for 7 s, three and a half intervals: stale, whatever the overview said
    quietFor = 7_000
    await other.page.reload()
    await card.getByText('Seen 7 s ago').waitFor()
    expect(await card.locator('.badge').textContent()).toContain('Stale')
    expect(other.problems).toEqual([])
    await other.context.close()
  })

  test('at 1280 px a card’s Network and Latency figures stay apart, however wide the numbers', async () => {
    await context.route('**/v1/clients/me/fleet', async (route) => {
      const res = await route.fetch()
      const body = (await res.json()) as { devices: Record<string, unknown>[] }
      for (const d of body.devices) Object.assign(d, { download_mbps: 9876.5, upload_mbps: 1234.5, latency_avg_ms: 1234.5, packet_loss_percent: 12.5 })
      await route.fulfill({ response: res, json: body })
    })
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.reload()
    const figure = (label: string) =>
      card()
        .locator('.vg-figure')
        .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    await figure('Network')
      .getByText(/9.?877 Mbps/)
      .waitFor()
    const boxes = await card()
      .locator('.vg-figure')
      .evaluateAll((els: any[]) =>
        els.map((el) => {
          const own = el.getBoundingClientRect()
          // the widest of its text: every line's right edge (a line may be wider than its box when it cannot wrap)
          const right = Math.max(...[...el.querySelectorAll('dt, dd, .vg-line')].map((x: any) => x.getBoundingClientRect().left + x.scrollWidth))
          return { label: el.querySelector('dt').textContent, left: own.left, right: Math.max(own.right, right) }
        }),
      )
    const network = boxes.find((b) => b.label === 'Network')!
    const latency = boxes.find((b) => b.label === 'Latency')!
    expect(network.right).toBeLessThanOrEqual(latency.left)
    expect(await figure('Latency').textContent()).toMatch(/13 ?% loss/)
    await shoot(page, 'monitor-dashboard-wide-figures')
    await context.unroute('**/v1/clients/me/fleet')
    await page.reload()
  })

  test('the device page draws its charts and appends live samples', async () => {
    // the device page reads its own device, not the whole fleet
    await card().first().waitFor()
    const asked: string[] = []
    // only what is asked once the device page is the page (the dashboard's own reads before it are the dashboard's)
    const listen = (r: { url(): string }) => {
      if (new URL(page.url()).pathname.startsWith('/devices/')) asked.push(new URL(r.url()).pathname)
    }
    page.on('request', listen)
    await card().getByRole('link').first().click()
    await page.waitForURL(`**/devices/${deviceId}`)
    await page
      .locator('.vg-device-page')
      .getByText(/alerts? firing/)
      .waitFor()
    page.off('request', listen)
    expect(asked).not.toContain('/v1/clients/me/fleet')
    expect(asked).toContain(`/v1/clients/me/devices/${deviceId}`)
    const cpu = page.locator('figure.vg-chart').filter({ hasText: 'CPU usage' })
    await cpu.locator('canvas').waitFor()
    for (const title of ['CPU per core', 'Memory and swap', 'Disk /', 'Temperatures', 'Network throughput', 'Latency and DNS time']) {
      await page.locator('figure.vg-chart').filter({ hasText: title }).first().waitFor()
    }
    // the numbers behind the chart, for screen readers: the latest CPU value follows the stream
    // (a raw point, or merged into the newest minute when the samples came faster than a chart holds)
    const latestCpu = () => cpu.locator('div.visually-hidden table tbody tr').first().locator('td').first().textContent()
    const highest = () => cpu.locator('div.visually-hidden table tbody tr').first().locator('td').nth(3).textContent()
    const before = await latestCpu()
    await post(99.9)
    await page.waitForFunction((old) => document.querySelector('figure.vg-chart div.visually-hidden table tbody tr td')?.textContent !== old, before)
    expect(await latestCpu()).not.toBe(before)
    expect(await highest()).toBe('99.9%')
    await checkA11y(page)
    await shoot(page, 'monitor-device')
  })

  test('rename and tags in place, kept on reload', async () => {
    await page.getByRole('button', { name: 'Rename or tag' }).click()
    await page.getByLabel('Name', { exact: true }).fill('Web server')
    await page.getByRole('textbox', { name: 'Tags' }).fill('Prod, eu')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Web server' }).waitFor()
    await page.reload()
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Web server' }).waitFor()
    expect(await page.locator('.vg-tag').allTextContents()).toEqual(['prod', 'eu'])
    // a bad tag is refused on its field
    await page.getByRole('button', { name: 'Rename or tag' }).click()
    await page.getByRole('textbox', { name: 'Tags' }).fill('no/slashes')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('.field-invalid').filter({ hasText: 'Tags' }).waitFor()
    await checkA11y(page)
    await page.getByRole('button', { name: 'Cancel' }).click()
  })

  test('range and zoom live in the URL and survive a reload; double-click zooms out', async () => {
    await page.getByRole('button', { name: '6h' }).click()
    await page.waitForURL((u) => u.searchParams.get('range') === '6h')
    const over = page.locator('figure.vg-chart').filter({ hasText: 'CPU usage' }).locator('.u-over')
    // the chart is drawn again once the 6 hours' series arrives: take its box once it stays on the page
    let box = await over.boundingBox()
    for (let tries = 0; !box && tries < 100; tries++) {
      await over.waitFor()
      box = await over.boundingBox()
    }
    if (!box) throw new Error('the CPU chart never stayed on the page')
    // the last ~10 minutes of the 6 hours: where this test's samples are
    await page.mouse.move(box.x + box.width * 0.97, box.y + box.height / 2)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2, { steps: 5 })
    await page.mouse.up()
    await page.waitForURL((u) => u.searchParams.has('from') && u.searchParams.has('to'))
    const zoomed = new URL(page.url())
    expect(Number(zoomed.searchParams.get('to'))).toBeGreaterThan(Number(zoomed.searchParams.get('from')))
    await page.reload()
    await page.getByText('Zoomed to').waitFor()
    expect(page.url()).toBe(zoomed.href)
    await page.locator('figure.vg-chart').filter({ hasText: 'CPU usage' }).locator('.u-over').dblclick()
    await page.waitForURL((u) => !u.searchParams.has('from'))
    expect(new URL(page.url()).searchParams.get('range')).toBe('6h')
  })

  test('recommendations across devices, with generate now and filters in the URL', async () => {
    await post(99, { disk_partitions: [{ device: '/dev/sda1', mountpoint: '/', fstype: 'ext4', total_gb: 100, used_gb: 97, free_gb: 3, percent: 97 }] })
    await page.goto('/recommendations')
    await page.getByRole('button', { name: 'Generate now' }).click()
    await page.locator('.banner').filter({ hasText: 'Web server' }).waitFor()
    await page.getByLabel('Severity').selectOption('critical')
    await page.waitForURL((u) => u.searchParams.get('severity') === 'critical')
    await page.reload()
    expect(await page.getByLabel('Severity').inputValue()).toBe('critical')
    await page.getByLabel('Severity').selectOption('')
    await page.locator('.vg-rec-list, .empty').first().waitFor()
    await checkA11y(page)
    await shoot(page, 'monitor-recommendations')
  })

  test('deleting the device asks first, then returns to the dashboard', async () => {
    await page.goto(`/devices/${deviceId}`)
    await page.getByRole('button', { name: 'Delete' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByText('Deleting removes the device and its history').waitFor()
    // a collector with a key that still works comes back: the dialog says how to stop it
    await dialog.getByText('comes back as a new device').waitFor()
    expect(await dialog.getByRole('link', { name: 'Settings → API keys' }).getAttribute('href')).toBe('/settings/keys')
    await checkA11y(page)
    await shoot(page, 'monitor-device-delete')
    await page.getByRole('button', { name: 'Delete the device' }).click()
    await page.waitForURL('**/dashboard')
    await page.getByText('No devices yet').waitFor()
    expect(problems).toEqual([])
  })
})
