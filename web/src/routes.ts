import type { ComponentType } from 'preact'

/** A page module: its default export gets the route's parameters (':id' → params.id, a trailing '*' → params['*']). */
export type PageModule = { default: ComponentType<{ params: Record<string, string> }> }

export interface Route {
  path: string
  /** the page's own chunk: loaded on first visit (code split per page) */
  load?: () => Promise<PageModule>
  /** another URL this one stands for (kept with its query) */
  redirect?: string
  /** only for a signed-in user (else to /signin?next=…) */
  auth?: boolean
  /** only for the instance's operator (else the not-found page) */
  operator?: boolean
  /** the browser tab's title until the page sets its own */
  title: string
  /** shown without the top bar (sign-in, sign-up) */
  bare?: boolean
}

/**
 * Every URL of the portal, first match wins (so '/devices/new' before '/devices/:id'). Each page
 * lives in web/src/<domain>/pages/<name>.tsx. Keep src/http/portal.ts's PORTAL_ROUTE in step: it answers
 * these paths 200 and others 404 (with this app's not-found page).
 */
export const routes: Route[] = [
  { path: '/signin', load: () => import('./auth/pages/signin'), title: 'Sign in', bare: true },
  { path: '/signup', load: () => import('./auth/pages/signup'), title: 'Create an account', bare: true },
  { path: '/invite/:token', load: () => import('./auth/pages/invite'), title: 'Invitation', bare: true },
  { path: '/dashboard', load: () => import('./devices/pages/dashboard'), auth: true, title: 'Dashboard' },
  { path: '/devices/new', load: () => import('./devices/pages/add-device'), auth: true, title: 'Add a device' },
  { path: '/devices/:id', load: () => import('./devices/pages/device'), auth: true, title: 'Device' },
  { path: '/devices', redirect: '/dashboard', title: 'Devices' },
  { path: '/containers', load: () => import('./containers/pages/containers'), auth: true, title: 'Containers' },
  { path: '/checks', load: () => import('./checks/pages/checks'), auth: true, title: 'Checks' },
  { path: '/checks/new', load: () => import('./checks/pages/check-edit'), auth: true, title: 'Add a check' },
  { path: '/checks/status-pages', load: () => import('./checks/pages/status-pages'), auth: true, title: 'Status pages' },
  { path: '/checks/status-pages/:id', load: () => import('./checks/pages/status-page'), auth: true, title: 'Status page' },
  { path: '/checks/:id/edit', load: () => import('./checks/pages/check-edit'), auth: true, title: 'Edit the check' },
  { path: '/checks/:id', load: () => import('./checks/pages/check'), auth: true, title: 'Check' },
  { path: '/recommendations', load: () => import('./devices/pages/recommendations'), auth: true, title: 'Recommendations' },
  { path: '/alerts', load: () => import('./alerts/pages/alerts'), auth: true, title: 'Alerts' },
  { path: '/alerts/rules', load: () => import('./alerts/pages/alert-rules'), auth: true, title: 'Alert rules' },
  { path: '/alerts/rules/new', load: () => import('./alerts/pages/alert-rule'), auth: true, title: 'New alert rule' },
  { path: '/alerts/rules/:id', load: () => import('./alerts/pages/alert-rule'), auth: true, title: 'Alert rule' },
  { path: '/alerts/silences', load: () => import('./alerts/pages/alert-silences'), auth: true, title: 'Silences' },
  { path: '/alerts/:id', load: () => import('./alerts/pages/alert'), auth: true, title: 'Alert' },
  { path: '/settings', redirect: '/settings/keys', title: 'Settings' },
  { path: '/settings/keys', load: () => import('./settings/pages/keys'), auth: true, title: 'API keys' },
  { path: '/settings/members', load: () => import('./settings/pages/members'), auth: true, title: 'Members' },
  { path: '/settings/billing', load: () => import('./settings/pages/billing'), auth: true, title: 'Billing' },
  { path: '/settings/ai', load: () => import('./settings/pages/ai'), auth: true, title: 'AI' },
  { path: '/settings/account', load: () => import('./settings/pages/account'), auth: true, title: 'Your account' },
  { path: '/settings/channels', load: () => import('./alerts/pages/channels'), auth: true, title: 'Notification channels' },
  { path: '/settings/webhooks', load: () => import('./alerts/pages/webhooks'), auth: true, title: 'Webhooks' },
  { path: '/pricing', load: () => import('./settings/pages/pricing'), title: 'Pricing' },
  { path: '/admin', load: () => import('./settings/pages/admin'), auth: true, operator: true, title: 'Operator' },
]

/** Where an unknown URL lands (the server answered it 404). */
export const notFound: Route = { path: '*', load: () => import('./layout/not-found'), title: 'Page not found' }
