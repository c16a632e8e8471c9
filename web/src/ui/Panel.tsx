import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

/**
 * A section opened by a button further down the page (an edit form, a log): brought into view
 * and focused when it opens, so a keyboard or screen-reader user lands in it.
 */
export function Panel({ children, label }: { children: ComponentChildren; label: string }) {
  const ref = useRef<HTMLElement>(null)
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'nearest' })
    ref.current?.focus({ preventScroll: true })
  }, [label])
  return (
    <section ref={ref} tabIndex={-1} class="panel" aria-label={label}>
      {children}
    </section>
  )
}
