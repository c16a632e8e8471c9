import { Type } from '@sinclair/typebox'
import { t, type Static } from 'elysia'

/** How long a token lasts unless the request says otherwise: long enough to walk to the machine. */
export const DEFAULT_TTL_MINUTES = 60
export const MAX_TTL_MINUTES = 24 * 60

export const EnrolmentCreate = t.Object({
  /** minutes until the token expires (60 by default, at most a day) */
  expires_in_minutes: t.Optional(Type.Integer({ minimum: 1, maximum: MAX_TTL_MINUTES })),
  /** the hub's address as the machines reach it; default: the address this request was sent to */
  hub_url: t.Optional(t.String({ minLength: 1, maxLength: 500, pattern: '^https?://' })),
})
export type EnrolmentCreate = Static<typeof EnrolmentCreate>

export const EnrolmentCreated = t.Object({
  enrolment_id: t.String(),
  /** single use; only its SHA-256 is kept, so this answer is the only place it appears */
  token: t.String(),
  expires_at: t.String({ format: 'date-time' }),
  /** the hub's TLS public-key pin (sha256//<base64 of the SPKI SHA-256>), null over plain HTTP */
  pin: t.Nullable(t.String()),
  /** run it as root on the machine to monitor */
  install_command: t.String(),
  install_available: t.Boolean({
    description:
      'Whether this hub has a collector executable to serve (its own when it is a built vigil, VIGIL_AGENT_EXECUTABLE, or one in DATA_DIR/agents). When false, install_command downloads nothing and install_unavailable_reason says why and what to do.',
  }),
  install_unavailable_reason: t.Nullable(
    t.String({
      description:
        'Why the hub cannot serve the collector, and what to do (e.g. a hub run from source: build it and start dist/vigil, or set VIGIL_AGENT_EXECUTABLE); null when install_available is true.',
    }),
  ),
})
export type EnrolmentCreated = Static<typeof EnrolmentCreated>

export const EnrolmentRedeem = t.Object({
  token: t.String({ minLength: 1, maxLength: 200 }),
  hostname: t.String({ maxLength: 255 }),
  os: t.String({ maxLength: 100 }),
  os_version: t.String({ maxLength: 255 }),
  arch: t.String({ maxLength: 50 }),
  fingerprint: t.String({ minLength: 1, maxLength: 256 }),
  mac_address: t.Optional(t.Nullable(t.String({ maxLength: 50 }))),
})
export type EnrolmentRedeem = Static<typeof EnrolmentRedeem>

export const EnrolmentRedeemed = t.Object({
  device_id: t.String(),
  client_id: t.String(),
  key_id: t.String(),
  /** bound to device_id, scopes metrics:write and recommendations:write; shown this once */
  api_key: t.String(),
})
export type EnrolmentRedeemed = Static<typeof EnrolmentRedeemed>
