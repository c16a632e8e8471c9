/**
 * The browser session's refresh token lives in a cookie scripts cannot read (HttpOnly), sent
 * only to the session endpoints (Path) and never on a request another site starts
 * (SameSite=Strict). The access token stays in the page's memory.
 */
export const SESSION_COOKIE = 'vigil_session'
export const SESSION_PATH = '/v1/auth/session'
/** a refresh token is `vrt_` + 43 characters; anything much longer is not one */
const MAX_TOKEN_LENGTH = 512

/** What decides how the cookie is set and whom the endpoints answer. */
export interface CookieSite {
  /** VIGIL_SITE_URL: the portal's public address */
  siteUrl: string
  /** the service serves HTTPS itself */
  tls: boolean
  /** VIGIL_TRUST_PROXY: a proxy in front says in x-forwarded-proto how the request came */
  trustProxy: boolean
}

/** Whether the browser reached us over HTTPS: natively, or through a trusted TLS-terminating proxy. */
export function overHttps(request: Request, site: CookieSite): boolean {
  if (site.tls || request.url.startsWith('https:')) return true
  if (!site.trustProxy) return false
  return request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https'
}

/** The Set-Cookie value that stores `token` for `maxAgeSeconds` (0 with an empty token: clears it). */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=${SESSION_PATH}; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`
}

export const clearedCookie = (secure: boolean) => sessionCookie('', 0, secure)

/** The refresh token the request's cookie carries, or null. */
export function readSessionCookie(request: Request): string | null {
  const header = request.headers.get('cookie')
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue
    const value = part.slice(eq + 1).trim()
    return value && value.length <= MAX_TOKEN_LENGTH ? value : null
  }
  return null
}

/**
 * Whether a browser on another site sent the request: its Origin is neither the portal's
 * (VIGIL_SITE_URL) nor this request's own, or the browser says so (Sec-Fetch-Site). A request
 * without Origin comes from no browser page (a script, curl) and carries no ambient cookie risk.
 */
export function crossSite(request: Request, site: CookieSite): boolean {
  const h = request.headers
  if (h.get('sec-fetch-site') === 'cross-site') return true
  const origin = h.get('origin')
  if (origin === null) return false
  const host = h.get('host') ?? new URL(request.url).host
  const own = `${overHttps(request, site) ? 'https' : 'http'}://${host}`
  return origin !== own && origin !== new URL(site.siteUrl).origin
}
