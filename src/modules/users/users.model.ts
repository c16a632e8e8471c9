import type { SignupPolicy } from '../../config'
import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'
import { PASSWORD_MAX, PASSWORD_MIN } from './users.passwords'

const Email = t.String({ format: 'email', maxLength: 254 })
const Name = t.Optional(t.Nullable(t.String({ maxLength: 100 })))

export const UserRegister = t.Object({
  email: Email,
  password: t.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
  first_name: Name,
  last_name: Name,
  company: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
  /** joins the inviting client instead of making a new one; what VIGIL_SIGNUP=invite requires */
  invitation_token: t.Optional(
    t.Nullable(
      t.String({
        minLength: 1,
        maxLength: 200,
        description: 'the invitation secret from POST /v1/clients/me/members: the account joins that client (required when sign-up is by invitation)',
      }),
    ),
  ),
  /** the first registration when it may come from another machine (or header x-setup-token) */
  setup_token: t.Optional(
    t.Nullable(
      t.String({
        minLength: 1,
        maxLength: 200,
        description:
          "the one-time token printed on the server's console, for the first registration when it may come from another machine: the service listens beyond loopback, trusts a proxy, or the request carries a forwarded header (GET /health says so in setup_token_required; or send header x-setup-token)",
      }),
    ),
  ),
})
export type UserRegister = Static<typeof UserRegister>

/** No length bounds beyond a sanity cap: a wrong password is a 401, not a 422. */
export const UserLogin = t.Object({ email: Email, password: t.String({ maxLength: 1024 }) })

export const RefreshRequest = t.Object({ refresh_token: t.String({ maxLength: 512 }) })

export const SwitchClientRequest = t.Object({ client_id: t.String({ minLength: 1, maxLength: 100 }) })

/** the current password is checked, never bounded beyond a sanity cap: a wrong one is a 401, not a 422 */
export const PasswordChange = t.Object({
  current_password: t.String({ maxLength: 1024 }),
  new_password: t.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
})

export const UserResponse = t.Object({
  user_id: t.String(),
  email: t.String(),
  first_name: t.Nullable(t.String()),
  last_name: t.Nullable(t.String()),
  client_id: t.Nullable(t.String()),
  role: t.String(),
})
export type UserResponse = Static<typeof UserResponse>

export const TokenResponse = t.Object({
  access_token: t.String(),
  refresh_token: t.String(),
  token_type: t.Literal('bearer'),
  expires_in: Type.Integer(),
})
export type TokenResponse = Static<typeof TokenResponse>

/** A browser session's tokens: the refresh token is in the cookie, never in the body a script reads. */
export const SessionTokenResponse = t.Object({
  access_token: t.String(),
  token_type: t.Literal('bearer'),
  expires_in: Type.Integer(),
})
export type SessionTokenResponse = Static<typeof SessionTokenResponse>

export const MembershipResponse = t.Object({
  member_id: t.String(),
  client_id: t.String(),
  client_name: t.Nullable(t.String()),
  role: t.String(),
  status: t.String(),
  current: t.Boolean(),
})

/** Who may create an account through POST /v1/auth/register. */
export interface SignupRules {
  policy: SignupPolicy
  /**
   * The SHA-256 (hex) of the one-time token the first registration needs, so nobody else claims
   * an exposed instance (null: none). On SQLite kept in memory only: a restart makes a new one;
   * on PostgreSQL the hubs agree on one (users.setup-token.ts).
   */
  setupTokenHash: string | null
  /**
   * The listener is reachable from other machines: it binds beyond loopback, or trusts a proxy
   * (VIGIL_TRUST_PROXY). Otherwise only requests with a forwarded header need the token.
   */
  exposed: boolean
}
