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
})

export const DeviceParams = t.Object({ device_id: t.String() })

export type DeviceRegister = Static<typeof DeviceRegister>
export type DeviceResponse = Static<typeof DeviceResponse>

/** A collector posts every ~10 s; five missed minutes means it is gone. */
export const ONLINE_WINDOW_MS = 5 * 60_000
