/**
 * A heartbeat URL with its token, between the answer that showed it (creation, rotation) and the
 * check's page that shows it once. Kept in memory only: a reload or another page never sees it.
 */
let fresh: { checkId: string; url: string } | null = null

export function keepSecret(checkId: string, url: string | null): void {
  fresh = url ? { checkId, url } : null
}

/** The URL for this check, once: it is forgotten as it is read. */
export function takeSecret(checkId: string): string | null {
  if (fresh?.checkId !== checkId) return null
  const url = fresh.url
  fresh = null
  return url
}
