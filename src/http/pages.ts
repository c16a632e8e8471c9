import { Elysia } from 'elysia'
import landingHtml from '../../web/index.html' with { type: 'text' }
import siteCss from '../../web/site.css' with { type: 'text' }
import favicon from '../../web/favicon.svg' with { type: 'text' }
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import { ERROR_CODES } from './errors'
import { PAGE_CSP, securityHeaders } from './security-headers'

// bun-types types every .html import as a bundle; with type 'text' it is the file's text.
const landing = landingHtml as unknown as string

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

function errorsPage(): string {
  const rows = Object.entries(ERROR_CODES)
    .map(([code, { status, description }]) => `<tr id="${code}"><td><code>${code}</code></td><td>${status}</td><td>${escapeHtml(description)}</td></tr>`)
    .join('\n')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vigil error codes</title><link rel="stylesheet" href="/assets/site.css"></head><body>
<h1>Error codes</h1>
<p>Every error other than a validation failure has the body
<code>{"error":{"code","message","param","doc_url"}}</code>. Validation failures are 422 with
<code>{"detail":[{"loc","msg","type"}]}</code>. Codes are stable; branch on them, not on messages.</p>
<table><thead><tr><th>code</th><th>status</th><th>meaning</th></tr></thead><tbody>
${rows}
</tbody></table><p><a href="/">Vigil</a> · <a href="/docs">API reference</a></p></body></html>`
}

const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8', ...securityHeaders(PAGE_CSP) } })
const immutable = { 'cache-control': 'public, max-age=86400' }

/** The landing page, the error-code reference, the icon and the docs assets, all embedded in the binary. */
export function pages() {
  const errors = errorsPage()
  return (
    new Elysia({ name: 'pages' })
      .get('/', () => html(landing), { detail: { hide: true } })
      .get('/docs/errors', () => html(errors), { detail: { hide: true } })
      // browsers ask /favicon.ico on their own (a bookmark, a tab, the landing page): an SVG is what they get
      .get('/favicon.ico', () => new Response(favicon, { headers: { 'content-type': 'image/svg+xml', 'x-content-type-options': 'nosniff', ...immutable } }), {
        detail: { hide: true },
      })
      .get('/assets/site.css', () => new Response(siteCss, { headers: { 'content-type': 'text/css; charset=utf-8', ...immutable } }), {
        detail: { hide: true },
      })
      .get(
        '/docs/assets/swagger-ui-bundle.js',
        () => new Response(Bun.file(swaggerBundle), { headers: { 'content-type': 'text/javascript; charset=utf-8', ...immutable } }),
        { detail: { hide: true } },
      )
      .get('/docs/assets/swagger-ui.css', () => new Response(Bun.file(swaggerCss), { headers: { 'content-type': 'text/css; charset=utf-8', ...immutable } }), {
        detail: { hide: true },
      })
  )
}
