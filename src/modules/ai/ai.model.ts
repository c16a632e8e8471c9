import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'
import { Recommendation } from '../recommendations/recommendations.model'
import { MAX_PROMPT_CHARS } from './ai.prompt'

// Literals, not t.UnionEnum: Elysia fills an absent UnionEnum with its first member, which
// would turn "field not sent" into "provider: rules" in a PATCH.
const Provider = t.Union([t.Literal('rules'), t.Literal('openai'), t.Literal('ollama'), t.Literal('anthropic')])

export const ProviderField = t.Object({
  name: t.String(),
  type: t.UnionEnum(['string', 'number', 'integer', 'boolean']),
  required: t.Boolean(),
  default: t.Union([t.String(), t.Number(), t.Boolean(), t.Null()]),
  description: t.String(),
})

export const ProviderInfo = t.Object({
  id: Provider,
  name: t.String(),
  description: t.String(),
  /** false for the offline rules provider */
  network: t.Boolean(),
  fields: t.Array(ProviderField),
})

export const ProviderList = t.Object({
  items: t.Array(ProviderInfo),
  /** the instance-wide default provider clients inherit */
  instance_default: Provider,
  prompt_variables: t.Record(t.String(), t.String()),
})

export const AiConfig = t.Object({
  provider: Provider,
  model: t.Nullable(t.String()),
  base_url: t.Nullable(t.String()),
  /** never the key itself: "••••" plus its last 4 characters, or null when none is set */
  api_key: t.Nullable(t.String()),
  api_key_set: t.Boolean(),
  /** true while the client uses the instance's provider connection (VIGIL_AI_*) */
  inherited: t.Boolean(),
  temperature: t.Number(),
  max_tokens: Type.Integer(),
  /** the client's cron pattern, or null for the default */
  schedule: t.Nullable(t.String()),
  effective_schedule: t.String(),
  enabled: t.Boolean(),
  /** the template in use (the default when prompt_custom is false) */
  prompt: t.String(),
  prompt_custom: t.Boolean(),
  daily_budget: Type.Integer(),
  last_run_at: t.Nullable(t.String({ format: 'date-time' })),
  updated_at: t.Nullable(t.String({ format: 'date-time' })),
})

export const AiConfigPatch = t.Object(
  {
    /** null: go back to the instance default connection */
    provider: t.Optional(t.Nullable(Provider)),
    model: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 200 }))),
    base_url: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 2000 }))),
    /** write-only; null removes it */
    api_key: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 1000 }))),
    temperature: t.Optional(t.Number({ minimum: 0, maximum: 2 })),
    max_tokens: t.Optional(Type.Integer({ minimum: 1, maximum: 8192 })),
    /** a cron pattern (5 or 6 fields, UTC), or null for the default */
    schedule: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 100 }))),
    enabled: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
)

export const PromptPatch = t.Object({ prompt: t.Nullable(t.String({ minLength: 1, maxLength: MAX_PROMPT_CHARS })) }, { additionalProperties: false })

export const PromptResponse = t.Object({
  prompt: t.String(),
  prompt_custom: t.Boolean(),
  variables: t.Record(t.String(), t.String()),
})

export const UsageEntry = t.Object({
  id: t.String(),
  created_at: t.String({ format: 'date-time' }),
  kind: t.UnionEnum(['generate', 'test']),
  provider: t.String(),
  model: t.Nullable(t.String()),
  device_id: t.Nullable(t.String()),
  tokens_in: t.Nullable(Type.Integer()),
  tokens_out: t.Nullable(Type.Integer()),
  latency_ms: t.Nullable(Type.Integer()),
  status: t.String({ description: 'pending | ok | provider_error | timeout | invalid_output | too_large | refused | network_error' }),
  error: t.Nullable(t.String()),
})

export const UsageQuery = t.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  start_date: t.Optional(t.Nullable(t.String({ format: 'date-time' }))),
  end_date: t.Optional(t.Nullable(t.String({ format: 'date-time' }))),
})

export const UsagePage = t.Object({
  items: t.Array(UsageEntry),
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer(),
  /** over the filtered window */
  totals: t.Object({ calls: Type.Integer(), ok: Type.Integer(), failed: Type.Integer(), tokens_in: Type.Integer(), tokens_out: Type.Integer() }),
  /** the current UTC day, against the daily budget */
  today: t.Object({ calls: Type.Integer(), budget: Type.Integer(), remaining: Type.Integer() }),
})

export const TestResult = t.Object({
  ok: t.Boolean(),
  provider: Provider,
  model: t.Nullable(t.String()),
  latency_ms: Type.Integer(),
  /** the provider's failure in words, or null */
  error: t.Nullable(t.String()),
})

export const GenerateResult = t.Object({
  device_id: t.String(),
  /** the recommendations stored by this run (rules first, then the model's) */
  items: t.Array(Recommendation),
  /** findings not stored because an equivalent one was stored for the device within 24 h */
  skipped_duplicates: Type.Integer(),
  llm: t.Nullable(
    t.Object({
      provider: t.String(),
      model: t.Nullable(t.String()),
      status: t.String(),
      error: t.Nullable(t.String()),
    }),
  ),
})

export const DeviceParams = t.Object({ device_id: t.String({ minLength: 1, maxLength: 100 }) })

export type AiConfig = Static<typeof AiConfig>
export type AiConfigPatch = Static<typeof AiConfigPatch>
export type UsageEntry = Static<typeof UsageEntry>
export type GenerateResult = Static<typeof GenerateResult>
export type TestResult = Static<typeof TestResult>
