import { t, type Static, type TSchema } from 'elysia'
import { Type, type TLiteral, type TUnion } from '@sinclair/typebox'

/** null first: a wrong type is then reported against the real type ("Expected number"), not null */
const nullable = <T extends TSchema>(s: T) => t.Union([t.Null(), s])
const num = () => nullable(t.Number())
const int = () => nullable(Type.Integer())
const date = () => nullable(t.String({ format: 'date-time' }))
/**
 * A set of words: a union of string literals, as the query reader takes it. Not t.UnionEnum,
 * which gives its first word as a default: a default anywhere in the ingest body's schema makes
 * every body walk TypeBox's default filler (half the cost of a batch with containers).
 */
export const words = <const L extends readonly string[]>(list: L, opts: object = {}) =>
  t.Union(
    list.map((w) => t.Literal(w)),
    opts,
  ) as unknown as TUnion<{ -readonly [K in keyof L]: TLiteral<L[K]> }>

export const CONTAINER_STATES = ['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead'] as const
/** the states the hub shows: the engine's, and `gone` */
export const SHOWN_STATES = [...CONTAINER_STATES, 'gone'] as const
export const HEALTHS = ['healthy', 'unhealthy', 'starting', 'none'] as const
export const ENGINE_KINDS = ['docker', 'podman', 'cgroup'] as const
export type ContainerState = (typeof CONTAINER_STATES)[number]
export type Health = (typeof HEALTHS)[number]

/** Containers one block may list, and labels one container may carry (the agent sends a configured subset). */
export const MAX_CONTAINERS = 500
export const MAX_LABELS = 32

/** One container as the collector saw it (the wire shape of the batch's `containers.items`). */
export const ContainerIn = t.Object({
  id: t.String({ minLength: 1, maxLength: 128, description: 'the engine’s full container id' }),
  name: t.String({ minLength: 1, maxLength: 255, description: 'without the leading "/"' }),
  image: t.String({ maxLength: 512 }),
  // a key's bound is a pattern: TypeBox drops a key schema's maxLength (any key would match)
  labels: t.Record(t.String({ pattern: '^[\\s\\S]{1,128}$' }), t.String({ maxLength: 512 }), { maxProperties: MAX_LABELS, additionalProperties: false }),
  state: words(CONTAINER_STATES),
  health: words(HEALTHS),
  exit_code: int(),
  oom_killed: t.Boolean(),
  restart_count: Type.Integer({ minimum: 0 }),
  started_at: date(),
  finished_at: date(),
  cpu_percent: num(),
  memory_used_bytes: num(),
  memory_limit_bytes: num(),
  net_rx_bytes_per_sec: num(),
  net_tx_bytes_per_sec: num(),
  block_read_bytes_per_sec: num(),
  block_write_bytes_per_sec: num(),
  pids: int(),
})

export const EngineIn = t.Object({
  kind: words(ENGINE_KINDS),
  version: t.String({ maxLength: 64 }),
  api_version: nullable(t.String({ maxLength: 16 })),
})

/** The batch's `containers` key: what the collector saw of its container engine at the batch's time. */
export const ContainersBlock = t.Object(
  {
    engine: nullable(EngineIn),
    unavailable_reason: nullable(t.String({ maxLength: 500 })),
    memory_accounting: t.Boolean({ description: 'false when the kernel has no cgroup memory accounting: memory figures are null, never 0' }),
    items: t.Array(ContainerIn, { maxItems: MAX_CONTAINERS }),
  },
  { description: 'the containers of the device at the batch’s time (Docker or Podman); see docs/containers.md' },
)

export type ContainerIn = Static<typeof ContainerIn>
export type ContainersBlock = Static<typeof ContainersBlock>

/** A block as the metrics batch hands it over: whose, which device, and when it was seen. */
export interface ContainersReceived {
  clientId: string
  deviceId: string
  deviceSeq: number
  /** the batch's recorded_at (ms); the hub's clock when the collector sent none */
  ts: number
  /** false when the hub stamped the time itself */
  sent: boolean
  block: ContainersBlock
  /** the batch carried hardware or network parts: their writer marks the device seen, the block need not */
  withSamples?: boolean
}

// ---- answers ----

const figures = {
  cpu_percent: num(),
  memory_used_bytes: num(),
  memory_limit_bytes: num(),
  memory_percent: t.Union([t.Null(), t.Number()], { description: 'used / limit × 100; null without a limit or memory accounting' }),
  net_rx_bytes_per_sec: num(),
  net_tx_bytes_per_sec: num(),
  block_read_bytes_per_sec: num(),
  block_write_bytes_per_sec: num(),
  pids: int(),
}

export const ContainerState = words(SHOWN_STATES, {
  description: 'the engine’s state; `gone` when a later block (the engine answering) no longer listed it',
})

export const Container = t.Object({
  container_id: t.String({ description: 'the hub’s id: stable per device and name, across re-creations' }),
  device_id: t.String(),
  device_name: t.String({ description: 'the device’s name, else its hostname' }),
  engine_id: t.String({ description: 'the engine’s id of the newest container of this name' }),
  name: t.String(),
  image: t.String(),
  labels: t.Record(t.String(), t.String()),
  state: ContainerState,
  health: words(HEALTHS),
  exit_code: int(),
  oom_killed: t.Boolean(),
  restart_count: Type.Integer(),
  started_at: date(),
  finished_at: date(),
  uptime_seconds: t.Union([t.Null(), Type.Integer()], { description: 'since started_at while running, as of the last block' }),
  needs_attention: t.Boolean({ description: 'unhealthy, exited non-zero, restarting or OOM-killed' }),
  ...figures,
  memory_accounting: t.Boolean({
    description: 'false when its device’s kernel has no cgroup memory accounting (as of the newest block): the memory figures are null, never 0',
  }),
  first_seen_at: t.String({ format: 'date-time' }),
  last_seen_at: t.String({ format: 'date-time', description: 'the time (recorded_at) of the newest block that listed it' }),
  gone_at: date(),
})

