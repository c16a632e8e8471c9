import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'
import { ClientResponse } from '../clients/clients.model'

export const StatsResponse = t.Record(t.String(), t.Number(), {
  description:
    'users, operators, clients, paying_clients, members, devices, api_keys, database_bytes, plus counts other modules register (metric rows, ingest of the last hour…)',
})

/** limit 1..1000 (default 100), offset ≥ 0 (default 0): the spec leaves the bounds open. */
export const AdminClientsQuery = t.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
})

export const AdminClient = t.Composite([
  ClientResponse,
  t.Object({
    rate_limit: t.Nullable(Type.Integer()),
    max_devices_override: t.Nullable(Type.Integer()),
    max_users_override: t.Nullable(Type.Integer()),
    usage: t.Object({ devices: Type.Integer(), members: Type.Integer(), api_keys: Type.Integer() }),
    /** the oldest active owner's email, to tell clients apart (null when none) */
    owner_email: t.Nullable(t.String()),
  }),
])

/** The PATCH answer: the client with the operator's overrides (null: the plan's value applies). */
export const AdminClientPatched = t.Composite([
  ClientResponse,
  t.Object({ rate_limit: t.Nullable(Type.Integer()), max_devices_override: t.Nullable(Type.Integer()), max_users_override: t.Nullable(Type.Integer()) }),
])

export const AdminClientList = t.Object({
  items: t.Array(AdminClient),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
})

/**
 * What an operator may set by hand. max_devices, max_users and rate_limit are overrides: they
 * stay through billing changes until set to null (back to the plan's). A plan change without
 * explicit limits takes the plan's limits (it clears the device and user overrides).
 */
export const AdminClientUpdate = t.Object({
  plan_type: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  max_devices: t.Optional(t.Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000 }))),
  max_users: t.Optional(t.Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
  /** requests per minute; null goes back to the plan's */
  rate_limit: t.Optional(t.Nullable(Type.Integer({ minimum: 1, maximum: 10_000_000 }))),
})

export const AdminClientParams = t.Object({ client_id: t.String({ minLength: 1, maxLength: 100 }) })

/**
 * How the instance is set up, read-only: these come from the environment at start (VIGIL_MODE,
 * VIGIL_SIGNUP, VIGIL_OWN_*, STRIPE_SECRET_KEY, VIGIL_SITE_URL) and change with a restart.
 */
export const InstanceSettingsResponse = t.Object({
  mode: t.Union([t.Literal('own'), t.Literal('service')]),
  signup: t.Union([t.Literal('open'), t.Literal('invite'), t.Literal('closed')]),
  /** true: VIGIL_SIGNUP sets the policy; false: it follows the mode (own: invite, service: open) */
  signup_configured: t.Boolean(),
  /** STRIPE_SECRET_KEY is set: checkout, the customer portal and webhooks can work */
  billing_configured: t.Boolean(),
  site_url: t.String(),
  site_url_warning: t.Nullable(
    t.String({
      description:
        "set when VIGIL_SITE_URL is a loopback address while other machines reach the service (it listens beyond loopback or trusts a proxy): links in notices and invitations would point at the reader's own machine; says which setting to change",
    }),
  ),
  /** what a client on the free plan gets in own mode (VIGIL_OWN_MAX_DEVICES, _MAX_USERS, _RATE_LIMIT); null in service mode */
  own_limits: t.Nullable(t.Object({ max_devices: Type.Integer(), max_users: Type.Integer(), rate_limit: Type.Integer() })),
  /** VIGIL_OUTBOUND_ALLOW_PRIVATE: tenants' model and webhook URLs may point at private addresses */
  outbound_allow_private: t.Boolean(),
  /** VIGIL_AI_PROVIDER: the language-model connection clients inherit */
  ai_default_provider: t.String(),
})
export type InstanceSettingsResponse = Static<typeof InstanceSettingsResponse>
