/**
 * Browser tests of the portal: dist/vigil (rebuilt when stale) on a free port with a temp data
 * dir, driven by Debian's chromium through playwright-core. Without chromium the tests skip and
 * say why (CI installs it: .ci/run).
 *
 *   const vigil = await startVigil()            // { base, logs(), stop() }
 *   const browser = await launchBrowser()
 *   const page = await openPage(browser, vigil) // fails the test on a CSP violation or a page error
 *   await signUpUI(page, ACCOUNT); await shoot(page, 'dashboard'); await checkA11y(page)
 */
import { describe } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { ROOT, startBinary, tempDir } from '../helpers/binary'

// what page.evaluate callbacks see: they run in the browser (this program has no DOM types)
declare const window: any, requestAnimationFrame: (f: (t: number) => void) => void

export const CHROMIUM = process.env.VIGIL_CHROMIUM || '/usr/bin/chromium'
export const HAS_CHROMIUM = existsSync(CHROMIUM)
export const ARTIFACTS = join(import.meta.dir, 'artifacts')

/**
 * describe() that skips, saying so once, when there is no browser to drive. CI sets
 * VIGIL_REQUIRE_BROWSER=1 (.ci/run installs chromium), so there a missing browser fails the run
 * instead of hiding the portal's tests.
 */
export function describeBrowser(name: string, fn: () => void): void {
  if (HAS_CHROMIUM) {
    describe(name, fn)
    return
  }
  if (process.env.VIGIL_REQUIRE_BROWSER === '1') throw new Error(`no chromium at ${CHROMIUM}, and VIGIL_REQUIRE_BROWSER=1: the browser tests must run`)
  console.warn(`browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium, or set VIGIL_CHROMIUM)`)
  describe.skip(name, fn)
}

export interface Vigil {
  base: string
  dataDir: string
  /** everything the server wrote so far (JSON log lines) */
  logs(): string
  stop(): Promise<void>
}

/**
 * Starts the executable. Its output is read as it comes (an unread pipe would stall a chatty
 * server). The anonymous rate limit is raised: a browser fetches the shell, its files and the
 * session refresh without a token, and a test reloads often from one address. So is the free
 * plan's: a suite reloads a page (session, account, alerts, the page's own reads) many times a
 * minute on one account, far faster than a person does; the limits have their own tests.
 */
export async function startVigil(env: Record<string, string> = {}): Promise<Vigil> {
  const cwd = tempDir('vigil-browser-')
  const dataDir = join(cwd, 'data')
  const { proc, base } = await startBinary({
    cwd,
    env: { VIGIL_DATA_DIR: dataDir, VIGIL_RATE_LIMIT_ANONYMOUS: '100000', VIGIL_RATE_LIMIT_FREE: '100000', ...env },
  })
  let out = ''
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    const reader = stream.getReader()
    for (let r = await reader.read(); !r.done; r = await reader.read()) out = (out + decoder.decode(r.value)).slice(-1_000_000)
  }
  void drain(proc.stdout as ReadableStream<Uint8Array>)
  void drain(proc.stderr as ReadableStream<Uint8Array>)
  return {
    base,
    dataDir,
    logs: () => out,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
}

export interface OpenedPage {
  page: Page
  context: BrowserContext
  /** CSP violations, uncaught errors and console errors seen so far (expected 4xx answers excluded) */
  problems: string[]
}

/**
 * A fresh context (its own cookies) and page at `path`. Problems the page reports are collected:
 * a CSP violation, an uncaught exception, a console error other than a refused request.
 */
export async function openPage(browser: Browser, vigil: Vigil, path = '/', opts: { context?: BrowserContext } = {}): Promise<OpenedPage> {
  const context = opts.context ?? (await browser.newContext({ baseURL: vigil.base, viewport: DESKTOP, colorScheme: 'light' }))
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('console', (m) => {
    const text = m.text()
    if (m.type() !== 'error') return
    // a 4xx answer (a refused password, a session that ended) is shown by the app; the browser logs it as a failed resource: not a fault
    if (/Failed to load resource: the server responded with a status of 4\d\d/.test(text)) return
    problems.push(`console: ${text}`)
  })
  await page.goto(path)
  return { page, context, problems }
}

export const DESKTOP = { width: 1280, height: 800 }
export const PHONE = { width: 375, height: 740 }
/** A common phone today (the width the portal's tables are checked at) */
export const PHONE_390 = { width: 390, height: 844 }

