import type { ComponentChildren } from 'preact'

/** A bordered section; `title` becomes its heading (h2 by default) and labels it. */
export function Card({
  title,
  actions,
  children,
  class: cls,
  level = 2,
}: {
  title?: ComponentChildren
  actions?: ComponentChildren
  children: ComponentChildren
  class?: string
  level?: 2 | 3
}) {
  const H = level === 2 ? 'h2' : 'h3'
  return (
    <section class={`card${cls ? ` ${cls}` : ''}`}>
      {(title || actions) && (
        <div class="card-head">
          {title && <H class="card-title">{title}</H>}
          {actions && <div class="card-actions">{actions}</div>}
        </div>
      )}
      {children}
    </section>
  )
}
