import type { ComponentChildren } from 'preact'
import { Icon, type IconName } from './Icon'

const ICONS: Record<string, IconName> = { error: 'x-circle', warning: 'warning', success: 'check-circle', info: 'info' }

/** A message across the content: what happened and what to do. Errors are announced (role=alert). */
export function Banner({
  tone = 'info',
  children,
  focusable,
}: {
  tone?: 'info' | 'success' | 'warning' | 'error'
  children: ComponentChildren
  focusable?: boolean
}) {
  return (
    <div class={`banner banner-${tone}`} role={tone === 'error' ? 'alert' : 'status'} tabIndex={focusable ? -1 : undefined}>
      <Icon name={ICONS[tone]!} size={18} />
      <div>{children}</div>
    </div>
  )
}
