import { t, type Static } from 'elysia'
import { SCOPES } from '../../http/auth'

export const ScopeSchema = t.Union(SCOPES.map((s) => t.Literal(s)))

export const DEFAULT_SCOPES = ['metrics:write', 'recommendations:write'] as const

export const APIKeyCreate = t.Object({
  /** at least one non-space character: the service trims it, and kept a blank one as sent */
  name: t.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  device_id: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 100 }))),
  /** an unknown scope is a 422; duplicates are dropped */
  scopes: t.Optional(t.Array(ScopeSchema, { minItems: 1, maxItems: SCOPES.length * 2 })),
  expires_at: t.Optional(t.Nullable(t.String({ format: 'date-time' }))),
})
export type APIKeyCreate = Static<typeof APIKeyCreate>

export const APIKeyResponse = t.Object({
  key_id: t.String(),
  name: t.String(),
  key_prefix: t.String(),
  /** the full key: in the creation response only, null ever after */
  api_key: t.Nullable(t.String()),
  scopes: t.Array(t.String()),
  is_active: t.Boolean(),
  created_at: t.String({ format: 'date-time' }),
  last_used_at: t.Nullable(t.String({ format: 'date-time' })),
  expires_at: t.Nullable(t.String({ format: 'date-time' })),
  device_id: t.Nullable(t.String()),
})
export type APIKeyResponse = Static<typeof APIKeyResponse>

export const KeyParams = t.Object({ key_id: t.String({ minLength: 1, maxLength: 100 }) })
