import type { ComponentType } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { describeError } from './lib/errors'
import { location, matchPath, navigate, ParamsContext } from './lib/router'
import { me, ready, isOperator, requireSignIn } from './lib/session'
import { setPageTitle } from './lib/title'
import { notFound, routes, type PageModule, type Route } from './routes'
import { TopBar } from './layout/TopBar'
import { Banner } from './ui/Banner'
import { Skeleton } from './ui/Skeleton'
import { CheckoutReturn } from './settings/CheckoutReturn'

export function resolve(path: string): { route: Route; params: Record<string, string> } {
  for (const route of routes) {
    const params = matchPath(route.path, path)
    if (params) return { route, params }
  }
  return { route: notFound, params: {} }
}

const loaded = new Map<Route, ComponentType<{ params: Record<string, string> }>>()
const RELOADED = 'vigil-chunk-reload'

/** Loads a page's chunk once. A chunk missing after an upgrade (its hash changed) reloads the page, once. */
function usePage(route: Route): { Page: ComponentType<{ params: Record<string, string> }> | null; error: unknown } {
  const [, force] = useState(0)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    setError(null)
    if (loaded.has(route) || !route.load) return
    let live = true
    route
      .load()
      .then((m: PageModule) => {
        loaded.set(route, m.default)
        sessionStorage.removeItem(RELOADED)
        if (live) force((n) => n + 1)
      })
      .catch((err) => {
        if (!sessionStorage.getItem(RELOADED)) {
          sessionStorage.setItem(RELOADED, '1')
          window.location.reload()
          return
        }
        if (live) setError(err)
      })
    return () => {
      live = false
    }
  }, [route])
  return { Page: loaded.get(route) ?? null, error }
}

/** The whole portal: the route of the current URL in its layout, behind the sign-in it needs. */
export function App() {
  const { path, search } = location.value
  const { route, params } = resolve(path)
  const signedIn = me.value !== null
  const waiting = !ready.value && (route.auth || route.operator)
  const refused = ready.value && route.operator && !isOperator.value

  useEffect(() => {
    if (route.redirect) navigate(route.redirect + search, { replace: true })
    else if (ready.value && route.auth && !signedIn) requireSignIn()
  }, [route, signedIn, ready.value])

  // During the render that shows the route (not in an effect after paint), so the tab's title never
  // lags the page; and before the page's own PageHeader, whose more precise title then wins.
  useMemo(() => setPageTitle(route.title), [route])

  const shown = refused ? notFound : route
  const bare = shown.bare || (shown === notFound && !signedIn)
  const body = waiting || route.redirect || (route.auth && !signedIn) ? <PageSkeleton /> : <PageHost route={shown} params={params} />

  if (bare) {
    return (
      <div class="auth-layout">
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="auth-brand">
          <a href="/" class="brand">
            Vigil
          </a>
        </header>
        <main id="main" tabIndex={-1}>
          {body}
        </main>
      </div>
    )
  }
  return (
    <div class="app-layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <TopBar />
      <main id="main" class="content" tabIndex={-1}>
        <CheckoutReturn />
        {body}
      </main>
    </div>
  )
}

let firstPage = true

function PageHost({ route, params }: { route: Route; params: Record<string, string> }) {
  const { Page, error } = usePage(route)
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!Page) return
    // after a navigation, focus goes to the new page's heading so a screen reader starts there
    if (firstPage) {
      firstPage = false
      return
    }
    const target = ref.current?.querySelector<HTMLElement>('h1') ?? document.getElementById('main')
    target?.focus({ preventScroll: true })
  }, [Page, route])
  if (error) {
    return (
      <Banner tone="error">
        This page could not be loaded ({describeError(error)}). <a href={window.location.href}>Reload</a> to try again.
      </Banner>
    )
  }
  if (!Page) return <PageSkeleton />
  return (
    <div ref={ref} class="page">
      <ParamsContext.Provider value={params}>
        <Page params={params} />
      </ParamsContext.Provider>
    </div>
  )
}

function PageSkeleton() {
  return (
    <div class="page">
      <Skeleton height={32} width="40%" label="Loading the page" />
      <div class="stack-gap" />
      <Skeleton lines={4} />
    </div>
  )
}
