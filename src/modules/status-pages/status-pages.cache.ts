import type { Clock } from '../../lib/clock'
import type { PublicPage } from './status-pages.public-model'
import { renderPage } from './status-pages.render'
import type { PageRow } from './status-pages.store'

/** One form of a page (HTML or JSON): its text, its ETag, and its gzip form, made on first demand. */
export interface Body {
  text: string
  etag: string
  gzip(): Uint8Array
}

/** One page's answers, rendered once and served until the page changes or they are 30 s old. */
export interface Rendered {
  view: PublicPage
  html: Body
  json: Body
  at: number
}

export const RENDER_TTL_MS = 30_000
/** pages kept rendered; an account has at most 20, so no account crowds out many others */
const MAX_ENTRIES = 1000

const etagOf = (body: string) => `"${Bun.hash(body).toString(36)}"`

/** A page of 50 checks is ~0.5 MB of markup (a titled bar per day) and ~10 KB gzipped: compressed once per render, not per visitor. */
export function bodyOf(text: string): Body {
  let gz: Uint8Array | null = null
  return { text, etag: etagOf(text), gzip: () => (gz ??= Bun.gzipSync(text)) }
}

/**
 * The server-side render cache: per page id, dropped when the team changes the page or its
 * notes (`invalidate`), refreshed when older than RENDER_TTL_MS (figures move on their own),
 * least recently used first out past MAX_ENTRIES.
 */
export function createRenderCache(clock: Clock, build: (page: PageRow) => PublicPage) {
  const entries = new Map<string, Rendered>()
  return {
    get(page: PageRow): Rendered {
      const now = clock.now()
      let hit = entries.get(page.id)
      if (hit) entries.delete(page.id)
      if (!hit || now - hit.at >= RENDER_TTL_MS) {
        const view = build(page)
        hit = { view, html: bodyOf(renderPage(view)), json: bodyOf(JSON.stringify(view)), at: now }
      }
      entries.set(page.id, hit)
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!)
      return hit
    },
    invalidate: (pageId: string) => void entries.delete(pageId),
    size: () => entries.size,
  }
}

export type RenderCache = ReturnType<typeof createRenderCache>
