/**
 * The portal's speed in a real browser (`bun run bench --browser-only`): Debian's chromium driven
 * by playwright-core against dist/vigil on a seeded data dir.
 *
 * - dashboard of 200 devices (an hour of samples each): the browser's first contentful paint and
 *   the moment the 200 cards are on screen (the page's `vigil:dashboard:devices` mark), both from
 *   navigation start; the first (cold) load and the median of warm reloads;
 * - a device page over 30 days (10 s samples, the rollup tiers): the time from its data arriving
 *   to every chart drawn (the page's `vigil:charts` measure), median of loads.
 *
 * Prints a JSON line last (the bench's table reads it). Only processes started here are stopped.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { freePort, median, stop, waitReady } from './proc'
import { seedAccounts, seedSamples } from './seed'

const { quick = false } = JSON.parse(process.argv[2] ?? '{}') as { quick?: boolean }
const DEVICES = 200
const LOADS = quick ? 3 : 9
const DAY = 86_400_000
const root = join(import.meta.dir, '../..')
const secret = 'bench-secret-bench-secret-bench-secret!'
const email = 'bench0@example.test'
const password = 'bench password 1234'
const log = (msg: string) => console.error(`[bench browser ${new Date().toISOString().slice(11, 19)}] ${msg}`)
export const CHROMIUM = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium'

async function seed(dir: string) {
  mkdirSync(dir, { recursive: true })
  const db = openDatabase(join(dir, 'vigil.db'))
  migrate(db.sqlite, Date.now())
  const now = Date.now()
  const [tenant] = seedAccounts(db.sqlite, { tenants: 1, keysPerTenant: 1, maxDevices: DEVICES, devicesPerTenant: DEVICES, now })
  const seqs = tenant!.devices.map((d) => d.seq)
  log(`seeding 30 days for one device and an hour for ${DEVICES - 1} more`)
  await seedSamples(db.sqlite, [seqs[0]!], (30 * DAY) / 10_000, now)
  await seedSamples(db.sqlite, seqs.slice(1), 360, now)
  db.sqlite.run('UPDATE devices SET last_seen_at = ? WHERE client_id = ?', [now, tenant!.clientId])
  db.sqlite.run('UPDATE users SET password_hash = ? WHERE id = ?', [await Bun.password.hash(password), tenant!.userId])
  db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  return { deviceId: tenant!.devices[0]!.id }
}

/** A signed-in page: the session cookie comes from POST /v1/auth/session in the page's own context. */
async function signedIn(browser: Browser, base: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  const res = await context.request.post(`${base}/v1/auth/session`, { data: { email, password }, headers: { origin: base } })
  if (!res.ok()) throw new Error(`sign-in answered ${res.status()}: ${await res.text()}`)
  return context.newPage()
}

async function dashboardLoad(page: Page, base: string) {
  await page.goto(`${base}/dashboard`)
  await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('.vg-device-card:not(.vg-skeleton-card)').length === n, DEVICES, {
    timeout: 30_000,
  })
  await page.waitForFunction(() => performance.getEntriesByName('vigil:dashboard:devices').length > 0, undefined, { timeout: 30_000 })
  return page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN
    const cards = performance.getEntriesByName('vigil:dashboard:devices')[0]?.startTime ?? Number.NaN
    const fleet = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((r) => r.name.includes('/v1/clients/me/fleet'))
    return { fcp, cards, fleetEnd: fleet?.responseEnd ?? Number.NaN, fleetMs: fleet?.duration ?? Number.NaN }
  })
}

async function devicePageLoad(page: Page, base: string, deviceId: string) {
  await page.goto(`${base}/devices/${deviceId}?range=30d`)
  await page.waitForFunction(() => performance.getEntriesByName('vigil:charts').length > 0, undefined, { timeout: 60_000 })
  return page.evaluate(() => ({
    draw: performance.getEntriesByName('vigil:charts')[0]!.duration,
    charts: (globalThis as any).document.querySelectorAll('.vg-charts .vg-chart').length,
  }))
}

const round = (n: number) => Math.round(n)

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'vigil-bench-browser-'))
  const port = freePort()
  const base = `http://127.0.0.1:${port}`
  let server: ReturnType<typeof Bun.spawn> | null = null
  let browser: Browser | null = null
  try {
    const { deviceId } = await seed(join(tmp, 'data'))
    server = Bun.spawn([join(root, 'dist/vigil'), 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', join(tmp, 'data')], {
      env: { ...process.env, VIGIL_JWT_SECRET: secret, VIGIL_LOG_LEVEL: 'warn', VIGIL_RETENTION_RAW: '3650d', VIGIL_RATE_LIMIT_FREE: '10000000' },
      stdout: 'inherit',
      stderr: 'inherit',
    })
    await waitReady(`${base}/health`, server)
    // software raster: without a GPU, chromium's emulated one (SwiftShader) is slower than plain CPU drawing
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
    const page = await signedIn(browser, base)

    log(`dashboard of ${DEVICES} devices, ${LOADS} loads`)
    const dash = []
    for (let i = 0; i < LOADS; i++) dash.push(await dashboardLoad(page, base))
    const warm = dash.slice(1)

    log(`device page over 30 days, ${LOADS} loads`)
    const device = []
    for (let i = 0; i < LOADS; i++) device.push(await devicePageLoad(page, base, deviceId))

    const result = {
      devices: DEVICES,
      dashboard: {
        cold: { fcp: round(dash[0]!.fcp), cards: round(dash[0]!.cards) },
        warm: { fcp: round(median(warm.map((d) => d.fcp))), cards: round(median(warm.map((d) => d.cards))) },
        /** the fleet request's own time, and from its answer to the cards painted (warm loads) */
        fleetMs: round(median(warm.map((d) => d.fleetMs))),
        renderMs: round(median(warm.map((d) => d.cards - d.fleetEnd))),
      },
      device: {
        charts: device[0]!.charts,
        drawMs: round(median(device.map((d) => d.draw))),
        drawMinMs: round(Math.min(...device.map((d) => d.draw))),
        drawMaxMs: round(Math.max(...device.map((d) => d.draw))),
      },
      /** the machine's 1-minute load average at the end: wall-clock figures stretch with it */
      load: Math.round(loadavg()[0]! * 10) / 10,
    }
    console.log(JSON.stringify(result))
  } finally {
    await browser?.close()
    if (server) await stop(server)
    rmSync(tmp, { recursive: true, force: true })
  }
}

if (import.meta.main) await main()
