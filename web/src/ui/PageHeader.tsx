import type { ComponentChildren } from 'preact'
import { useLayoutEffect } from 'preact/hooks'
import { setPageTitle } from '../lib/title'

/** The page's h1 (and the browser tab's title), with its actions on the right. */
export function PageHeader({
  title,
  subtitle,
  actions,
  docTitle,
}: {
  title: ComponentChildren
  subtitle?: ComponentChildren
  actions?: ComponentChildren
  docTitle?: string
}) {
  const text = docTitle ?? (typeof title === 'string' ? title : null)
  // in the same commit as the heading (not after paint), so the tab's title never lags the page shown
  useLayoutEffect(() => {
    if (text) setPageTitle(text)
  }, [text])
  return (
    <div class="page-header">
      <div>
        <h1 tabIndex={-1}>{title}</h1>
        {subtitle && <p class="page-subtitle">{subtitle}</p>}
      </div>
      {actions && <div class="page-actions">{actions}</div>}
    </div>
  )
}
