/** Who is calling. Resolved once per request from its credential, before validation. */
export type SystemRole = 'admin' | 'user'
export type MemberRole = 'owner' | 'admin' | 'member'

export interface UserPrincipal {
  kind: 'user'
  userId: string
  clientId: string
  role: SystemRole
  /** the session (refresh-token family) the access token belongs to, when it names one */
  sessionId?: string
  /** when the access token expires, ms since the epoch (a live stream ends then) */
  expiresAt?: number
}

export interface KeyPrincipal {
  kind: 'key'
  keyId: string
  clientId: string
  scopes: readonly string[]
  /** the device the key is bound to, if any */
  deviceId: string | null
}

export type Principal = UserPrincipal | KeyPrincipal

/** A credential that was presented but rejected; the message is safe to show. */
export interface CredentialFailure {
  kind: 'invalid'
  presented: 'jwt' | 'key'
  message: string
}

/**
 * The domain side of authentication, implemented by the users and api-keys modules.
 * The HTTP layer knows only this interface.
 */
export interface Authenticator {
  verifyAccessToken(token: string): Promise<UserPrincipal | CredentialFailure>
  /** answered at once for a key already verified; awaited otherwise */
  verifyApiKey(key: string): KeyPrincipal | CredentialFailure | Promise<KeyPrincipal | CredentialFailure>
  /** requests per minute allowed to a caller of this client; answered at once when known, awaited otherwise */
  rateLimitFor(clientId: string): number | Promise<number>
  /** the caller's role in its client, or null if not an active member; answered at once when known, awaited otherwise */
  memberRole(userId: string, clientId: string): MemberRole | null | Promise<MemberRole | null>
}
