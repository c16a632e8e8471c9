import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import {
  apiToken,
  checkA11y,
  DESKTOP,
  describeBrowser,
  launchBrowser,
  newAccount,
  openPage,
  PHONE,
  registerApi,
  shoot,
  signInUI,
  signUpUI,
  startVigil,
  type Account,
  type Vigil,
} from './helpers'

// page.evaluate callbacks run in the browser (this program has no DOM types)
declare const document: any, window: any

/** a browser step takes seconds, not the default 5 */
const STEP = 60_000

/**
 * The portal's own pages and its session, in a real browser against dist/vigil. The server listens
 * beyond loopback (so the first registration needs the setup token, as on a real install) with
 * open sign-up (so later tests make their own accounts).
 */
describeBrowser('portal: accounts and the session', () => {
  let vigil: Vigil
  let browser: Browser
  const operator = newAccount('operator')
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    vigil = await startVigil({ VIGIL_HOST: '0.0.0.0', VIGIL_SIGNUP: 'open' })
    browser = await launchBrowser()
  }, 180_000) // may rebuild dist/vigil first
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {})
    await browser?.close()
    await vigil?.stop()
  }, 60_000)

  async function fresh(path = '/') {
    const opened = await openPage(browser, vigil, path)
    contexts.push(opened.context)
    return opened
  }

  const accountButton = (page: Page) => page.locator('.account-button')
  const setupToken = () => /vst_[A-Za-z0-9_-]+/.exec(vigil.logs())?.[0]
  let operatorExists = false
  /** Later tests need the operator to exist (run alone, they make it through the API). */
  async function account(extra: Record<string, unknown> = {}, prefix = 'user'): Promise<Account> {
    if (!operatorExists) {
      await registerApi(vigil, operator, {}, { 'x-setup-token': setupToken()! })
      operatorExists = true
    }
    const a = newAccount(prefix)
    await registerApi(vigil, a, extra)
    return a
  }

  /**
   * A page whose GET /health answer passes through `patch` first: the hub's own answer, with a
   * field set or removed, to show the form both as an older hub (no setup_token_required) and as
   * one that says it.
   */
  async function freshWithHealth(path: string, patch: (body: Record<string, unknown>) => void) {
    const context = await browser.newContext({ baseURL: vigil.base, viewport: DESKTOP, colorScheme: 'light' })
    await context.route('**/health', async (route) => {
      const res = await route.fetch()
      const body = (await res.json()) as Record<string, unknown>
      patch(body)
      await route.fulfill({ response: res, json: body })
    })
    const opened = await openPage(browser, vigil, path, { context })
    contexts.push(context)
    return opened
  }

  const LOG_LINE = 'no operator yet: the first registration needs the setup token vst_…'

  test(
    'first run on a hub whose /health does not say it: the form asks for the setup token after the server wants it',
    async () => {
      const { page, problems } = await freshWithHealth('/signup', (body) => delete body.setup_token_required)
      await page.getByLabel('Email').waitFor()
      expect(await page.getByLabel('Setup token').count()).toBe(0)
      await page.getByLabel('Email').fill(operator.email)
      await page.getByLabel('Password', { exact: true }).fill(operator.password)
      await page.getByRole('button', { name: 'Create account' }).click()
      // the server wants the setup token: the form asks for it, explained, and the cursor is there
      const tokenField = page.getByLabel('Setup token')
      await tokenField.waitFor()
      expect(await tokenField.evaluate((el) => el === document.activeElement)).toBe(true)
      await page.getByText(LOG_LINE).waitFor()
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'first run: /health says the setup token is needed, so the sign-up form asks for it from the start, quoting the hub’s log line',
    async () => {
      // the hub's own answer; a hub that does not send the field yet is made to say what it means here (no operator, listening beyond loopback)
      const { page, problems } = await freshWithHealth('/signup', (body) => {
        body.setup_token_required ??= true
      })
      const tokenField = page.getByLabel('Setup token')
      await tokenField.waitFor()
      await page.getByText('it becomes this instance’s operator').waitFor()
      // the sentence quotes the hub's log line as the hub writes it
      const logged = /no operator yet: the first registration needs the setup token vst_/.exec(vigil.logs())?.[0]
      expect(logged).toBeDefined()
      expect(LOG_LINE.startsWith(logged!)).toBe(true)
      await page.getByText(LOG_LINE).waitFor()
      await checkA11y(page)
      await shoot(page, 'signup-setup-token')

      await page.getByLabel('Email').fill(operator.email)
      await page.getByLabel('Password', { exact: true }).fill(operator.password)
      const token = setupToken()
      expect(token).toBeDefined()
      await tokenField.fill('vst_wrong')
      await page.getByRole('button', { name: 'Create account' }).click()
      await page.locator('#field-setup_token-error').getByText('Wrong setup token').waitFor()
      await tokenField.fill(token!)
      await page.getByRole('button', { name: 'Create account' }).click()
      await page.waitForURL('**/dashboard')
      operatorExists = true
      // the first account is the operator: the bar offers the Operator section
      await page.getByRole('link', { name: 'Operator' }).waitFor()
      expect(await accountButton(page).textContent()).toContain(operator.email)
      await checkA11y(page)
      await shoot(page, 'dashboard-placeholder')
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'a next= naming another site, however it is spelled, lands on the dashboard after sign-in or sign-up',
    async () => {
      const user = await account()
      const here = new URL(vigil.base).host
      const { page, problems } = await fresh('/signin?next=%2F%09%2Fevil.example%2Fphish')
      await signInUI(page, user, { goto: false })
      expect(new URL(page.url()).host).toBe(here)
      expect(new URL(page.url()).pathname).toBe('/dashboard')
      await accountButton(page).waitFor()
      // signed in, the sign-in page forwards to its next= at once
      for (const next of ['%2F%0A%2Fevil.example%2Fphish', '%2F%0D%2Fevil.example%2Fphish', '%2F%5Cevil.example', 'https%3A%2F%2Fevil.example%2F']) {
        await page.goto(`/signin?next=${next}`)
        await page.waitForURL((u) => u.pathname === '/dashboard')
        expect(new URL(page.url()).host).toBe(here)
      }
      // a path of this site is still honoured
      await page.goto('/signin?next=%2Falerts')
      await page.waitForURL((u) => u.pathname === '/alerts')

      const other = await fresh('/signup?next=%2F%0A%2Fevil.example%2Fphish')
      await signUpUI(other.page, newAccount(), { path: null })
      expect(new URL(other.page.url()).host).toBe(here)
      expect(new URL(other.page.url()).pathname).toBe('/dashboard')
      expect([...problems, ...other.problems]).toEqual([])
    },
    STEP,
  )

  test(
    'sign in: wrong password and malformed email are explained; a reload keeps the session; sign out ends it',
    async () => {
      const user = await account()
      const { page, problems } = await fresh('/signin')
      await checkA11y(page)
      await shoot(page, 'signin')

      await page.getByLabel('Email').fill('not-an-email')
      await page.getByLabel('Password').fill('whatever')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByText('Enter a valid email address.').waitFor()
      expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true')

      await page.getByLabel('Email').fill(user.email)
      await page.getByLabel('Password').fill('wrong password')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('alert').filter({ hasText: 'do not match' }).waitFor()
      await shoot(page, 'signin-error')

      await signInUI(page, user, { goto: false })
      expect(new URL(page.url()).pathname).toBe('/dashboard')
      expect(await accountButton(page).textContent()).toContain(user.email)
      // not the operator: no Operator section
      expect(await page.getByRole('link', { name: 'Operator' }).count()).toBe(0)

      // the access token lived in memory only; the cookie brings the session back
      await page.reload()
      await accountButton(page).waitFor()
      expect(new URL(page.url()).pathname).toBe('/dashboard')
      const cookies = await page.context().cookies()
      const session = cookies.find((c) => c.name === 'vigil_session')
      expect(session?.httpOnly).toBe(true)
      expect(session?.sameSite).toBe('Strict')
      expect(await page.evaluate(() => document.cookie)).not.toContain('vigil_session')

      await accountButton(page).click()
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL('**/signin')
      await page.goto('/dashboard')
      await page.waitForURL((u) => u.pathname === '/signin' && u.searchParams.get('next') === '/dashboard')
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'a session that ends mid-use asks to sign in again and comes back to the same page',
    async () => {
      const user = await account()
      const { page, context, problems } = await fresh('/signin')
      await signInUI(page, user, { goto: false })
      await page.goto('/dashboard')
      await accountButton(page).waitFor()

      // the session is revoked behind the page's back (as an expiry or a sign-out elsewhere would)
      const cookie = (await context.cookies()).find((c) => c.name === 'vigil_session')!
      const revoked = await fetch(`${vigil.base}/v1/auth/session`, { method: 'DELETE', headers: { cookie: `vigil_session=${cookie.value}` } })
      expect(revoked.status).toBe(204)

      // The next request is refused, the refresh too: sign in, then back where we were. Either the
      // person's next step finds it out (opening the password page), or the dashboard's own live
      // stream does first (it checks the session at each ping) and sends to sign-in from there.
      const onSignin = (u: URL) => u.pathname === '/signin'
      const next = await Promise.any([
        page.waitForURL(onSignin, { timeout: 40_000 }).then(() => new URL(page.url()).searchParams.get('next')),
        (async () => {
          await accountButton(page).click({ timeout: 20_000 })
          await page.getByRole('link', { name: 'Change password' }).click({ timeout: 20_000 })
          await page.waitForURL(onSignin)
          return new URL(page.url()).searchParams.get('next')
        })(),
      ])
      expect(['/settings/account', '/dashboard']).toContain(next!)
      await page.getByText('Your session ended').waitFor()
      await signInUI(page, user, { goto: false })
      expect(new URL(page.url()).pathname).toBe(next!)
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'password change: wrong current password and a mismatch are marked; the new one works, the old one not',
    async () => {
      const user = await account()
      const { page, problems } = await fresh('/signin')
      await signInUI(page, user, { goto: false })
      await page.goto('/settings/account')
      await page.getByLabel('Current password').waitFor()
      await checkA11y(page)
      await shoot(page, 'account')

      const next = 'a much better passphrase'
      await page.getByLabel('Current password').fill('not my password')
      await page.getByLabel('New password', { exact: true }).fill(next)
      await page.getByLabel('New password again').fill(next)
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByText('The current password is not right.').first().waitFor()
      expect(await page.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true')

      await page.getByLabel('Current password').fill(user.password)
      await page.getByLabel('New password again').fill('something else entirely')
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByText('Type the same new password twice').waitFor()

      await page.getByLabel('New password again').fill(next)
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByText('Password changed.').waitFor()

      const old = await fetch(`${vigil.base}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(user) })
      expect(old.status).toBe(401)
      await apiToken(vigil, { email: user.email, password: next })
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'an invitation link: a new person creates their account and joins; a signed-in one accepts',
    async () => {
      const owner = await account({ company: 'Acme' }, 'owner')
      const token = await apiToken(vigil, owner)
      const invite = async (email: string) => {
        const res = await fetch(`${vigil.base}/v1/clients/me/members`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ email, role: 'member' }),
        })
        expect(res.status).toBe(201)
        return ((await res.json()) as { invitation_token: string }).invitation_token
      }

      // someone new
      const newcomer = newAccount('newcomer')
      const first = await invite(newcomer.email)
      const { page, problems } = await fresh(`/invite/${first}`)
      await page.getByRole('heading', { name: 'Join an account' }).waitFor()
      await checkA11y(page)
      await shoot(page, 'invite-new')
      await signUpUI(page, newcomer, { path: null })
      expect(new URL(page.url()).pathname).toBe('/dashboard')
      await accountButton(page).click()
      await page.getByText('Acme').first().waitFor()

      // someone with an account of their own, signed in
      const existing: Account = await account({ company: 'Elsewhere' }, 'existing')
      const second = await invite(existing.email)
      const other = await fresh('/signin')
      await signInUI(other.page, existing, { goto: false })
      await other.page.goto(`/invite/${second}`)
      await other.page.getByRole('button', { name: 'Accept invitation' }).click()
      await other.page.waitForURL('**/dashboard')
      await accountButton(other.page).click()
      await other.page.getByText('Acme').first().waitFor()
      expect([...problems, ...other.problems]).toEqual([])
    },
    STEP,
  )

  test(
    'an unknown page says so; on a phone the sections fold into a menu; the theme switch sticks',
    async () => {
      const user = await account()
      const { page, problems } = await fresh('/signin')
      await signInUI(page, user, { goto: false })

      await page.goto('/no/such/page')
      await page.getByRole('heading', { name: 'Page not found' }).waitFor()
      expect(await page.title()).toBe('Page not found · Vigil')
      await checkA11y(page)
      await shoot(page, 'not-found')

      await page.setViewportSize(PHONE)
      const nav = page.getByRole('navigation', { name: 'Main' })
      expect(await nav.isVisible()).toBe(false)
      await page.getByRole('button', { name: 'Menu' }).click()
      await nav.waitFor({ state: 'visible' })
      await page.getByRole('link', { name: 'Recommendations' }).click()
      await page.waitForURL('**/recommendations')
      // the menu folds as the new page renders, which may come a moment after the URL
      await nav.waitFor({ state: 'hidden' })
      await shoot(page, 'phone-menu-closed')

      await accountButton(page).click()
      await checkA11y(page)
      await shoot(page, 'account-menu')
      await page.getByRole('button', { name: 'Dark' }).click()
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
      await page.reload()
      await accountButton(page).waitFor()
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
      expect(problems).toEqual([])
    },
    STEP,
  )

  test(
    'the icon: /favicon.ico answers an SVG cached like the other assets, and the portal and the landing page point at it',
    async () => {
      const icon = await fetch(`${vigil.base}/favicon.ico`)
      expect(icon.status).toBe(200)
      expect(icon.headers.get('content-type')).toBe('image/svg+xml')
      expect(await icon.text()).toStartWith('<svg')
      const css = await fetch(`${vigil.base}/assets/site.css`)
      expect(icon.headers.get('cache-control')).toBe(css.headers.get('cache-control'))
      for (const path of ['/signin', '/']) {
        const { page, problems } = await fresh(path)
        const href = await page.locator('link[rel="icon"]').getAttribute('href')
        expect(href).toBe('/favicon.ico')
        // the browser loads it without a fault (the portal's CSP allows this origin's images)
        const loaded = await page.evaluate(
          () =>
            new Promise((resolve) => {
              const img = new (window as any).Image()
              img.onload = () => resolve(img.naturalWidth > 0)
              img.onerror = () => resolve(false)
              img.src = '/favicon.ico'
            }),
        )
        expect(loaded).toBe(true)
        expect(problems).toEqual([])
      }
    },
    STEP,
  )

  test(
    'the skip link leads to the content, and the page titles follow the route',
    async () => {
      const user = await account()
      const { page } = await fresh('/signin')
      await signInUI(page, user, { goto: false })
      await page.goto('/settings/account')
      await page.getByLabel('Current password').waitFor()
      expect(await page.title()).toBe('Your account · Vigil')
      await page.keyboard.press('Tab')
      const skip = page.getByRole('link', { name: 'Skip to content' })
      expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true)
      await page.keyboard.press('Enter')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main')
      await page.getByRole('link', { name: 'Dashboard' }).click()
      await page.waitForURL('**/dashboard')
      // the URL changes at the click, the page a render later: the title comes with the page's heading
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
      expect(await page.title()).toBe('Dashboard · Vigil')
      await page.goBack() // to /settings/account#main, where the skip link had gone
      await page.waitForFunction(() => document.location.pathname === '/settings/account')
      await page.getByLabel('Current password').waitFor()
      expect(await page.title()).toBe('Your account · Vigil')
    },
    STEP,
  )
})
