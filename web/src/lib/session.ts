import { computed, signal } from '@preact/signals'
import { ApiError, api, currentToken, onSessionLost, refreshSession, setTokens, toApiError, type TokenResponse } from './api'
import { currentHref, navigate } from './router'
import type { Static } from '@sinclair/typebox'
import type { HealthResponse } from '../../../src/modules/health/health.model'
import type { MembershipResponse, UserResponse } from '../../../src/modules/users/users.model'

/** GET /v1/auth/me (role 'admin' is the instance's operator) */
export type Me = UserResponse
/** GET /v1/auth/memberships */
export type Membership = Static<typeof MembershipResponse>

/** The signed-in user, null when signed out (or not known yet: see `ready`). */
export const me = signal<Me | null>(null)
export const memberships = signal<Membership[]>([])
/** 'own': somebody's own instance; 'service': a hosted service with plans (from /health when it says so). */
export const mode = signal<'own' | 'service'>('own')
/**
 * The instance waits for its operator's registration with the setup token (from /health; an older
 * hub that does not say stays false, and the sign-up form still asks once the server wants it).
 */
export const setupTokenRequired = signal(false)
/** false until the first attempt to restore the session through the cookie has finished */
export const ready = signal(false)

export const isOperator = computed(() => me.value?.role === 'admin')
export const currentMembership = computed(() => memberships.value.find((m) => m.current) ?? null)
/** owner or admin of the client the user is acting for */
export const canAdmin = computed(() => {
  const role = currentMembership.value?.role
  return role === 'owner' || role === 'admin'
})

const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('vigil-session') : null

async function loadUser(): Promise<void> {
  const [user, ms] = await Promise.all([api.get<Me>('/v1/auth/me'), api.get<Membership[]>('/v1/auth/memberships')])
  memberships.value = ms
  me.value = user
}

function clear(): void {
  setTokens(null)
  me.value = null
  memberships.value = []
}

/** On load: the session comes back through the cookie (a reload keeps you signed in). */
export async function restoreSession(): Promise<void> {
  void loadMode()
  try {
    if (await refreshSession()) await loadUser()
  } catch {
    clear()
  } finally {
    ready.value = true
  }
}

async function loadMode(): Promise<void> {
  const health = await api.get<Static<typeof HealthResponse>>('/health', undefined, { anonymous: true }).catch(() => null)
  if (health) mode.value = health.mode
  setupTokenRequired.value = health?.setup_token_required === true
}

async function sessionRequest(path: string, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  }).catch(() => null)
  if (!res) throw new ApiError(0, 'network', 'The server could not be reached. Check your connection and try again.')
  if (!res.ok) throw await toApiError(res)
  setTokens((await res.json()) as TokenResponse)
}

/** Signs in: the server sets the session cookie and answers the first access token. */
export async function signIn(email: string, password: string): Promise<void> {
  await sessionRequest('/v1/auth/session', { email, password })
  await loadUser()
  channel?.postMessage('signed-in')
}

/** Acts for another client of the user (a new token and cookie for that client). */
export async function switchClient(clientId: string): Promise<void> {
  const token = currentToken()
  await sessionRequest('/v1/auth/session/switch', { client_id: clientId }, token ? { authorization: `Bearer ${token}` } : {})
  await loadUser()
}

/** Ends the session on the server (cookie cleared) and here, then shows the sign-in page. */
export async function signOut(): Promise<void> {
  await fetch('/v1/auth/session', { method: 'DELETE', credentials: 'same-origin' }).catch(() => null)
  clear()
  channel?.postMessage('signed-out')
  navigate('/signin', { replace: true })
}

/** Sends to the sign-in page, which comes back here after (`expired`: it says the session ended). */
export function requireSignIn(expired = false): void {
  const here = currentHref()
  if (window.location.pathname === '/signin') return
  navigate(`/signin?next=${encodeURIComponent(here)}${expired ? '&reason=expired' : ''}`, { replace: true })
}

// The session ended under us (expired, revoked, signed out in another tab): sign in again, then back here.
onSessionLost(() => {
  if (!me.value) return
  clear()
  requireSignIn(true)
})

channel?.addEventListener('message', (e) => {
  if (e.data === 'signed-out' && me.value) {
    clear()
    requireSignIn(true)
  }
  if (e.data === 'signed-in' && !me.value) void restoreSession()
})
