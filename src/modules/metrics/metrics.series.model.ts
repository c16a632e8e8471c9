import { t, type Static } from 'elysia'

/** Chart-ready series of one device: GET /v1/metrics/series/{device_id}. */

export const RESOLUTIONS = ['auto', 'raw', '1m', '10m', '1h', '1d'] as const
export type Resolution = (typeof RESOLUTIONS)[number]

export const SeriesQuery = t.Object({
  kind: t.Union([t.Literal('hardware'), t.Literal('network')]),
  fields: t.String({
    minLength: 1,
    maxLength: 1000,
    description:
      'comma list of hot numeric fields (cpu_percent, ram_percent, download_mbps, …) and nested families ' +
      '(hardware: cpu_per_core, disk_partitions, disk_io, temperatures, fans, gpus; network: wifi, interfaces)',
  }),
  start: t.Optional(t.String({ format: 'date-time', description: 'default: one hour before end' })),
  end: t.Optional(t.String({ format: 'date-time', description: 'default: now' })),
  resolution: t.Union(
    RESOLUTIONS.map((r) => t.Literal(r)),
    { default: 'auto', description: 'auto: the coarsest level that still gives about 300 points over the range' },
  ),
})

const column = t.Record(t.String(), t.Array(t.Nullable(t.Number())))

export const SeriesResponse = t.Object({
  device_id: t.String(),
  kind: t.Union([t.Literal('hardware'), t.Literal('network')]),
  /** the level that answered: raw samples or a rollup tier */
  resolution: t.Union([t.Literal('raw'), t.Literal('1m'), t.Literal('10m'), t.Literal('1h'), t.Literal('1d')]),
  /** the bucket width; at raw, the device's reporting interval (0 when it has sent fewer than two samples) */
  step_seconds: t.Number(),
  start: t.String({ format: 'date-time' }),
  end: t.String({ format: 'date-time' }),
  /** unix seconds: each bucket's start (at raw, each sample's time), oldest first */
  t: t.Array(t.Number()),
  /** per series one value per t: the bucket's average (at raw, the sample); null marks a gap or a bucket without the field */
  values: column,
  /** per series the bucket's minimum and maximum (empty objects at raw) */
  min: column,
  max: column,
  /**
   * the oldest raw sample of this device and kind: nested families are read from raw samples,
   * so they have no data before it (raw retention). Null when none is stored.
   */
  raw_from: t.Nullable(t.String({ format: 'date-time' })),
})

export type SeriesQuery = Static<typeof SeriesQuery>
export type SeriesResponse = Static<typeof SeriesResponse>
