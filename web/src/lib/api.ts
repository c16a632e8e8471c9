/**
 * The API client: JSON in and out, the bearer token added, errors as ApiError. The access token
 * lives in this module's memory only; the refresh token is an HttpOnly cookie that scripts never
 * see, sent only to /v1/auth/session/*. A 401 refreshes once through the cookie and retries; when
 * that fails too, the session is over and the page asks to sign in again (next= back here).
 */

import type { SessionTokenResponse } from '../../../src/modules/users/users.model'

export interface ErrorDetail {
  loc: (string | number)[]
  msg: string
  type: string
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly detail: ErrorDetail[] = [],
  ) {
    super(message)
  }
}

/** A browser session's tokens (the refresh token stays in the cookie) */
export type TokenResponse = SessionTokenResponse

type Query = Record<string, string | number | boolean | null | undefined>

let accessToken: string | null = null
let expiresAt = 0
let refreshTimer: ReturnType<typeof setTimeout> | null = null
let refreshing: Promise<boolean> | null = null
const lostListeners = new Set<() => void>()
const tokenListeners = new Set<() => void>()

/** Refreshed this long before the access token expires, so a request never carries a dead one. */
const REFRESH_EARLY_MS = 60_000

export const hasToken = () => accessToken !== null && Date.now() < expiresAt
export const currentToken = () => accessToken

/** Keeps a new access token in memory and schedules its renewal. */
export function setTokens(t: TokenResponse | null): void {
  if (refreshTimer) clearTimeout(refreshTimer)
  refreshTimer = null
  accessToken = t?.access_token ?? null
  expiresAt = t ? Date.now() + t.expires_in * 1000 : 0
  if (t) refreshTimer = setTimeout(() => void refreshSession(), Math.max(5_000, t.expires_in * 1000 - REFRESH_EARLY_MS))
  if (t) for (const l of tokenListeners) l()
}

/** Called with every new access token (the live stream reconnects at once after a sign-in). */
export function onToken(listener: () => void): () => void {
  tokenListeners.add(listener)
  return () => tokenListeners.delete(listener)
}

// Timers stand still while a laptop sleeps: back on the page, a token near its end is renewed first.
// (typed by shape: this module is also loaded by tests outside a browser)
const page = (globalThis as { document?: { visibilityState: string; addEventListener(type: string, listener: () => void): void } }).document
page?.addEventListener('visibilitychange', () => {
  if (page.visibilityState === 'visible' && accessToken && Date.now() > expiresAt - REFRESH_EARLY_MS) void refreshSession()
})

/** Called when the session cannot be renewed (signed out elsewhere, expired, revoked). */
export function onSessionLost(listener: () => void): () => void {
  lostListeners.add(listener)
  return () => lostListeners.delete(listener)
}

/**
 * A new access token through the session cookie; false when there is no session. One at a time
 * in this tab, and across tabs through a Web Lock: the refresh token is single use, and two tabs
 * spending the same one at once would look like a stolen token and end the session.
 */
export function refreshSession(): Promise<boolean> {
  refreshing ??= withLock(async () => {
    const res = await fetch('/v1/auth/session/refresh', { method: 'POST', credentials: 'same-origin', headers: { accept: 'application/json' } }).catch(
      () => null,
    )
    if (res?.ok) {
      setTokens((await res.json()) as TokenResponse)
      return true
    }
    // a network failure keeps the token we have (it may still be valid); a refusal ends the session
    if (res) {
      const had = accessToken !== null
      setTokens(null)
      if (had) for (const l of lostListeners) l()
    }
    return false
  }).finally(() => {
    refreshing = null
  })
  return refreshing
}

function withLock<T>(fn: () => Promise<T>): Promise<T> {
  const locks = (navigator as { locks?: { request: (name: string, cb: () => Promise<T>) => Promise<T> } }).locks
  return locks ? locks.request('vigil-session-refresh', fn) : fn()
}

/** Before a long-lived request (the live stream): a token that will not die in the next minute. */
export async function freshToken(): Promise<string | null> {
  if (!accessToken || Date.now() > expiresAt - REFRESH_EARLY_MS) await refreshSession()
  return accessToken
}

function url(path: string, query?: Query): string {
  if (!query) return path
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path
}

/** The API's error bodies: `{error: {code, message, param}}`, or 422 `{detail: [...]}`. */
export async function toApiError(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string; param?: string | null }; detail?: ErrorDetail[] } | null
  if (body?.error) return new ApiError(res.status, body.error.code ?? 'error', body.error.message ?? res.statusText, body.error.param ?? null)
  if (Array.isArray(body?.detail)) {
    const first = body.detail[0]
    return new ApiError(res.status, 'validation_error', first ? first.msg : 'The request was not valid', null, body.detail)
  }
  return new ApiError(res.status, `http_${res.status}`, `The server answered ${res.status} ${res.statusText}`.trim())
}

export interface RequestOptions {
  query?: Query
  body?: unknown
  /** a 401 is the answer to show (sign-in forms), not a reason to refresh */
  anonymous?: boolean
  signal?: AbortSignal
  headers?: Record<string, string>
}

async function send(method: string, path: string, opts: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers }
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  if (accessToken && !opts.anonymous) headers.authorization = `Bearer ${accessToken}`
  try {
    return await fetch(url(path, opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: 'same-origin',
      signal: opts.signal,
    })
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err
    throw new ApiError(0, 'network', 'The server could not be reached. Check your connection and try again.')
  }
}

export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  let res = await send(method, path, opts)
  if (res.status === 401 && !opts.anonymous) {
    const first = await toApiError(res)
    // a refused password (the password change's current one) is an answer, not an ended session
    if (first.code === 'invalid_credentials') throw first
    if (await refreshSession()) res = await send(method, path, opts)
    else res = new Response(JSON.stringify({ error: { code: first.code, message: first.message } }), { status: 401 })
    if (res.status === 401) {
      setTokens(null)
      for (const l of lostListeners) l()
    }
  }
  if (!res.ok) throw await toApiError(res)
  if (res.status === 204) return undefined as T
  const type = res.headers.get('content-type') ?? ''
  return (type.includes('json') ? await res.json() : await res.text()) as T
}

export const api = {
  get: <T>(path: string, query?: Query, opts?: RequestOptions) => request<T>('GET', path, { ...opts, query }),
  post: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, { ...opts, body }),
  patch: <T>(path: string, body: unknown, opts?: RequestOptions) => request<T>('PATCH', path, { ...opts, body }),
  put: <T>(path: string, body: unknown, opts?: RequestOptions) => request<T>('PUT', path, { ...opts, body }),
  del: <T = void>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, opts),
}
