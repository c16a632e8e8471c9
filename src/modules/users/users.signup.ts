import type { InstanceSettings, SignupPolicy } from '../../config'
import { AppError } from '../../http/errors'
import { randomToken, safeEqual, sha256Hex } from '../../lib/crypto'
import { createAccount, type NewAccount, type UsersDeps } from './users.service'
import type { SignupRules } from './users.model'
import type { UserRow } from './users.store'

/** VIGIL_SIGNUP, else what the mode implies: an own instance grows by invitation, a service is open. */
export const signupPolicyOf = (instance: InstanceSettings): SignupPolicy => instance.signup ?? (instance.mode === 'own' ? 'invite' : 'open')

export const newSetupToken = () => `vst_${randomToken(24)}`

/** Whether the instance still waits for its operator's registration with the setup token. */
export const setupPending = async (deps: Pick<UsersDeps, 'store' | 'signup'>) => deps.signup.setupTokenHash !== null && (await deps.store.count()) === 0

/** Headers a reverse proxy adds: a request carrying one came from somewhere else, whatever the socket says. */
const FORWARDED = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const
export const cameThroughProxy = (headers: Headers) => FORWARDED.some((name) => headers.has(name))

/**
 * Whether this request's registration would need the setup token while no account exists: only
 * when it may come from somebody other than the person at the server's console. A socket on
 * loopback is not enough to tell: behind a proxy on the same machine every stranger arrives
 * from 127.0.0.1, so a trusted proxy or any forwarded header counts as exposed too.
 */
export const setupTokenRequiredOf = (rules: SignupRules, headers: Headers) => rules.setupTokenHash !== null && (rules.exposed || cameThroughProxy(headers))

export interface Registration extends NewAccount {
  invitation_token?: string | null
  setup_token?: string | null
}

/** Compared as digests, in constant time: the token's length and content leak nothing. */
const tokenMatches = (given: string, expectedHash: string) => safeEqual(sha256Hex(given), expectedHash)

interface Given {
  invitation: boolean
  setupToken: string | null
  /** the request came through a proxy (a forwarded header) */
  proxied: boolean
}

/** Throws unless this registration may go ahead; `first`: no account exists yet (it becomes the operator). */
function admit(rules: SignupRules, first: boolean, given: Given) {
  if (first) {
    if (rules.setupTokenHash === null || !(rules.exposed || given.proxied)) return
    if (given.setupToken === null) {
      throw new AppError(
        'setup_token_required',
        'This instance has no operator yet and this request may come from another machine: register with the setup token printed on the server\'s console (header x-setup-token), or create the operator with "vigil admin create"',
        'setup_token',
      )
    }
    if (!tokenMatches(given.setupToken, rules.setupTokenHash)) {
      throw new AppError(
        'setup_token_required',
        "Wrong setup token: use the one printed on the server's console at its latest start (with several hubs, by the hub that started first)",
        'setup_token',
      )
    }
    return
  }
  if (rules.policy === 'closed') throw new AppError('signup_closed', 'Registration is closed on this instance; ask its operator for an account')
  if (rules.policy === 'invite' && !given.invitation) {
    throw new AppError(
      'signup_closed',
      'Registration on this instance needs an invitation: ask a member to invite your email, then register with its invitation_token',
      'invitation_token',
    )
  }
}

/**
 * POST /v1/auth/register under the sign-up policy. The first account is always possible (with
 * the setup token when one is required) and becomes the operator; after it, `open` lets anyone
 * in with a client of their own, `invite` only with an invitation (the account joins the
 * inviting client), `closed` nobody (the operator uses `vigil admin create`).
 */
export async function register(deps: UsersDeps, input: Registration, headers: Headers): Promise<UserRow> {
  const given: Given = {
    invitation: !!input.invitation_token,
    setupToken: headers.get('x-setup-token') ?? input.setup_token ?? null,
    proxied: cameThroughProxy(headers),
  }
  // refused before the password's slow hash; decided again inside the transaction, where it holds
  admit(deps.signup, (await deps.store.count()) === 0, given)
  return createAccount(deps, input, undefined, { admit: (first) => admit(deps.signup, first, given), invitationToken: input.invitation_token ?? null })
}
