import { t, type Static } from 'elysia'

export const DeviceRegister = t.Object({
  hostname: t.String(),
  os: t.String(),
  os_version: t.String(),
  arch: t.String(),
  fingerprint: t.String({ minLength: 1, maxLength: 256 }),
  mac_address: t.Optional(t.Nullable(t.String())),
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
  /** online when it sent metrics within the last ONLINE_WINDOW_MS */
  status: t.Union([t.Literal('online'), t.Literal('offline')]),
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

export const DeviceParams = t.Object({ device_id: t.String() })

export type DeviceRegister = Static<typeof DeviceRegister>
export type DeviceResponse = Static<typeof DeviceResponse>
export type DevicePatch = Static<typeof DevicePatch>

/** A collector posts every ~10 s; five missed minutes means it is gone. */
export const ONLINE_WINDOW_MS = 5 * 60_000
