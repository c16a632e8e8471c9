import type { Database } from 'bun:sqlite'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { AppError, unauthorized } from '../../http/errors'
import type { UserPrincipal } from '../../http/principal'
import type { TokenResponse } from './users.model'
import type { Passwords } from './users.passwords'
import { issueRefreshToken, revokeFamilyOf, rotateRefreshToken } from './users.sessions'
import { userByEmail, userById, type UserRow } from './users.store'
import { actingClient } from '../clients/members.service'
import { newId } from '../../lib/ids'
import { ACCESS_TOKEN_TTL_SECONDS, type AccessTokens } from './users.tokens'
import type { LoginThrottle } from './users.throttle'
import { normalizeEmail, switchableClient } from './users.service'

export interface AuthDeps {
  sqlite: Database
  clock: Clock
  logger: Logger
  tokens: AccessTokens
  passwords: Passwords
  refreshTtlSeconds: number
  throttle: { account: LoginThrottle; address: LoginThrottle }
}

/** One body for every failed login, so it reveals nothing about which emails have accounts. */
const badCredentials = () => new AppError('invalid_credentials', 'Incorrect email or password')

/** A pair of one session: the access token carries the refresh family's id (`sid`), so ending the session ends both. */
async function tokenPair(deps: AuthDeps, user: UserRow, clientId: string | null, session?: { familyId: string; refreshToken: string }): Promise<TokenResponse> {
  const cid = clientId ?? user.client_id ?? ''
  const familyId = session?.familyId ?? newId('rtf')
  return {
    access_token: await deps.tokens.sign({ userId: user.id, clientId: cid, role: user.role, sessionId: familyId }),
    refresh_token: session?.refreshToken ?? issueRefreshToken(deps, { userId: user.id, clientId: cid, familyId }),
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
  }
}

function throttled(deps: AuthDeps, accountKey: string, addressKey: string) {
  const wait = Math.max(deps.throttle.account.retryAfterMs(accountKey), deps.throttle.address.retryAfterMs(addressKey))
  if (wait > 0) {
    const seconds = String(Math.ceil(wait / 1000))
    throw new AppError('rate_limited', `Too many failed sign-in attempts; retry in ${seconds} s`, undefined, { 'retry-after': seconds })
  }
}

/**
 * Password login. Throttled per account and per address *before* the password is checked, so
 * a locked account cannot be probed further. Unknown emails cost a dummy argon2 check.
 */
export async function login(deps: AuthDeps, input: { email: string; password: string }, ip: string): Promise<TokenResponse> {
  const email = normalizeEmail(input.email)
  const accountKey = `email:${email}`
  const addressKey = `ip:${ip}`
  throttled(deps, accountKey, addressKey)
  const user = userByEmail(deps.sqlite, email)
  const ok = user ? await deps.passwords.verify(input.password, user.password_hash) : await deps.passwords.verifyDummy(input.password)
  if (!user || !ok) {
    deps.throttle.account.fail(accountKey)
    deps.throttle.address.fail(addressKey)
    deps.logger.info('login failed', { ip, known_account: !!user })
    throw badCredentials()
  }
  deps.throttle.account.reset(accountKey)
  deps.logger.info('login', { user_id: user.id, ip })
  return tokenPair(deps, user, actingClient(deps, user.id, user.client_id, user.client_id))
}

export async function refresh(deps: AuthDeps, token: string): Promise<TokenResponse> {
  const result = rotateRefreshToken(deps, token)
  if (!result.ok && result.familyId) deps.tokens.revokeSessions([result.familyId])
  if (!result.ok) throw unauthorized(result.reason === 'expired' ? 'Refresh token expired; sign in again' : 'Invalid refresh token; sign in again')
  const user = userById(deps.sqlite, result.userId)
  if (!user) throw unauthorized('Invalid refresh token; sign in again')
  // The session's client, while the user is still an active member there; else their home.
  return tokenPair(deps, user, actingClient(deps, user.id, result.clientId, user.client_id), { familyId: result.familyId, refreshToken: result.token })
}

export function logout(deps: AuthDeps, token: string) {
  const familyId = revokeFamilyOf(deps, token)
  if (familyId) deps.tokens.revokeSessions([familyId])
}

/** A fresh pair acting for another client of the user (a new session family). */
export async function switchClient(deps: AuthDeps, principal: UserPrincipal, clientId: string): Promise<TokenResponse> {
  const target = switchableClient(deps, principal, clientId)
  const user = userById(deps.sqlite, principal.userId)
  if (!user) throw unauthorized('This account no longer exists')
  return tokenPair(deps, user, target)
}
