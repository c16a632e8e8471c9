import type { Clock } from '../../lib/clock'
import { renderPage } from './status-pages.render'
import { renderJson } from './status-pages.render-json'
import type { PageRow } from './status-pages.store'
import type { PageData } from './status-pages.view'

/** One form of a page (HTML or JSON): its text, its ETag, and its gzip form, made on first demand. */
export interface Body {
  text: string
  etag: string
  gzip(): Uint8Array
}

/** One page's answers, rendered once and served until the page changes or they are 30 s old. */
export interface Rendered {
  view: PageData
  html: Body
  /** the JSON form, written on its first request (most visitors want the HTML only) */
  json(): Body
  at: number
  bytes: number
  /** something it shows moved (a check's state): rebuilt once it is STALE_MIN_MS old */
  stale?: boolean
}

export const RENDER_TTL_MS = 30_000
/** A flapping check marks its pages stale on every change; a page is still rebuilt at most this often for it. */
export const STALE_MIN_MS = 5_000
/**
 * What the renders may hold in all, counted as twice the markup (the markup, then its JSON form
 * and the view the badges read, together less than the markup again): a page of 100 checks is ~2 MB, an account has at most 20 pages, so one
 * account fills at most a little more than this and others' pages are rebuilt when next asked.
 */
export const MAX_BYTES = 48 * 1024 * 1024

const etagOf = (body: string) => `"${Bun.hash(body).toString(36)}"`

/** A page of 50 checks is ~0.5 MB of markup (a titled bar per day) and ~10 KB gzipped: compressed once per render, not per visitor. */
export function bodyOf(text: string): Body {
  let gz: Uint8Array | null = null
  return { text, etag: etagOf(text), gzip: () => (gz ??= Bun.gzipSync(text)) }
}

/**
 * The server-side render cache: per page id, dropped when the team changes the page or its
 * notes (`invalidate`), refreshed when older than RENDER_TTL_MS (figures move on their own),
 * least recently used first out past `maxBytes` in all (the one just asked for always stays).
 * `stale` marks a render whose figures moved (a check went down): it is rebuilt when next asked
 * once it is STALE_MIN_MS old, so the news shows within seconds and no faster than that.
 */
export function createRenderCache(clock: Clock, build: (page: PageRow) => Promise<PageData>, maxBytes = MAX_BYTES) {
  const entries = new Map<string, Rendered>()
  /** builds under way: the visitors who ask meanwhile wait for the same one */
  const building = new Map<string, Promise<Rendered>>()
  /** per page, how often it changed while a build was under way (entries go with the build) */
  const changes = new Map<string, number>()
  let bytes = 0
  const drop = (id: string) => {
    const e = entries.get(id)
    if (!e) return
    entries.delete(id)
    bytes -= e.bytes
  }
  const render = async (page: PageRow, now: number): Promise<Rendered> => {
    const view = await build(page)
    const html = renderPage(view)
    let json: Body | null = null
    return { view, html: bodyOf(html), json: () => (json ??= bodyOf(renderJson(view))), at: now, bytes: 2 * html.length }
  }
  return {
    async get(page: PageRow): Promise<Rendered> {
      const now = clock.now()
      let hit = entries.get(page.id)
      const age = hit ? now - hit.at : 0
      if (!hit || age >= RENDER_TTL_MS || (hit.stale && age >= STALE_MIN_MS)) {
        const generation = changes.get(page.id) ?? 0
        let pending = building.get(page.id)
        if (!pending) {
          const p = render(page, now).finally(() => {
            if (building.get(page.id) === p) building.delete(page.id)
          })
          building.set(page.id, (pending = p))
        }
        const built = await pending
        // the page changed while this was built: answered, not kept
        if ((changes.get(page.id) ?? 0) !== generation) return built
        hit = built
      }
      drop(page.id)
      entries.set(page.id, hit)
      bytes += hit.bytes
      for (const id of entries.keys()) {
        if (bytes <= maxBytes || id === page.id) break
        drop(id)
      }
      return hit
    },
    /** the page changed: its render goes, and a build under way is not kept */
    invalidate(id: string) {
      drop(id)
      if (building.delete(id)) changes.set(id, (changes.get(id) ?? 0) + 1)
    },
    stale(id: string) {
      const e = entries.get(id)
      if (e) e.stale = true
    },
    /** every render goes (another hub's changes may have been missed) */
    clear() {
      for (const id of [...entries.keys()]) drop(id)
    },
    size: () => entries.size,
    bytes: () => bytes,
  }
}

export type RenderCache = ReturnType<typeof createRenderCache>