/**
 * Whether an element is on screen across: inside the viewport's width and not inside a box that
 * must be scrolled sideways to reach it (a table wider than the phone).
 */
export async function reachableAcross(target: Locator): Promise<boolean> {
  await target.scrollIntoViewIfNeeded()
  const box = await target.boundingBox()
  const width = target.page().viewportSize()?.width ?? DESKTOP.width
  if (!box || box.x < 0 || box.x + box.width > width) return false
  return target.evaluate((el: any) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const r = p.getBoundingClientRect()
      const b = el.getBoundingClientRect()
      if (p.scrollWidth > p.clientWidth + 1 && (b.left < r.left || b.right > r.right)) return false
    }
    return true
  })
}

/**
 * Screenshots of the page as it is: desktop and phone, light and dark, under
 * test/browser/artifacts/<name>-<desktop|phone>-<light|dark>.png (git-ignored; look at them).
 */
export async function shoot(page: Page, name: string): Promise<string[]> {
  mkdirSync(ARTIFACTS, { recursive: true })
  const before = page.viewportSize() ?? DESKTOP
  const saved: string[] = []
  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport)
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
      const path = join(ARTIFACTS, `${name}-${size}-${scheme}.png`)
      await page.screenshot({ path, fullPage: true, animations: 'disabled' })
      saved.push(path)
    }
  }
  await page.setViewportSize(before)
  await page.emulateMedia({ colorScheme: 'light' })
  return saved
}

let axeSource: string | null = null

/**
 * Runs axe-core on the page (evaluated through the DevTools protocol, so the page's CSP stays as
 * it is) and throws on serious or critical violations, listing each with its nodes. Checked in
 * both colour schemes: contrast differs between them.
 */
export async function checkA11y(page: Page, opts: { schemes?: ('light' | 'dark')[]; exclude?: string[] } = {}): Promise<void> {
  axeSource ??= await Bun.file(join(ROOT, 'node_modules/axe-core/axe.min.js')).text()
  const installed = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined')
  if (!installed) await page.evaluate(axeSource)
  const found: string[] = []
  for (const scheme of opts.schemes ?? ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme })
    const violations = await page.evaluate(async (exclude) => {
      const axe = (window as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<{ violations: any[] }> } }).axe
      const result = await axe.run({ exclude: exclude.map((s) => [s]) }, { resultTypes: ['violations'] })
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map(
          (v) =>
            `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n: any) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').join(' ')}`).join('\n    ')}`,
        )
    }, opts.exclude ?? [])
    for (const v of violations) found.push(`[${scheme}] ${v}`)
  }
  await page.emulateMedia({ colorScheme: 'light' })
  if (found.length) throw new Error(`accessibility violations on ${page.url()}:\n${found.join('\n')}`)
}

export interface Account {
  email: string
  password: string
}

let seq = 0
/** A new account's credentials (unique per call within a run). */
export const newAccount = (prefix = 'user'): Account => ({ email: `${prefix}${++seq}-${Date.now()}@example.test`, password: 'correct horse battery staple' })

/** Fills and sends the sign-up form at /signup (the setup token when given); lands on the dashboard. */
export async function signUpUI(page: Page, account: Account, opts: { setupToken?: string; path?: string | null } = {}): Promise<void> {
  if (opts.path !== null) await page.goto(opts.path ?? '/signup')
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByRole('button', { name: 'Create account' }).click()
  if (opts.setupToken) {
    await page.getByLabel('Setup token').fill(opts.setupToken)
    await page.getByRole('button', { name: 'Create account' }).click()
  }
  await page.waitForURL((u) => !u.pathname.startsWith('/signup') && !u.pathname.startsWith('/invite'))
}

/** Signs in through /signin (or the sign-in page the app is on); waits to leave it. */
export async function signInUI(page: Page, account: Account, opts: { goto?: boolean } = {}): Promise<void> {
  if (opts.goto !== false) await page.goto('/signin')
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password').fill(account.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((u) => u.pathname !== '/signin')
}

/** Creates an account through the API (POST /v1/auth/register), for tests about something else. */
export async function registerApi(vigil: Vigil, account: Account, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(`${vigil.base}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ ...account, ...extra }),
  })
  if (res.status !== 201) throw new Error(`register ${account.email}: ${res.status} ${await res.text()}`)
}

/** An access token for API calls a test makes beside the browser (POST /v1/auth/login). */
export async function apiToken(vigil: Vigil, account: Account): Promise<string> {
  const res = await fetch(`${vigil.base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(account),
  })
  if (!res.ok) throw new Error(`login ${account.email}: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}
