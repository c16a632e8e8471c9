import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'

export const ClientResponse = t.Object({
  client_id: t.String(),
  name: t.Nullable(t.String()),
  platform: t.Nullable(t.String()),
  plan_type: t.Nullable(t.String()),
  subscription_status: t.Nullable(t.String()),
  max_devices: Type.Integer(),
  max_users: Type.Integer(),
  billing_email: t.Nullable(t.String()),
  created_at: t.Nullable(t.String({ format: 'date-time' })),
})
export type ClientResponse = Static<typeof ClientResponse>

/** Only these two fields; anything else in the body (plan, limits, ids) is dropped unread. */
export const ClientUpdate = t.Object({
  /** trimmed by the service; a blank name is refused (null clears the name) */
  name: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 200, pattern: '\\S' }))),
  billing_email: t.Optional(t.Nullable(t.String({ format: 'email', maxLength: 254 }))),
})

export const MemberRoleSchema = t.Union([t.Literal('owner'), t.Literal('admin'), t.Literal('member')])

export const MemberResponse = t.Object({
  id: t.String(),
  client_id: t.String(),
  /** empty until an invited email registers (the spec declares it a required string) */
  user_id: t.String(),
  role: MemberRoleSchema,
  status: t.Union([t.Literal('active'), t.Literal('invited'), t.Literal('disabled')]),
  invited_email: t.Nullable(t.String()),
  /** the account's email, or the invited one while no account has accepted (what a members list shows) */
  email: t.Nullable(t.String()),
  /** while the invitation is pending: when its secret stops working (null once accepted) */
  invitation_expires_at: t.Nullable(t.String({ format: 'date-time' })),
  created_at: t.Nullable(t.String({ format: 'date-time' })),
})
export type MemberResponse = Static<typeof MemberResponse>

export const MemberInvite = t.Object({
  email: t.String({ format: 'email', maxLength: 254 }),
  role: t.Optional(MemberRoleSchema),
})

export const MemberUpdate = t.Object({
  role: t.Optional(MemberRoleSchema),
  /** `invited` is not settable: only the invitee accepts an invitation */
  status: t.Optional(t.Union([t.Literal('active'), t.Literal('disabled')])),
})

export const MemberParams = t.Object({ member_id: t.String({ minLength: 1, maxLength: 100 }) })

/** What a new tenant starts with (the spec's per-client defaults): the free plan, one device, 50 members. */
export const NEW_CLIENT = { plan_type: 'free', subscription_status: 'none', max_devices: 1, max_users: 50 } as const
