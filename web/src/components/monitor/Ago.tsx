import { signal } from '@preact/signals'
import { useMemo } from 'preact/hooks'
import { ago, zoneTitle } from '../../lib/format'

/** The time now, every 5 s: read only by the small components that show "12 s ago". */
const clock = signal(Date.now())
let ticking = false

/**
 * "12 s ago", counting on its own: only this element re-renders as time passes, not the card or
 * header around it. Hovering shows the moment with its zone.
 */
export function Ago({ iso }: { iso: string }) {
  if (!ticking) {
    ticking = true
    setInterval(() => {
      clock.value = Date.now()
    }, 5000)
  }
  const title = useMemo(() => zoneTitle(iso), [iso])
  return (
    <time dateTime={iso} title={title}>
      {ago(iso, Math.max(clock.value, Date.now()))}
    </time>
  )
}
