import { Elysia } from 'elysia'
import { AppError } from './errors'
import { securityHeaders } from './security-headers'
import { bundleWeb, contentType, type EmbeddedWeb, type WebAsset, type WebBundle } from './web-bundle'
import { EMBEDDED_WEB } from './web-assets.gen'

/**
 * The portal's policy: nothing but this origin's own files; no inline script or style, no
 * framing, no plug-ins, forms post here only. Preact sets styles through the DOM (allowed).
 */
export const PORTAL_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

/** Paths that belong to the API or to the server's own pages: never the portal's shell, whatever follows. */
const NOT_PORTAL = /^\/(v1|health|metrics|docs|openapi\.json|download|install\.sh|assets|app)(\/|$)/

/** The portal's URLs (web/src/routes.ts); any other path gets the shell with 404 and the client's not-found page. */
const PORTAL_ROUTE =
  /^\/(dashboard|devices(\/[^/]+)?|containers|checks(\/.*)?|recommendations|alerts(\/.*)?|settings(\/[^/]+)?|pricing|admin|signin|signup|invite\/[^/]+)\/?$/

const SHELL_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  ...securityHeaders(PORTAL_CSP),
  'referrer-policy': 'same-origin',
}
const IMMUTABLE = 'public, max-age=31536000, immutable'

function shellHtml(bundle: WebBundle): string {
  const styles = bundle.styles.map((s) => `<link rel="stylesheet" href="/app/${s}">`).join('')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>Vigil</title><link rel="icon" href="/favicon.ico" type="image/svg+xml">${styles}<script type="module" src="/app/${bundle.entry}"></script></head><body><noscript>The Vigil portal needs JavaScript. The API is documented at <a href="/docs">/docs</a>.</noscript><div id="app"></div></body></html>`
}

function fromEmbedded(web: EmbeddedWeb): WebBundle {
  return {
    entry: web.entry,
    styles: web.styles,
    assets: web.files.map((f) => ({
      name: f.name,
      type: contentType(f.name),
      body: Bun.file(f.path),
      gzip: f.gzip ? Bun.file(f.gzip) : null,
      br: f.br ? Bun.file(f.br) : null,
    })),
  }
}

/** Which of the encodings we hold the client takes, best first (`br;q=0` refuses). */
export function pickEncoding(acceptEncoding: string | null, asset: Pick<WebAsset, 'gzip' | 'br'>): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null
  const accepted = new Set<string>()
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [coding, ...params] = part.trim().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    if (coding && (!q || Number(q.slice(2)) > 0)) accepted.add(coding)
  }
  if (asset.br && accepted.has('br')) return 'br'
  if (asset.gzip && accepted.has('gzip')) return 'gzip'
  return null
}

interface Served {
  bundle: WebBundle
  shell: string
  byName: Map<string, WebAsset>
}

/**
 * The web portal: hashed files under /app/ (immutable, precompressed) and the HTML shell for
 * every portal URL (never cached, strict CSP). The executable carries the bundle scripts/build.ts
 * embedded; from source, the first request bundles web/src in memory (a second or so).
 */
export function portal(load: () => Promise<WebBundle> = defaultLoader) {
  let served: Promise<Served> | null = null
  const get = () =>
    (served ??= load().then(
      (bundle) => ({ bundle, shell: shellHtml(bundle), byName: new Map(bundle.assets.map((a) => [a.name, a])) }),
      (err) => {
        served = null // a failed bundle (a syntax error while developing) is retried on the next request
        throw err
      },
    ))

  /** GET /app/<hashed name>: served by Bun's router ahead of the request pipeline (static files, not the API's budget). */
  async function asset(request: Request): Promise<Response> {
    const name = new URL(request.url).pathname.slice('/app/'.length)
    const a = (await get()).byName.get(name)
    if (!a) return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } })
    const encoding = pickEncoding(request.headers.get('accept-encoding'), a)
    const headers: Record<string, string> = { 'content-type': a.type, 'cache-control': IMMUTABLE, vary: 'accept-encoding', 'x-content-type-options': 'nosniff' }
    if (encoding) headers['content-encoding'] = encoding
    return new Response(encoding ? a[encoding]! : a.body, { headers })
  }

  async function shell(status = 200): Promise<Response> {
    return new Response((await get()).shell, { status, headers: SHELL_HEADERS })
  }

  const plugin = new Elysia({ name: 'portal' }).get(
    '/*',
    ({ request }) => {
      const path = new URL(request.url).pathname
      if (NOT_PORTAL.test(path)) throw new AppError('not_found', `No route for GET ${path}`)
      return shell(PORTAL_ROUTE.test(path) ? 200 : 404)
    },
    { detail: { hide: true } },
  )
  return { plugin, asset, shell, bundle: async () => (await get()).bundle }
}

/** One bundle per process, however many apps it makes (the tests make one per test). */
let shared: Promise<WebBundle> | null = null
function defaultLoader(): Promise<WebBundle> {
  if (EMBEDDED_WEB) return Promise.resolve(fromEmbedded(EMBEDDED_WEB))
  return (shared ??= bundleWeb().catch((err) => {
    shared = null
    throw err
  }))
}
