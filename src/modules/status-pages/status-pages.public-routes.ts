import { Elysia, t } from 'elysia'
import { notFound } from '../../http/errors'
import { queryInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import { securityHeaders } from '../../http/security-headers'
import { statusBadge, uptimeBadge } from './status-pages.badges'
import { bodyOf, type Body, type RenderCache } from './status-pages.cache'
import { SLUG_PATTERN } from './status-pages.model'
import { BadgeQuery, PublicPage } from './status-pages.public-model'
import { NOT_FOUND_PAGE } from './status-pages.render'
import type { PageRow, StatusPagesStore } from './status-pages.store'
import { BADGE_CSP, STATUS_PAGE_CSP } from './status-pages.style'

export interface PublicRoutesDeps {
  store: StatusPagesStore
  cache: RenderCache
}

const tags = ['status-pages (public)']
const SLUG = new RegExp(SLUG_PATTERN)
const badgeQuery = queryInput(BadgeQuery)
const CACHE = 'public, max-age=30'
const HTML = 'text/html; charset=utf-8'

/** A published page by slug; null for an unknown or unpublished one alike (one indexed read either way). */
async function pageBySlug(store: StatusPagesStore, slug: string): Promise<PageRow | null> {
  if (!SLUG.test(slug)) return null
  const page = await store.pageBySlug(slug)
  return page && page.published === 1 ? page : null
}

/** The host a request was sent to: lower case, without its port or a final dot (`status.example.com.` is the same name). */
export function hostOf(request: Request): string | null {
  const host = request.headers.get('host')
  if (!host || host.length > 260) return null
  return host.replace(/:\d+$/, '').replace(/\.$/, '').toLowerCase()
}

const matches = (request: Request, etag: string) =>
  (request.headers.get('if-none-match') ?? '')
    .split(',')
    .map((s) => s.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*')

/**
 * A cacheable answer: 304 when the caller has these bytes already; gzipped for a caller that
 * takes it (the gzip form has its own ETag: it is other bytes).
 */
function cached(request: Request, body: Body, contentType: string, csp: string, extra: Record<string, string> = {}): Response {
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
  const etag = gzip ? `${body.etag.slice(0, -1)}-gz"` : body.etag
  const headers: Record<string, string> = {
    'content-type': contentType,
    'cache-control': CACHE,
    vary: 'Accept-Encoding',
    etag,
    ...securityHeaders(csp),
    ...extra,
  }
  if (matches(request, etag)) return new Response(null, { status: 304, headers })
  if (!gzip) return new Response(body.text, { headers })
  headers['content-encoding'] = 'gzip'
  return new Response(body.gzip(), { headers })
}

const notFoundPage = () => new Response(NOT_FOUND_PAGE, { status: 404, headers: { 'content-type': HTML, ...securityHeaders(STATUS_PAGE_CSP) } })

/**
 * The public side: no session, anonymous and rate-limited by the gateway like every anonymous
 * path. The page, its JSON and its badges come from one render cache, so a busy page costs one
 * build every 30 seconds whatever its traffic.
 */
export function statusPublicRoutes(deps: PublicRoutesDeps) {
  const { store, cache } = deps
  const html = async (request: Request, page: PageRow) => {
    const r = await cache.get(page)
    return cached(request, r.html, HTML, STATUS_PAGE_CSP)
  }
  return (
    new Elysia({ name: 'status-pages-public' })
      // a custom domain: its page at "/", before the landing page answers it
      .onRequest(async ({ request }) => {
        if (request.method !== 'GET' && request.method !== 'HEAD') return
        const url = request.url
        const path = url.slice(url.indexOf('/', url.indexOf('//') + 2)).split('?')[0]
        if (path !== '/') return
        const host = hostOf(request)
        const page = host ? await store.pageByDomain(host) : null
        if (page && page.published === 1) return html(request, page)
      })
      .get(
        '/status/:slug',
        async ({ params, request }) => {
          const json = params.slug.endsWith('.json')
          const page = await pageBySlug(store, json ? params.slug.slice(0, -5) : params.slug)
          if (!page) {
            // a browser gets a page to read; any other caller the error body every path answers
            if (json || !(request.headers.get('accept') ?? '').includes('text/html')) throw notFound('Status page')
            return notFoundPage()
          }
          if (!json) return html(request, page)
          const r = await cache.get(page)
          // public data without a credential: any site's script may read it (a widget on the team's own site)
          return cached(request, r.json(), 'application/json', "default-src 'none'; frame-ancestors 'none'", { 'access-control-allow-origin': '*' })
        },
        {
          params: t.Object({ slug: t.String() }),
          detail: {
            ...routeErrors('not_found'),
            tags,
            summary: 'A public status page (HTML); /status/{slug}.json answers the same data as JSON',
            description:
              'No credential. The JSON form carries Access-Control-Allow-Origin: * (any site may read it). Cache-Control: public, max-age=30 and an ETag (If-None-Match → 304); the figures are at most 30 s old on the server. ' +
              'An unknown or unpublished slug is 404: a page for a browser (Accept: text/html), else the not_found error body; the answer is the same whether or not the slug exists unpublished.',
            responses: {
              200: { description: 'The page; for {slug}.json the PublicPage JSON', content: { 'text/html': { schema: { type: 'string' } } } },
              304: { description: 'Not modified (If-None-Match matched the ETag)' },
            },
          },
        },
      )
      .get(
        '/status/:slug/badge/:item/:file',
        async ({ params, request }) => {
          const query = badgeQuery.read(request)
          const page = await pageBySlug(store, params.slug)
          const kind = params.file === 'status.svg' ? 'status' : params.file === 'uptime.svg' ? 'uptime' : null
          if (!page || !kind) throw notFound('Status page or badge')
          const r = await cache.get(page)
          const item = r.view.groups.flatMap((g) => g.items).find((i) => i.key === params.item)
          if (!item) throw notFound('Status page or badge')
          const svg = kind === 'status' ? statusBadge(item) : uptimeBadge(item, query.days)
          return cached(request, bodyOf(svg), 'image/svg+xml; charset=utf-8', BADGE_CSP)
        },
        {
          params: t.Object({ slug: t.String(), item: t.String(), file: t.String() }),
          detail: {
            ...routeErrors('not_found'),
            ...badgeQuery.doc,
            tags,
            summary: 'An SVG badge of one item of a public page: {file} is status.svg or uptime.svg (?days=1..90, default 30)',
            description: "{item} is the item's key (the team API shows it). No credential; cacheable like the page.",
            responses: { 200: { description: 'A shields-style SVG', content: { 'image/svg+xml': { schema: { type: 'string' } } } } },
          },
        },
      )
  )
}

/** The JSON form, which Elysia's router serves on the same route as the page: described here for /openapi.json. */
export const STATUS_JSON_PATHS = {
  '/status/{slug}.json': {
    get: {
      tags,
      summary: 'A public status page as JSON (the same data the HTML shows)',
      parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        200: { description: 'The page', content: { 'application/json': { schema: PublicPage } } },
        304: { description: 'Not modified (If-None-Match matched the ETag)' },
      },
      'x-vigil-errors': ['not_found'],
    },
  },
}
