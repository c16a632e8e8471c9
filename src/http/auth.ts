import { Elysia } from 'elysia'
import { AppError, forbidden, unauthorized } from './errors'
import type { Authenticator, KeyPrincipal, MemberRole, UserPrincipal } from './principal'
import { requestState } from './request-state'
import { AUTH_DOC, type Credential } from './openapi-errors'

/**
 * Every scope an API key can hold. The first two are the spec's defaults; `metrics:read` lets a
 * Prometheus server scrape GET /metrics for the key's own client.
 */
export const SCOPES = ['metrics:write', 'recommendations:write', 'devices:write', 'versions:read', 'metrics:read'] as const
export type Scope = (typeof SCOPES)[number]

export interface UserRequirement {
  /** member roles allowed in the caller's client (default: any active member) */
  roles?: MemberRole[]
  /** instance operator only */
  operator?: boolean
}

function requireUser(request: Request): UserPrincipal {
  const state = requestState(request)
  const p = state?.principal
  if (p?.kind === 'user') return p
  if (p?.kind === 'key') throw unauthorized('API keys are not accepted here; sign in and send the access token as "authorization: Bearer <token>"')
  if (state?.failure) {
    throw unauthorized(state.failure.presented === 'key' ? 'API keys are not accepted here; sign in and send the access token' : state.failure.message)
  }
  throw unauthorized('Authentication required: send "authorization: Bearer <access token>"')
}

function requireKey(request: Request): KeyPrincipal {
  const state = requestState(request)
  const p = state?.principal
  if (p?.kind === 'key') return p
  if (p?.kind === 'user') throw unauthorized('This endpoint takes an API key in "x-api-key", not an access token')
  if (state?.failure) {
    throw unauthorized(state.failure.presented === 'jwt' ? 'This endpoint takes an API key in "x-api-key", not an access token' : state.failure.message)
  }
  throw unauthorized('API key required: send it in "x-api-key" or as "authorization: Bearer <key>"')
}

/** The request's API key, if it holds one of the scopes (else 401 / 403 insufficient_scope). */
export function requireKeyScope(request: Request, scope: Scope | Scope[]): KeyPrincipal {
  const key = requireKey(request)
  const anyOf = Array.isArray(scope) ? scope : [scope]
  if (!anyOf.some((s) => key.scopes.includes(s))) {
    throw new AppError('insufficient_scope', `This API key lacks the scope ${anyOf.join(' or ')}`, anyOf[0])
  }
  return key
}

/** What a scrape of GET /metrics may see: the whole instance, or one client's devices. */
export type ScrapeScope = { kind: 'instance' } | { kind: 'client'; clientId: string }

/**
 * The three credentials GET /metrics takes: the VIGIL_METRICS_TOKEN bearer (recognised on
 * admission, see pipeline.ts) or the operator's access token see the instance; an API key with
 * metrics:read sees its own client. A tenant's access token is refused: tenants scrape with a key.
 */
export function requireScraper(request: Request): ScrapeScope {
  const state = requestState(request)
  if (state?.scraper) return { kind: 'instance' }
  const p = state?.principal
  if (p?.kind === 'user') {
    if (p.role !== 'admin') throw forbidden('Only the instance operator scrapes every device; scrape your own with an API key holding metrics:read')
    return { kind: 'instance' }
  }
  if (p?.kind === 'key') return { kind: 'client', clientId: requireKeyScope(request, 'metrics:read').clientId }
  if (state?.failure) throw unauthorized(state.failure.message)
  throw unauthorized('Credential required: the metrics token or an access token as "authorization: Bearer …", or an API key with metrics:read')
}

/** What a guard tells the OpenAPI document: which credential the route takes. */
const authDoc = (credential: Credential) => ({ [AUTH_DOC]: credential }) as Record<string, unknown>

/**
 * Route guards as macros: `{ user: true }`, `{ user: { roles: ['owner', 'admin'] } }`,
 * `{ user: { operator: true } }`, `{ key: 'metrics:write' }` or `{ key: [...any of] }`.
 * The check runs in `transform`, before validation, so an anonymous caller learns nothing
 * about a route's schema; `resolve` then hands the typed principal to the handler.
 */
export function authGuards(auth: Authenticator) {
  return new Elysia({ name: 'auth-guards' }).macro({
    user: (req: true | UserRequirement) => ({
      detail: authDoc('jwt'),
      async transform({ request }) {
        const p = requireUser(request)
        const want = req === true ? {} : req
        if (want.operator && p.role !== 'admin') throw forbidden('Only the instance operator may do this')
        const read = auth.memberRole(p.userId, p.clientId)
        const role = read instanceof Promise ? await read : read
        if (role === null) throw forbidden('Your membership of this account is not active')
        if (want.roles && !want.roles.includes(role)) {
          throw forbidden(`This needs the role ${want.roles.join(' or ')} in your account; you are ${role}`)
        }
        requestState(request)!.memberRole = role // resolve hands it on without a second query
      },
      resolve({ request }) {
        return { user: requireUser(request), memberRole: requestState(request)!.memberRole! }
      },
    }),
    key: (scope: Scope | Scope[]) => ({
      detail: authDoc('key'),
      transform({ request }) {
        requireKeyScope(request, scope)
      },
      resolve({ request }) {
        return { key: requireKey(request) }
      },
    }),
  })
}
