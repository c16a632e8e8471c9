import { AppError, unauthorized } from '../../http/errors'
import type { UserPrincipal } from '../../http/principal'
import { newId } from '../../lib/ids'
import type { TokenResponse } from './users.model'
import { normalizeEmail, switchableClient, type UsersDeps } from './users.service'
import { issueRefreshToken, revokeFamilyOf, rotateRefreshToken } from './users.sessions'
import type { UserRow } from './users.store'
import { ACCESS_TOKEN_TTL_SECONDS } from './users.tokens'

/** One body for every failed login, so it reveals nothing about which emails have accounts. */
const badCredentials = () => new AppError('invalid_credentials', 'Incorrect email or password')
const sessionGone = () => unauthorized('Invalid refresh token; sign in again')

/** A pair of one session: the access token carries the refresh family's id (`sid`), so ending the session ends both. */
async function tokenPair(
  deps: UsersDeps,
  user: UserRow,
  clientId: string | null,
  session?: { familyId: string; refreshToken: string },
): Promise<TokenResponse> {
  const cid = clientId ?? user.client_id ?? ''
  const familyId = session?.familyId ?? newId('rtf')
  return {
    access_token: await deps.tokens.sign({ userId: user.id, clientId: cid, role: user.role, sessionId: familyId }),
    refresh_token: session?.refreshToken ?? (await issueRefreshToken(deps, { userId: user.id, clientId: cid, familyId })),
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
  }
}

async function throttled(deps: UsersDeps, accountKey: string, addressKey: string) {
  const wait = Math.max(...(await Promise.all([deps.throttle.account.retryAfterMs(accountKey), deps.throttle.address.retryAfterMs(addressKey)])))
  if (wait > 0) {
    const seconds = String(Math.ceil(wait / 1000))
    throw new AppError('rate_limited', `Too many failed sign-in attempts; retry in ${seconds} s`, undefined, { 'retry-after': seconds })
  }
}

/**
 * Password login. Throttled per account and per address *before* the password is checked, so
 * a locked account cannot be probed further. Unknown emails cost a dummy argon2 check.
 */
export async function login(deps: UsersDeps, input: { email: string; password: string }, ip: string): Promise<TokenResponse> {
  const email = normalizeEmail(input.email)
  const accountKey = `email:${email}`
  const addressKey = `ip:${ip}`
  await throttled(deps, accountKey, addressKey)
  const user = await deps.store.byEmail(email)
  const ok = user ? await deps.passwords.verify(input.password, user.password_hash) : await deps.passwords.verifyDummy(input.password)
  if (!user || !ok) {
    await Promise.all([deps.throttle.account.fail(accountKey), deps.throttle.address.fail(addressKey)])
    deps.logger.info('login failed', { ip, known_account: !!user })
    throw badCredentials()
  }
  await deps.throttle.account.reset(accountKey)
  deps.logger.info('login', { user_id: user.id, ip })
  return tokenPair(deps, user, await deps.tenancy.actingClient(user.id, user.client_id, user.client_id))
}

export async function refresh(deps: UsersDeps, token: string): Promise<TokenResponse> {
  const result = await rotateRefreshToken(deps, token)
  if (!result.ok && result.familyId) deps.tokens.revokeSessions([result.familyId])
  if (!result.ok) throw unauthorized(result.reason === 'expired' ? 'Refresh token expired; sign in again' : 'Invalid refresh token; sign in again')
  const user = await deps.store.byId(result.userId)
  if (!user) throw sessionGone()
  // The session's client, while the user is still an active member there; else their home.
  return tokenPair(deps, user, await deps.tenancy.actingClient(user.id, result.clientId, user.client_id), {
    familyId: result.familyId,
    refreshToken: result.token,
  })
}

export async function logout(deps: UsersDeps, token: string) {
  const familyId = await revokeFamilyOf(deps, token)
  if (familyId) deps.tokens.revokeSessions([familyId])
}

/** A fresh pair acting for another client of the user (a new session family). */
export async function switchClient(deps: UsersDeps, principal: UserPrincipal, clientId: string): Promise<TokenResponse> {
  const target = await switchableClient(deps, principal, clientId)
  const user = await deps.store.byId(principal.userId)
  if (!user) throw unauthorized('This account no longer exists')
  return tokenPair(deps, user, target)
}

/**
 * The browser's switch: a new session acting for another client of the user, which replaces the
 * one in its cookie. The cookie's token is spent as a refresh would spend it (a spent one again
 * is reuse: its family is revoked), then its session ends, since the browser keeps only the new one.
 */
export async function switchSession(deps: UsersDeps, principal: UserPrincipal, clientId: string, refreshToken: string | null): Promise<TokenResponse> {
  const target = await switchableClient(deps, principal, clientId)
  if (!refreshToken) throw unauthorized('No session cookie; sign in again')
  const spent = await rotateRefreshToken(deps, refreshToken)
  if (!spent.ok) {
    if (spent.familyId) deps.tokens.revokeSessions([spent.familyId])
    throw sessionGone()
  }
  await deps.sessions.revokeFamily(spent.familyId, deps.clock.now())
  deps.tokens.revokeSessions([spent.familyId])
  if (spent.userId !== principal.userId) throw unauthorized('The session cookie belongs to another account; sign in again')
  const user = await deps.store.byId(principal.userId)
  if (!user) throw unauthorized('This account no longer exists')
  return tokenPair(deps, user, target)
}

/**
 * A new password, given the current one: throttled like a login (a stolen access token must not
 * become a way to guess the password). Every other session of the account ends, the caller's
 * own stays signed in.
 */
export async function changePassword(
  deps: UsersDeps,
  principal: UserPrincipal,
  input: { current_password: string; new_password: string },
  ip: string,
): Promise<void> {
  const user = await deps.store.byId(principal.userId)
  if (!user) throw unauthorized('This account no longer exists')
  const accountKey = `email:${user.email}`
  const addressKey = `ip:${ip}`
  await throttled(deps, accountKey, addressKey)
  if (!(await deps.passwords.verify(input.current_password, user.password_hash))) {
    await Promise.all([deps.throttle.account.fail(accountKey), deps.throttle.address.fail(addressKey)])
    deps.logger.info('password change refused: wrong current password', { user_id: user.id, ip })
    throw new AppError('invalid_credentials', 'The current password is incorrect', 'current_password')
  }
  await deps.throttle.account.reset(accountKey)
  const hash = await deps.passwords.hash(input.new_password) // slow: before the transaction, never inside
  const ended = await deps.sessions.replacePassword(user.id, hash, principal.sessionId ?? null, deps.clock.now())
  deps.tokens.revokeSessions(ended)
  deps.logger.info('password changed', { user_id: user.id, sessions_ended: ended.length })
}
