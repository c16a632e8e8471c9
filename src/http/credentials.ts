import type { Authenticator, CredentialFailure, Principal } from './principal'

export interface PresentedCredential {
  type: 'jwt' | 'key'
  value: string
}

/** API keys are recognisable by their prefix, so a key sent as a bearer token is still a key. */
export const API_KEY_PREFIX = 'vk_'

/**
 * Reads the credential a request carries: `x-api-key`, or `authorization: Bearer …` holding
 * either an access token (JWT) or an API key (the spec allows both conventions for keys).
 */
export function readCredential(headers: Headers): PresentedCredential | null {
  const key = headers.get('x-api-key')
  if (key) return { type: 'key', value: key.trim() }
  const auth = headers.get('authorization')
  if (!auth) return null
  const match = /^Bearer\s+(\S+)\s*$/i.exec(auth)
  if (!match) return { type: 'jwt', value: '' } // malformed header: rejected as an invalid token
  const token = match[1]!
  return { type: token.startsWith(API_KEY_PREFIX) ? 'key' : 'jwt', value: token }
}

export async function resolveCredential(auth: Authenticator, cred: PresentedCredential): Promise<Principal | CredentialFailure> {
  if (!cred.value) return { kind: 'invalid', presented: cred.type, message: 'Malformed authorization header; expected "Bearer <token>"' }
  return cred.type === 'key' ? auth.verifyApiKey(cred.value) : auth.verifyAccessToken(cred.value)
}