export const Engine = t.Object({
  kind: nullable(words(ENGINE_KINDS)),
  version: nullable(t.String()),
  api_version: nullable(t.String()),
  unavailable_reason: nullable(t.String({ description: 'why the collector sees no containers (no socket, permission denied)' })),
  memory_accounting: t.Boolean(),
  recorded_at: t.String({ format: 'date-time', description: 'the time of the newest block' }),
})

export const DeviceContainers = t.Object({
  device_id: t.String(),
  engine: t.Union([t.Null(), Engine], { description: 'null: the device has never sent a containers block' }),
  items: t.Array(Container),
  cpu_spark: t.Record(t.String(), t.Array(t.Union([t.Null(), t.Number()])), {
    description:
      'by container_id, each listed container’s CPU % over the last hour (not those gone): 60 one-minute averages, oldest first, null where it sent none',
  }),
})

export const ContainerPage = t.Object({
  items: t.Array(Container),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  /** fleet-wide counts regardless of the filters, for the page's header */
  counts: t.Object({ containers: Type.Integer(), running: Type.Integer(), needs_attention: Type.Integer() }),
})

export const EVENT_KINDS = ['created', 'started', 'stopped', 'unhealthy', 'healthy', 'restarted', 'oom_killed', 'gone'] as const
export type EventKind = (typeof EVENT_KINDS)[number]

export const ContainerEvent = t.Object({
  kind: words(EVENT_KINDS),
  at: t.String({ format: 'date-time', description: 'the time of the block that showed it' }),
  exit_code: int(),
  restart_count: int(),
  engine_id: t.String(),
})

export const ContainerEvents = t.Object({
  container_id: t.String(),
  name: t.String(),
  items: t.Array(ContainerEvent, { description: 'newest first' }),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
})

// ---- queries ----

export const SERIES_FIELDS = [
  'cpu_percent',
  'memory_used_bytes',
  'memory_limit_bytes',
  'net_rx_bytes_per_sec',
  'net_tx_bytes_per_sec',
  'block_read_bytes_per_sec',
  'block_write_bytes_per_sec',
  'pids',
] as const
export type SeriesField = (typeof SERIES_FIELDS)[number]

export const ContainerParams = t.Object({ device_id: t.String({ maxLength: 100 }), container_id: t.String({ maxLength: 100 }) })
export const DeviceParams = t.Object({ device_id: t.String({ maxLength: 100 }) })

export const SERIES_RANGES = ['1h', '6h', '24h', '7d', '30d'] as const
export const ContainerSeriesQuery = t.Object({
  range: t.Optional(words(SERIES_RANGES, { description: 'a range ending now; default 1h (start/end override it)' })),
  start: t.Optional(t.String({ format: 'date-time', description: 'default: the range before end' })),
  end: t.Optional(t.String({ format: 'date-time', description: 'default: now' })),
})

const column = t.Record(t.String(), t.Array(t.Nullable(t.Number())))
export const ContainerSeries = t.Object({
  container_id: t.String(),
  name: t.String(),
  resolution: t.Union([t.Literal('raw'), t.Literal('1m'), t.Literal('1h')], {
    description: 'raw samples up to 6 hours, per-minute averages up to 3 days, hourly beyond',
  }),
  step_seconds: t.Number({ description: 'the bucket width; at raw, the median gap between samples' }),
  start: t.String({ format: 'date-time' }),
  end: t.String({ format: 'date-time' }),
  t: t.Array(t.Number(), { description: 'unix seconds, oldest first' }),
  values: column,
  max: t.Record(t.String(), t.Array(t.Nullable(t.Number())), { description: 'per bucket maximum of cpu_percent and memory_used_bytes (empty at raw)' }),
})

export const EventsQuery = t.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
})

export const FLEET_SORTS = ['attention', 'name', '-name', 'device', 'state', 'cpu', '-cpu', 'memory', '-memory', 'started_at', '-started_at'] as const
export const FleetQuery = t.Object({
  state: t.Optional(words(SHOWN_STATES)),
  health: t.Optional(words(HEALTHS)),
  image: t.Optional(t.String({ minLength: 1, maxLength: 512, description: 'part of the image name, case-insensitive' })),
  name: t.Optional(t.String({ minLength: 1, maxLength: 255, description: 'part of the container name, case-insensitive' })),
  device_id: t.Optional(t.String({ maxLength: 100 })),
  needs_attention: t.Optional(t.Boolean({ description: 'true: only those needing attention; false: only the others' })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  sort: words(FLEET_SORTS, {
    default: 'attention',
    description: 'attention: those needing attention first, then by device (oldest first) and name; device: by device name; a leading - sorts descending',
  }),
})

export type Container = Static<typeof Container>
export type ContainerPage = Static<typeof ContainerPage>
export type ContainerSeries = Static<typeof ContainerSeries>
export type FleetQuery = Static<typeof FleetQuery>
export type ContainerSeriesQuery = Static<typeof ContainerSeriesQuery>
