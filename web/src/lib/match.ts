// Pure URL helpers of the router (no window), so tests can run them anywhere.

/** A `next` parameter taken only when it is a path on this origin (never an open redirect). */
export function safeNext(next: string | null, fallback = '/dashboard'): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : fallback
}

/** Matches '/devices/:id' (or a trailing '/*', which lands in params['*']) against a path. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const clean = path.length > 1 ? path.replace(/\/+$/, '') : path
  const pp = pattern.split('/').filter(Boolean)
  const sp = clean.split('/').filter(Boolean)
  const params: Record<string, string> = {}
  for (let i = 0; i < pp.length; i++) {
    const p = pp[i]!
    if (p === '*') {
      params['*'] = sp.slice(i).map(decode).join('/')
      return params
    }
    const s = sp[i]
    if (s === undefined) return null
    if (p.startsWith(':')) params[p.slice(1)] = decode(s)
    else if (p !== s) return null
  }
  return sp.length === pp.length ? params : null
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
