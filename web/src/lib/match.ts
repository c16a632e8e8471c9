// Pure URL helpers of the router (no window), so tests can run them anywhere.

/**
 * Where a `next` parameter may send the browser after sign-in or sign-up: only a path on this
 * origin, else the fallback. The value is resolved the way the browser itself would (URL drops tabs
 * and newlines, turns backslashes into slashes: "/\t/evil.example" is "//evil.example", another
 * host), and only then compared with the page's origin, so no spelling of another site passes.
 * The answer is the resolved path, query and hash, never the raw text.
 */
export function safeNext(next: string | null, origin: string, fallback = '/dashboard'): string {
  if (!next || next.length > 2048) return fallback
  let here: URL
  let target: URL
  try {
    here = new URL(origin)
    target = new URL(next, here)
  } catch {
    return fallback
  }
  if (target.origin !== here.origin || !target.pathname.startsWith('/')) return fallback
  return target.pathname + target.search + target.hash
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
