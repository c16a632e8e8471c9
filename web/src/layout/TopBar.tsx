import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { firingAlerts, watchFiringAlerts } from '../lib/alerts'
import { Link, location } from '../lib/router'
import { currentMembership, isOperator } from '../lib/session'
import { Icon } from '../ui/Icon'
import { AccountMenu } from './AccountMenu'

/** A section link: current for its own path and everything under it. */
function NavLink({ href, section, children }: { href: string; section: string; children: ComponentChildren }) {
  const path = location.value.path
  const current = path === section || path.startsWith(`${section}/`)
  return (
    <Link href={href} class={`nav-link${current ? ' nav-current' : ''}`} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  )
}

/** The bar on every signed-in page; under 720 px the sections fold behind a Menu button. */
export function TopBar() {
  const [open, setOpen] = useState(false)
  const path = location.value.path
  useEffect(() => setOpen(false), [path])
  // the firing count, kept current from the live stream, for the account acted for
  const clientId = currentMembership.value?.client_id ?? null
  useEffect(() => (clientId ? watchFiringAlerts() : undefined), [clientId])
  const firing = firingAlerts.value
  return (
    <header class="topbar">
      <div class="topbar-inner">
        <Link href="/dashboard" class="brand">
          Vigil
        </Link>
        <button type="button" class="menu-toggle btn btn-ghost" aria-expanded={open} aria-controls="primary-nav" onClick={() => setOpen(!open)}>
          <Icon name={open ? 'close' : 'menu'} size={20} />
          Menu
          {firing ? <span class="count count-bad">{firing}</span> : null}
        </button>
        <nav id="primary-nav" class={`primary-nav${open ? ' open' : ''}`} aria-label="Main">
          <NavLink href="/dashboard" section="/dashboard">
            Dashboard
          </NavLink>
          <NavLink href="/checks" section="/checks">
            Checks
          </NavLink>
          <NavLink href="/alerts" section="/alerts">
            Alerts
            {firing ? (
              <span class="count count-bad">
                {firing}
                <span class="visually-hidden"> firing</span>
              </span>
            ) : null}
          </NavLink>
          <NavLink href="/containers" section="/containers">
            Containers
          </NavLink>
          <NavLink href="/recommendations" section="/recommendations">
            Recommendations
          </NavLink>
          <NavLink href="/settings/keys" section="/settings">
            Settings
          </NavLink>
          {isOperator.value && (
            <NavLink href="/admin" section="/admin">
              Operator
            </NavLink>
          )}
        </nav>
        <AccountMenu />
      </div>
    </header>
  )
}
