import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { container } from '../modules/containers/fixtures'
import {
  apiToken,
  checkA11y,
  describeBrowser,
  launchBrowser,
  newAccount,
  openPage,
  PHONE,
  reachableAcross,
  registerApi,
  shoot,
  signInUI,
  startVigil,
  type Vigil,
} from './helpers'

// a page and a server in one test: more than bun's 5 s default
setDefaultTimeout(60_000)

/**
 * Containers and disk health in the portal, against dist/vigil: collectors' batches carrying
 * `containers` and `disks_smart` (posted with API keys, as a collector does), then the dashboard's
 * failing-disk hint, the device page's containers (a container's charts in the device's window)
 * and disks, the reasons shown when a collector sees no engine or cannot run smartctl, and the
 * fleet's Containers page with its filters and sorts in the URL. Axe and screenshots of each.
 */
describeBrowser('portal: containers and disks', () => {
  let vigil: Vigil
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let problems: string[]
  const account = newAccount('containers')
  const devices: Record<'web' | 'pi' | 'nas', { id: string; key: string }> = {} as never
  const now = Date.now()
  const at = (agoMs: number) => new Date(now - agoMs).toISOString()

  async function api(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    const res = await fetch(`${vigil.base}${path}`, {
      method: init.method ?? (init.body ? 'POST' : 'GET'),
      headers: { 'content-type': 'application/json', ...init.headers },
      body: init.body ? JSON.stringify(init.body) : undefined,
    })
    const json = (await res.json()) as Record<string, any>
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }

  /** A device with its own collector key, as an installed collector has. */
  async function device(hostname: string): Promise<{ id: string; key: string }> {
    const token = await apiToken(vigil, account)
    const { api_key } = await api('/v1/auth/api-keys', { body: { name: hostname }, headers: { authorization: `Bearer ${token}` } })
    const { device_id } = await api('/v1/clients/me/devices', {
      body: { hostname, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: `fp-${hostname}` },
      headers: { 'x-api-key': api_key },
    })
    return { id: device_id, key: api_key }
  }

  const batch = (d: { id: string; key: string }, body: Record<string, unknown>) =>
    api('/v1/metrics/batch', { body: { hardware: { cpu_percent: 20 }, ...body }, headers: { 'x-api-key': d.key, 'x-device-id': d.id } })

  const engine = { kind: 'docker', version: '27.3.1', api_version: '1.47' }
  const disk = (name: string, over: Record<string, unknown> = {}) => ({
    name,
    model: 'Example SSD',
    serial: 'S123',
    kind: 'ata',
    capacity_bytes: 500e9,
    passed: true,
    temperature_c: 35,
    power_on_hours: 1200,
    reallocated_sectors: 0,
    pending_sectors: 0,
    uncorrectable_sectors: 0,
    nvme_percentage_used: null,
    nvme_media_errors: null,
    ...over,
  })

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

  test('an account without containers: the Containers page (in the top bar) says how to get them', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Containers' }).click()
    await page.waitForURL('**/containers')
    await page.getByText('No containers yet').waitFor()
    const body = (await page.locator('.empty').textContent())!
    expect(body).toContain('sudo usermod -aG docker vigil-agent')
    expect(body).toContain('DOCKER_HOST')
    expect(body).toContain('collectors update themselves')
    await checkA11y(page)
    await shoot(page, 'containers-fleet-empty')
    // the top bar's six sections and the account between a phone's width and a wide screen: they fit, the page never scrolls sideways
    for (const width of [730, 820, 1000]) {
      await page.setViewportSize({ width, height: 800 })
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBe(width)
    }
    await page.setViewportSize({ width: 1280, height: 800 })
  })

  test('the collectors report: containers, disks, and why one sees no engine or cannot run smartctl', async () => {
    devices.web = await device('web-01')
    devices.pi = await device('pi-01')
    devices.nas = await device('nas-01')
    const web = (over: Parameters<typeof container>[1] = {}) =>
      container('web', { image: 'nginx:1.27', labels: { 'com.docker.compose.project': 'shop' }, ...over })
    await batch(devices.web, {
      recorded_at: at(30_000),
      containers: {
        engine,
        unavailable_reason: null,
        memory_accounting: true,
        items: [web(), container('api', { cpu_percent: 3 }), container('db', { image: 'postgres:16' })],
      },
    })
    await batch(devices.web, {
      recorded_at: at(20_000),
      containers: {
        engine,
        unavailable_reason: null,
        memory_accounting: true,
        items: [
          web({ cpu_percent: 40 }),
          container('api', { state: 'exited', exit_code: 2, cpu_percent: null, finished_at: at(21_000) }),
          container('db', { image: 'postgres:16', health: 'unhealthy', cpu_percent: 90 }),
        ],
      },
      disks_smart: {
        available: true,
        unavailable_reason: null,
        devices: [
          disk('/dev/sda', { passed: false, reallocated_sectors: 24, pending_sectors: 8 }),
          disk('/dev/nvme0', { kind: 'nvme', nvme_percentage_used: 3 }),
        ],
      },
    })
    // the list carries each container's last hour of CPU: the page draws every sparkline from one answer
    const listed = await api(`/v1/devices/${devices.web.id}/containers`, { headers: { authorization: `Bearer ${await apiToken(vigil, account)}` } })
    expect(Object.keys(listed.cpu_spark).sort()).toEqual(listed.items.map((c: { container_id: string }) => c.container_id).sort())
    const webSpark: (number | null)[] = listed.cpu_spark[listed.items.find((c: { name: string }) => c.name === 'web').container_id]
    expect(webSpark.length).toBe(60)
    expect(webSpark.filter((v) => v !== null).length).toBeGreaterThan(0)
    await batch(devices.pi, {
      recorded_at: at(20_000),
      containers: {
        engine: { kind: 'docker', version: '20.10.24', api_version: '1.41' },
        unavailable_reason: null,
        memory_accounting: false,
        items: [container('homeassistant', { memory_used_bytes: null, memory_limit_bytes: null })],
      },
      disks_smart: { available: false, unavailable_reason: 'smartctl not found: install smartmontools to report disk health', devices: [] },
    })
    await batch(devices.nas, {
      recorded_at: at(20_000),
      containers: {
        engine: null,
        unavailable_reason: 'no Docker or Podman socket found (looked at /var/run/docker.sock, /run/podman/podman.sock)',
        memory_accounting: true,
        items: [],
      },
    })
  })

  test('the dashboard says a disk is failing and links to its device', async () => {
    await page.goto('/dashboard')
    const hint = page.locator('.banner').filter({ hasText: 'A disk is failing' })
    await hint.waitFor()
    expect(await hint.textContent()).toContain('/dev/sda on web-01 (Example SSD)')
    await checkA11y(page)
    await shoot(page, 'containers-dashboard-disk-hint')
    await hint.getByRole('link', { name: '/dev/sda on web-01' }).click()
    await page.waitForURL(`**/devices/${devices.web.id}`)
  })

  test('the device page: containers needing attention first, each with its figures and sparkline; a click opens its charts in the device’s window, and its history', async () => {
    const section = page.locator('.vg-device-containers')
    const rows = section.locator('.vg-ct-table tbody tr')
    await rows.first().waitFor()
    expect(await section.locator('.card-title').textContent()).toContain('2 of 3 running · 2 need attention')
    expect(await section.locator('.vg-ct-engine').textContent()).toContain('Docker 27.3.1 (API 1.47)')
    const names = await rows.locator('.vg-ct-open').allTextContents()
    expect(names).toEqual(['api', 'db', 'web'])
    expect(await rows.nth(0).textContent()).toContain('Needs attention: exited with code 2')
    expect(await rows.nth(1).textContent()).toContain('Unhealthy')
    const web = rows.nth(2)
    expect(await web.textContent()).toContain('40 %')
    expect(await web.textContent()).toContain('50 MiB of 200 MiB (25 %)')
    // the last hour of CPU, from the list's own answer (a minute's average: a dot, until the next minutes come)
    await web.locator('.vg-spark path').waitFor({ state: 'attached' })
    expect(await web.locator('.vg-spark path').getAttribute('d')).toMatch(/^M[\d.]+ [\d.]+/)
    expect(await web.locator('.vg-spark').getAttribute('aria-label')).toMatch(/^web CPU over the last hour, percent: lowest \d+, highest \d+$/)

    await page.getByRole('button', { name: '6h' }).click()
    await web.getByRole('button', { name: 'web' }).click()
    await page.waitForURL((u) => u.searchParams.get('container') !== null && u.searchParams.get('range') === '6h')
    const detail = page.getByRole('region', { name: 'Container web' })
    await detail.getByText('CPU (100% = one core)', { exact: true }).waitFor()
    expect(await detail.locator('.vg-chart-title').allTextContents()).toEqual(['CPU (100% = one core)', 'Memory used', 'Network', 'Block I/O'])
    expect(await web.getByRole('button', { name: 'web' }).getAttribute('aria-expanded')).toBe('true')
    expect(await detail.getByRole('list', { name: 'Labels' }).textContent()).toBe('com.docker.compose.project=shop')

    // a shared link with a zoom: the container's charts read exactly the device charts' window
    const windows: Record<string, string> = {}
    page.on('request', (r) => {
      const u = new URL(r.url())
      if (u.pathname.includes('/series') && u.searchParams.has('end'))
        windows[u.pathname.includes('/containers/') ? 'container' : 'device'] = `${u.searchParams.get('start')}|${u.searchParams.get('end')}`
    })
    const from = Math.floor((now - 600_000) / 1000)
    const to = Math.floor((now - 5_000) / 1000)
    await page.goto(`${new URL(page.url()).pathname}${new URL(page.url()).search}&from=${from}&to=${to}`)
    await detail.getByText('CPU (100% = one core)', { exact: true }).waitFor()
    expect(windows.device).toBe(`${new Date(from * 1000).toISOString()}|${new Date(to * 1000).toISOString()}`)
    expect(windows.container).toBe(windows.device)
    await section.getByRole('button', { name: 'api' }).click()
    const api = page.getByRole('region', { name: 'Container api' })
    await api.getByText('Stopped with exit code 2').waitFor()
    expect(await api.locator('.vg-ct-event').count()).toBe(3)
    await checkA11y(page)
    await shoot(page, 'containers-device')
    // the back button closes it again
    await page.goBack()
    await page.waitForURL((u) => u.searchParams.get('container') !== null)
    await page.getByRole('region', { name: 'Container web' }).waitFor()
  })

  test('disk health on the device page: the failing disk first, the readings behind its verdict, NVMe wear', async () => {
    const disks = page.locator('.vg-device-disks')
    const rows = disks.locator('tbody tr')
    await rows.first().waitFor()
    expect(await disks.locator('.banner').first().textContent()).toContain('A disk is failing')
    const sda = (await rows.nth(0).textContent())!
    expect(sda).toContain('/dev/sda')
    expect(sda).toContain('Failing')
    expect(sda).toContain('8 pending sectors')
    expect(sda).toContain('24 reallocated')
    expect(sda).toContain('1,200 h (50 days)')
    const nvme = (await rows.nth(1).textContent())!
    expect(nvme).toContain('Passed')
    expect(nvme).toContain('3% used')
  })

  test('a Raspberry Pi without memory accounting says so instead of 0, and why smartctl did not run', async () => {
    await page.goto(`/devices/${devices.pi.id}`)
    const row = page.locator('.vg-device-containers .vg-ct-table tbody tr')
    await row.first().waitFor()
    const text = (await row.first().textContent())!
    expect(text).toContain('memory not accounted on this machine')
    expect(text).not.toMatch(/\b0 B\b/)
    await page.getByText('cgroup_enable=memory').waitFor()
    const disks = page.locator('.vg-device-disks')
    await disks.getByText('The collector cannot read disk health: smartctl not found').waitFor()
    expect(await disks.textContent()).toContain('sudo apt install smartmontools')
    await page.setViewportSize(PHONE)
    expect(await reachableAcross(row.first().locator('td').last())).toBe(true)
    await page.setViewportSize({ width: 1280, height: 800 })
    await checkA11y(page)
    await shoot(page, 'containers-device-pi')

    await page.goto(`/devices/${devices.nas.id}`)
    const banner = page.locator('.vg-device-containers .banner')
    await banner.waitFor()
    expect(await banner.textContent()).toContain('The collector sees no containers: no Docker or Podman socket found (looked at /var/run/docker.sock')
    expect(await banner.textContent()).toContain('DOCKER_HOST=unix://')
    await page.locator('.vg-device-disks').getByText('No S.M.A.R.T. report yet').waitFor()
    await checkA11y(page)
  })

  test('the Containers page: needing attention first, search by name and image, filters and sorts in the URL, a row leads to its charts', async () => {
    await page.goto('/containers')
    const rows = page.locator('.vg-ct-table tbody tr')
    await rows.first().waitFor()
    expect(await page.locator('.page-header').textContent()).toContain('4 containers · 3 running · 2 need attention')
    const names = () => rows.locator('td:first-child a').allTextContents()
    /** waits until the table lists exactly these names, in this order */
    const shown = (expected: string[]) =>
      page.waitForFunction(
        (want) =>
          [...(globalThis as any).document.querySelectorAll('.vg-ct-table tbody tr td:first-child a')].map((a: any) => a.textContent).join(',') === want,
        expected.join(','),
      )
    expect((await names()).slice(0, 2).sort()).toEqual(['api', 'db'])
    expect(await rows.nth(0).textContent()).toContain('web-01')

    await page.getByLabel('Image', { exact: true }).fill('postgres')
    await page.waitForURL((u) => u.searchParams.get('image') === 'postgres')
    await shown(['db'])
    await page.getByRole('button', { name: 'Clear the filters' }).click()
    await page.getByLabel('Name', { exact: true }).fill('HOME')
    await shown(['homeassistant'])
    await page.getByRole('button', { name: 'Clear the filters' }).click()
    await page.getByLabel('Only those needing attention').check()
    await page.waitForURL((u) => u.searchParams.get('attention') === '1')
    await shown(['api', 'db'])
    await page.getByRole('button', { name: 'Clear the filters' }).click()

    await page.getByLabel('State', { exact: true }).selectOption('running')
    await page.waitForURL((u) => u.searchParams.get('state') === 'running')
    await page.getByRole('button', { name: 'CPU', exact: true }).click()
    await page.waitForURL((u) => u.searchParams.get('sort') === '-cpu')
    await shown(['db', 'web', 'homeassistant'])
    expect(await page.locator('th[aria-sort]').textContent()).toContain('CPU')
    await page.getByRole('button', { name: 'CPU', exact: true }).click()
    await shown(['homeassistant', 'web', 'db'])
    await page.getByLabel('Device', { exact: true }).selectOption({ label: 'pi-01' })
    await shown(['homeassistant'])
    // the fleet's row carries its device's memory accounting: "not accounted", not a dash
    expect(await rows.first().textContent()).toContain('memory not accounted on this machine')
    await page.getByLabel('Device', { exact: true }).selectOption('')
    await shown(['homeassistant', 'web', 'db'])
    await checkA11y(page)
    await shoot(page, 'containers-fleet')

    await rows.getByRole('link', { name: 'web', exact: true }).click()
    await page.waitForURL(`**/devices/${devices.web.id}?container=*`)
    await page.getByRole('region', { name: 'Container web' }).getByText('CPU (100% = one core)', { exact: true }).waitFor()
    expect(problems).toEqual([])
  })
})
