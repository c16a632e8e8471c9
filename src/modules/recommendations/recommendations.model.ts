import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'

export const CATEGORIES = ['cpu', 'memory', 'disk', 'network', 'thermal', 'availability', 'general'] as const
export const SEVERITIES = ['info', 'warning', 'critical'] as const
export type Category = (typeof CATEGORIES)[number]
export type Severity = (typeof SEVERITIES)[number]

export const Severity = t.UnionEnum(SEVERITIES)

export const RecommendationIn = t.Object({
  recommendation: t.String({ minLength: 1, maxLength: 10_000 }),
  /** free text for collectors; the engine uses cpu, memory, disk, network, thermal, availability, general */
  category: t.String({ minLength: 1, maxLength: 64, default: 'general' }),
  device_id: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 100 }))),
  severity: t.Optional(Severity),
})

export const Recommendation = t.Object({
  id: t.String(),
  client_id: t.String(),
  device_id: t.Nullable(t.String()),
  recommendation: t.String(),
  category: t.String(),
  severity: Severity,
  source: t.String({ description: "'collector', 'rules' or the language-model provider's name" }),
  evidence: t.Nullable(t.Record(t.String(), t.Unknown())),
  created_at: t.String({ format: 'date-time' }),
})

export const DeviceParams = t.Object({ device_id: t.String({ minLength: 1, maxLength: 100 }) })

export const ListQuery = t.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  start_date: t.Optional(t.Nullable(t.String({ format: 'date-time' }))),
  end_date: t.Optional(t.Nullable(t.String({ format: 'date-time' }))),
})

export const LatestQuery = t.Object({ limit: Type.Integer({ minimum: 1, maximum: 20, default: 5 }) })

export const RecommendationPage = t.Object({
  items: t.Array(Recommendation),
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer(),
})

export const RecommendationList = t.Object({ items: t.Array(Recommendation) })

export type RecommendationIn = Static<typeof RecommendationIn>
export type Recommendation = Static<typeof Recommendation>

/** What the engine hands the store: a finding with a stable identity for deduplication. */
export interface NewRecommendation {
  deviceId: string | null
  recommendation: string
  category: string
  severity: Severity
  source: string
  evidence: Record<string, unknown> | null
  dedupeKey: string | null
}
