import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'

/**
 * The summary of a device's metrics over the last N hours: the response of
 * GET /v1/metrics/summary/{device_id} and the input of the recommendation engine.
 */
export const FieldStats = t.Object({
  avg: t.Nullable(t.Number({ description: 'the mean over the window, never outside min and max (a reading that never changed averages to exactly it)' })),
  min: t.Nullable(t.Number()),
  max: t.Nullable(t.Number()),
  p95: t.Nullable(t.Number({ description: "raw samples' p95 up to 1 h; longer windows take it over the rollup tier's bucket averages" })),
  last: t.Nullable(t.Number({ description: 'the newest value sent in the window, whichever tier answered the rest' })),
})

export const SummarySection = t.Object({
  samples: Type.Integer(),
  first_at: t.Nullable(t.String({ format: 'date-time' })),
  last_at: t.Nullable(t.String({ format: 'date-time' })),
  /** one entry per numeric metric field that had at least one value in the window */
  fields: t.Record(t.String(), FieldStats),
})

export const NetworkSummarySection = t.Composite([
  SummarySection,
  t.Object({
    /** growth of the interface byte counters over the window (counter resets handled) */
    bytes_sent_delta: t.Nullable(t.Number()),
    bytes_recv_delta: t.Nullable(t.Number()),
  }),
])

export const MetricsSummary = t.Object({
  device_id: t.String(),
  hours: Type.Integer(),
  from: t.String({ format: 'date-time' }),
  to: t.String({ format: 'date-time' }),
  /** which storage tier answered: raw samples or a rollup tier */
  resolution: t.String(),
  hardware: SummarySection,
  network: NetworkSummarySection,
})

export type FieldStats = Static<typeof FieldStats>
export type MetricsSummary = Static<typeof MetricsSummary>
