import { jwt } from '@elysiajs/jwt'
import type { Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { CredentialFailure, SystemRole, UserPrincipal } from '../../http/principal'

export const ACCESS_TOKEN_TTL_SECONDS = 900
export const JWT_ISSUER = 'vigil'
export const JWT_AUDIENCE = 'vigil-portal'

export interface AccessTokens {
  sign(claims: { userId: string; clientId: string; role: SystemRole }): Promise<string>
  verify(token: string): Promise<UserPrincipal | CredentialFailure>
}

/**
 * Access tokens: HS256 JWTs with iss, aud, sub, cid (client id), role, iat, exp and jti.
 * Verification pins the algorithm, issuer and audience, and reads "now" from the clock.
 */
export function accessTokens(secret: string, clock: Clock): AccessTokens {
  const signer = jwt({ name: 'jwt', secret, alg: 'HS256', iss: JWT_ISSUER, aud: JWT_AUDIENCE }).decorator.jwt
  const invalid = (message: string): CredentialFailure => ({ kind: 'invalid', presented: 'jwt', message })
  return {
    sign: ({ userId, clientId, role }) =>
      signer.sign({
        sub: userId,
        cid: clientId,
        role,
        jti: newId('at'),
        exp: Math.floor(clock.now() / 1000) + ACCESS_TOKEN_TTL_SECONDS,
      }),
    async verify(token) {
      const payload = await signer.verify(token, {
        algorithms: ['HS256'],
        issuer: JWT_ISSUER,
        audience: JWT_AUDIENCE,
        currentDate: new Date(clock.now()),
        requiredClaims: ['exp', 'sub', 'jti'],
      })
      if (!payload) return invalid('Invalid or expired access token')
      const { sub, cid, role } = payload as Record<string, unknown>
      if (typeof sub !== 'string' || typeof cid !== 'string' || (role !== 'admin' && role !== 'user')) {
        return invalid('Invalid access token')
      }
      return { kind: 'user', userId: sub, clientId: cid, role }
    },
  }
}
