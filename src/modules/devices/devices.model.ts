import { t, type Static } from 'elysia'

/**
 * What a collector tells of its machine. Each field is bounded far above what a real machine
 * reports (a hostname is at most 253 characters, a MAC 17) so that a device's row, its answers
 * and its live events stay small; the same bounds as an enrolment's (enrolments.model.ts).
 */
export const DeviceRegister = t.Object({
  hostname: t.String({ maxLength: 255 }),
  os: t.String({ maxLength: 100 }),
  os_version: t.String({ maxLength: 255 }),
  arch: t.String({ maxLength: 50 }),
  fingerprint: t.String({ minLength: 1, maxLength: 256 }),
  mac_address: t.Optional(t.Nullable(t.String({ maxLength: 50 }))),
})

/** online within 2× its own interval since it was last seen, stale within 5×, else offline; never without a sample */
export const DeviceStatus = t.Union([t.Literal('online'), t.Literal('stale'), t.Literal('offline'), t.Literal('never')], {
  description:
    "by the device's own reporting interval (measured from its samples; 60 s until known): online when last seen within 2 intervals, " +
    'stale within 5, offline beyond, never before its first sample — the same rule as the fleet overview and the live stream',
})

export const DeviceResponse = t.Object({
  device_id: t.String(),
  client_id: t.String(),
  fingerprint: t.String(),
  hostname: t.Nullable(t.String()),
  os: t.Nullable(t.String()),
  os_version: t.Nullable(t.String()),
  arch: t.Nullable(t.String()),
  mac_address: t.Nullable(t.String()),
  created_at: t.Nullable(t.String({ format: 'date-time' })),
  updated_at: t.Nullable(t.String({ format: 'date-time' })),
  /** when the device last sent metrics (server time), null if never */
  last_seen_at: t.Nullable(t.String({ format: 'date-time' })),
  status: DeviceStatus,
  /** the name the account gave it; null shows the hostname */
  name: t.Nullable(t.String()),
  /** the account's labels, for grouping and filtering */
  tags: t.Array(t.String()),
})

export const MAX_TAGS = 20
export const DeviceName = t.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: '1 to 100 characters, not only blanks' })
export const DeviceTag = t.String({
  minLength: 1,
  maxLength: 40,
  pattern: '^[a-z0-9._-]+$',
  description: 'lower-case letters, digits, dot, underscore, hyphen',
})

/** What the account may change about a device: only what it owns (the facts come from the collector). */
export const DevicePatch = t.Object({
  /** null: show the hostname again */
  name: t.Optional(t.Nullable(DeviceName)),
  /** replaces the whole list */
  tags: t.Optional(t.Array(DeviceTag, { maxItems: MAX_TAGS, uniqueItems: true })),
})

export const DeviceParams = t.Object({ device_id: t.String({ minLength: 1, maxLength: 100 }) })

export type DeviceRegister = Static<typeof DeviceRegister>
export type DeviceStatus = Static<typeof DeviceStatus>
export type DeviceResponse = Static<typeof DeviceResponse>
export type DevicePatch = Static<typeof DevicePatch>
