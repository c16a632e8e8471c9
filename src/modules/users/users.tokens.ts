import { jwt } from '@elysiajs/jwt'
import type { Clock } from '../../lib/clock'
import { createHmac } from 'node:crypto'
import { newId } from '../../lib/ids'
import type { CredentialFailure, SystemRole, UserPrincipal } from '../../http/principal'

export const ACCESS_TOKEN_TTL_SECONDS = 900
export const JWT_ISSUER = 'vigil'
export const JWT_AUDIENCE = 'vigil-portal'
const MAX_VERIFIED = 10_000

/** Revoked sessions, as access-token verification needs them (users.revocations.ts keeps them). */
export interface SessionRevocations {
  /** true when the session (refresh-token family) was revoked: its access tokens are refused */
  isRevoked(sessionId: string): boolean | Promise<boolean>
  /** this process revoked these sessions: refuse their access tokens from the next request on */
  add(sessionIds: readonly string[]): void
}

export interface AccessTokens {
  /** sessionId: the refresh-token family the token belongs to (its `sid` claim) */
  sign(claims: { userId: string; clientId: string; role: SystemRole; sessionId?: string }): Promise<string>
  verify(token: string): Promise<UserPrincipal | CredentialFailure>
  /** refuse the access tokens of these sessions from the next request on (logout, reuse, password reset) */
  revokeSessions(sessionIds: readonly string[]): void
}

/**
 * Access tokens: HS256 JWTs with iss, aud, sub, cid (client id), role, sid (session), iat, exp
 * and jti. Verification pins the algorithm, issuer and audience, and reads "now" from the clock.
 * A token of a revoked session is refused at once (checked in memory, after the cache).
 */
export function accessTokens(
  secret: string,
  clock: Clock,
  roleOf?: (userId: string) => SystemRole | null | Promise<SystemRole | null>,
  revocations?: SessionRevocations,
): AccessTokens {
  const signer = jwt({ name: 'jwt', secret, alg: 'HS256', iss: JWT_ISSUER, aud: JWT_AUDIENCE }).decorator.jwt
  const invalid = (message: string): CredentialFailure => ({ kind: 'invalid', presented: 'jwt', message })
  /**
   * Tokens whose signature and claims already passed, by token text: the HMAC check
   * (through WebCrypto) runs once per token instead of once per request. Bounded, oldest out.
   */
  const verified = new Map<string, { payload: Record<string, unknown>; exp: number }>()
  return {
    // Signed here rather than by the plugin, whose iat is always the wall clock: every
    // time claim must come from the injected clock.
    sign: async ({ userId, clientId, role, sessionId }) => {
      const iat = Math.floor(clock.now() / 1000)
      return signHs256(secret, {
        iss: JWT_ISSUER,
        aud: JWT_AUDIENCE,
        sub: userId,
        cid: clientId,
        role,
        sid: sessionId,
        iat,
        exp: iat + ACCESS_TOKEN_TTL_SECONDS,
        jti: newId('at'),
      })
    },
    revokeSessions: (sessionIds) => revocations?.add(sessionIds),
    async verify(token) {
      const cached = verified.get(token)
      // A signature checked once stays valid; only the expiry depends on the time (as jose: exp <= now fails).
      if (cached) return cached.exp > Math.floor(clock.now() / 1000) ? principalOf(cached.payload) : invalid('Invalid or expired access token')
      const payload = await signer.verify(token, {
        algorithms: ['HS256'],
        issuer: JWT_ISSUER,
        audience: JWT_AUDIENCE,
        currentDate: new Date(clock.now()),
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      })
      if (!payload) return invalid('Invalid or expired access token')
      if (typeof payload.exp === 'number') {
        if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value as string)
        verified.set(token, { payload, exp: payload.exp })
      }
      return principalOf(payload)
    },
  }

  async function principalOf(payload: Record<string, unknown>): Promise<UserPrincipal | CredentialFailure> {
    const { sub, cid, role, sid, exp } = payload
    if (typeof sub !== 'string' || typeof cid !== 'string' || (role !== 'admin' && role !== 'user')) {
      return invalid('Invalid access token')
    }
    if (typeof sid === 'string' && (await revocations?.isRevoked(sid))) return invalid('This session has ended; sign in again')
    // The token's role is a snapshot; the stored one wins, so a demotion (or a deleted
    // account) bites on the next request rather than when the token expires.
    const stored = roleOf ? roleOf(sub) : role
    const current = stored instanceof Promise ? await stored : stored
    if (current === null) return invalid('This account no longer exists')
    return {
      kind: 'user',
      userId: sub,
      clientId: cid,
      role: current,
      sessionId: typeof sid === 'string' ? sid : undefined,
      expiresAt: typeof exp === 'number' ? exp * 1000 : undefined,
    }
  }
}

const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url')

/** Compact JWS with HS256 (RFC 7515); verification goes through jose with the algorithm pinned. */
function signHs256(secret: string, payload: Record<string, unknown>): string {
  const input = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify(payload))}`
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
}
