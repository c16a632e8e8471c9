import { Link, location } from '../lib/router'

/** Sections of a page as links (each its own URL, so a tab can be shared and the back button works). */
export function Tabs({ items, label }: { items: { href: string; label: string }[]; label: string }) {
  const path = location.value.path
  return (
    <nav class="tabs" aria-label={label}>
      {items.map((t) => (
        <Link key={t.href} href={t.href} class={`tab${path === t.href.split('?')[0] ? ' tab-current' : ''}`}>
          {t.label}
        </Link>
      ))}
    </nav>
  )
}
