import { createContext, h, type AnchorHTMLAttributes, type ComponentChildren, type TargetedMouseEvent } from 'preact'
import { useContext } from 'preact/hooks'
import { signal } from '@preact/signals'

export { matchPath, safeNext } from './match'

/**
 * History-API routing. The URL is the state a person shares or reloads: the path picks the page,
 * the query holds the page's own state (range, zoom, sort, filter) through useSearch/setSearch.
 */

export interface Location {
  path: string
  search: string
}

const read = (): Location => ({ path: window.location.pathname, search: window.location.search })

/** The current location; reading it in a component re-renders that component when it changes. */
export const location = signal<Location>(read())

window.addEventListener('popstate', () => {
  location.value = read()
})

export interface NavigateOptions {
  replace?: boolean
}

/** Goes to a URL of this origin (path with optional ?query and #hash) without reloading. */
export function navigate(to: string, opts: NavigateOptions = {}): void {
  const target = new URL(to, window.location.href)
  if (target.origin !== window.location.origin) {
    window.location.assign(target.href)
    return
  }
  const href = target.pathname + target.search + target.hash
  if (href === window.location.pathname + window.location.search + window.location.hash) return
  if (opts.replace) window.history.replaceState(null, '', href)
  else window.history.pushState(null, '', href)
  location.value = read()
  if (!opts.replace && !target.hash) window.scrollTo(0, 0)
}

/** This page's path and query, as `next=` takes it. */
export const currentHref = () => window.location.pathname + window.location.search

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; replace?: boolean; children?: ComponentChildren }

/** An anchor that navigates in place (a modified click or a middle click still opens a new tab). */
export function Link({ href, replace, onClick, ...rest }: LinkProps) {
  const click = (e: TargetedMouseEvent<HTMLAnchorElement>) => {
    onClick?.(e)
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    if (rest.target && rest.target !== '_self') return
    e.preventDefault()
    navigate(href, { replace })
  }
  const current = location.value.path === href.split('?')[0] ? 'page' : undefined
  return h('a', { href, onClick: click, 'aria-current': current, ...rest })
}

/** The matched route's parameters, given to the page by the app (useParams inside a page). */
export const ParamsContext = createContext<Record<string, string>>({})
export const useParams = () => useContext(ParamsContext)

/** The query of the current URL, re-read when it changes. */
export function useSearch(): URLSearchParams {
  return new URLSearchParams(location.value.search)
}

/**
 * Changes some query parameters and keeps the others (null or '' removes one). Defaults to
 * replace: state such as a zoom should not fill the back button's history; pass {replace: false}
 * for a change the back button should undo (a tab, a filter).
 */
export function setSearch(patch: Record<string, string | number | null | undefined>, opts: NavigateOptions = { replace: true }): void {
  const q = new URLSearchParams(window.location.search)
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || v === undefined || v === '') q.delete(k)
    else q.set(k, String(v))
  }
  const s = q.toString()
  navigate(`${window.location.pathname}${s ? `?${s}` : ''}${window.location.hash}`, { replace: opts.replace ?? true })
}
