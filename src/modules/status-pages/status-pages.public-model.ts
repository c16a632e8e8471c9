import { Type } from '@sinclair/typebox'
import { t, type Static } from 'elysia'

/** What a visitor sees: the public page's data, the same as the HTML shows (GET /status/{slug}.json). */

export const PublicItemState = t.Union([t.Literal('up'), t.Literal('down'), t.Literal('degraded'), t.Literal('paused'), t.Literal('pending')], {
  description: 'checks as their engine reports them; devices: online → up, stale → degraded, offline → down, never reported → pending',
})
export type PublicItemState = Static<typeof PublicItemState>

export const OverallState = t.Union([
  t.Literal('operational'),
  t.Literal('degraded'),
  t.Literal('partial_outage'),
  t.Literal('major_outage'),
  t.Literal('maintenance'),
])
export type OverallState = Static<typeof OverallState>

const Iso = t.String({ format: 'date-time' })

export const PublicDay = t.Object({
  day: t.String({ description: 'YYYY-MM-DD (UTC)' }),
  uptime: t.Nullable(t.Number({ description: '0..1; null: no results that day' })),
  down_s: Type.Integer(),
})
export type PublicDay = Static<typeof PublicDay>

export const PublicItem = t.Object({
  key: t.String({ description: 'the name in badge URLs' }),
  name: t.String(),
  type: t.Union([t.Literal('check'), t.Literal('device')]),
  state: PublicItemState,
  /** since when it is down (an open incident), checks only */
  down_since: t.Nullable(Iso),
  last_checked_at: t.Nullable(Iso),
  uptime_90d: t.Nullable(t.Number({ description: 'percent over the days with results; null: none (devices)' })),
  days: t.Nullable(t.Array(PublicDay, { description: 'the last 90 UTC days, oldest first; null for devices' })),
  response_ms: t.Nullable(t.Number({ description: 'the latest response time, when the team shows response times' })),
  response_times: t.Nullable(
    t.Array(t.Tuple([t.Number(), t.Nullable(t.Number())]), { description: '[unix ms, ms] over the last 24 hours, when the team shows response times' }),
  ),
})
export type PublicItem = Static<typeof PublicItem>

export const PublicGroup = t.Object({ name: t.String(), state: PublicItemState, items: t.Array(PublicItem) })
export type PublicGroup = Static<typeof PublicGroup>

export const PublicNote = t.Object({
  kind: t.Union([t.Literal('incident'), t.Literal('maintenance')]),
  title: t.String(),
  state: t.String(),
  starts_at: Iso,
  ends_at: t.Nullable(Iso),
  closed_at: t.Nullable(Iso),
  updates: t.Array(t.Object({ state: t.String(), body: t.String(), at: Iso }), { description: 'newest first' }),
})
export type PublicNote = Static<typeof PublicNote>

export const PublicPage = t.Object({
  title: t.String(),
  description: t.String(),
  theme: t.Union([t.Literal('auto'), t.Literal('light'), t.Literal('dark')]),
  status: t.Object({ state: OverallState, text: t.String() }),
  groups: t.Array(PublicGroup),
  /** open incidents and maintenance in progress or announced */
  active_notes: t.Array(PublicNote),
  /** closed in the last 14 days */
  past_notes: t.Array(PublicNote),
  generated_at: Iso,
})
export type PublicPage = Static<typeof PublicPage>

export const BadgeQuery = t.Object({
  days: Type.Integer({ minimum: 1, maximum: 90, default: 30, description: 'the uptime badge: over how many of the last UTC days' }),
})
