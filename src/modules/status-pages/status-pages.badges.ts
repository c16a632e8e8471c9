import type { PublicItemState } from './status-pages.public-model'
import { badge, type BADGE_COLOURS } from './status-pages.svg'
import { uptimePercent, type PageItem } from './status-pages.view'

type Colour = keyof typeof BADGE_COLOURS

const STATUS: Record<PublicItemState, [string, Colour]> = {
  up: ['up', 'green'],
  down: ['down', 'red'],
  degraded: ['degraded', 'yellow'],
  paused: ['paused', 'grey'],
  pending: ['no data', 'grey'],
}

export const statusBadge = (item: PageItem) => badge(item.name, ...STATUS[item.state])

/** Uptime over the last `days` days with results; "no data" for a device or a check without any. */
export function uptimeBadge(item: PageItem, days: number): string {
  const pct = item.days ? uptimePercent(item.days.uptime, item.days.uptime.length - days) : null
  const label = `${item.name} uptime ${days}d`
  if (pct === null) return badge(label, 'no data', 'grey')
  const colour: Colour = pct >= 99.9 ? 'green' : pct >= 99 ? 'yellow' : pct >= 95 ? 'orange' : 'red'
  return badge(label, `${pct.toFixed(2)}%`, colour)
}
