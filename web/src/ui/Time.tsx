import { ago, dateTime, zoneTitle } from '../lib/format'

/** A moment in the browser's zone (or "12 s ago" with `relative`); hovering shows the zone and UTC. */
export function Time({ iso, relative }: { iso: string | null | undefined; relative?: boolean }) {
  if (!iso) return <span>—</span>
  return (
    <time dateTime={iso} title={zoneTitle(iso)}>
      {relative ? ago(iso) : dateTime(iso)}
    </time>
  )
}
