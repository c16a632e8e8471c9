import { daysJson } from './status-pages.days'
import type { PageData, PageItem } from './status-pages.view'

const q = JSON.stringify

/** An item as JSON.stringify writes a PublicItem, its days from the kept past days and today's. */
function itemJson(i: PageItem): string {
  return (
    `{"key":${q(i.key)},"name":${q(i.name)},"type":${q(i.type)},"state":${q(i.state)},"down_since":${q(i.down_since)},` +
    `"last_checked_at":${q(i.last_checked_at)},"uptime_90d":${q(i.uptime_90d)},"days":${i.days ? daysJson(i.days) : 'null'},` +
    `"response_ms":${q(i.response_ms)},"response_times":${q(i.response_times)}}`
  )
}

/**
 * The page's JSON (GET /status/{slug}.json): the PublicPage, byte for byte what JSON.stringify
 * makes of it (keys in the schema's order), written in one pass without an object per day.
 */
export function renderJson(view: PageData): string {
  let groups = ''
  for (const g of view.groups) {
    if (groups) groups += ','
    groups += `{"name":${q(g.name)},"state":${q(g.state)},"items":[${g.items.map(itemJson).join(',')}]}`
  }
  return (
    `{"title":${q(view.title)},"description":${q(view.description)},"theme":${q(view.theme)},"status":${q(view.status)},` +
    `"groups":[${groups}],"active_notes":${q(view.active_notes)},"past_notes":${q(view.past_notes)},"generated_at":${q(view.generated_at)}}`
  )
}
