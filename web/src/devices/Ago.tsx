import { signal } from '@preact/signals'
import { useMemo } from 'preact/hooks'
import { ago, zoneTitle } from '../lib/format'
import { StatusBadge } from '../ui'
import { nowFor, presenceStatus } from './presence'

/** The time now, every 5 s: read only by the small components that show "12 s ago" and the status beside it. */
const clock = signal(Date.now())
let ticking = false

function tick(): number {
  if (!ticking) {
    ticking = true
    clock.value = Date.now()
    setInterval(() => {
      clock.value = Date.now()
    }, 5000)
  }
  return clock.value
}

/**
 * "12 s ago", counting on its own: only this element re-renders as time passes, not the card or
 * header around it. Hovering shows the moment with its zone.
 */
export function Ago({ iso }: { iso: string }) {
  const now = nowFor(tick(), iso)
  const title = useMemo(() => zoneTitle(iso), [iso])
  return (
    <time dateTime={iso} title={title}>
      {ago(iso, now)}
    </time>
  )
}

/** The device's status badge, from the same report and the same clock as the Ago beside it. */
export function PresenceBadge({ lastSeen, intervalSeconds }: { lastSeen: string | null; intervalSeconds: number | null }) {
  return <StatusBadge status={presenceStatus(lastSeen, intervalSeconds, nowFor(tick(), lastSeen))} />
}
