import type { ComponentChildren } from 'preact'
import { Icon, type IconName } from './Icon'

/** Nothing to show yet, and the next step to take ("No devices yet: add one"). */
export function EmptyState({
  title,
  children,
  action,
  icon = 'info',
}: {
  title: string
  children?: ComponentChildren
  action?: ComponentChildren
  icon?: IconName
}) {
  return (
    <div class="empty">
      <Icon name={icon} size={28} />
      <p class="empty-title">{title}</p>
      {children && <div class="empty-body">{children}</div>}
      {action && <div class="empty-action">{action}</div>}
    </div>
  )
}
