/**
 * Connection URLs (VIGIL_DATABASE_URL, VIGIL_REDIS_URL) carry passwords: what logs, errors and
 * printed settings show of them goes through here.
 */

/** The URL with its password (if any) replaced by ***. Not a URL: nothing of it is repeated, it may hold the password anywhere. */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(not a URL)'
  }
}

/** The password in a URL, decoded as a client sends it (to scrub it from a driver's error texts). */
export function urlPassword(raw: string): string | undefined {
  try {
    return decodeURIComponent(new URL(raw).password) || undefined
  } catch {
    return undefined
  }
}
