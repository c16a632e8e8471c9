import { Elysia } from 'elysia'
import { DOCS_CSP, securityHeaders } from './security-headers'

/**
 * /docs: Swagger UI from this server's own files (an appliance on a LAN may have no internet)
 * with nothing inline, so its CSP needs no 'unsafe-inline': the start-up script and the dark
 * theme are files of their own. The bundle and its stylesheet are served by http/pages.ts.
 */
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vigil API</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="stylesheet" href="/docs/assets/docs.css"></head>
<body><div id="swagger-ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/assets/docs.js"></script></body></html>`

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
// Sections start folded, with a filter box and links to each operation: with every one of the
// API's ~140 operations open at once, Swagger UI stops drawing after the first few sections.
const START = `window.ui = SwaggerUIBundle({ dom_id: '#swagger-ui', url: '/openapi.json', validatorUrl: null, docExpansion: 'none', filter: true, deepLinking: true })\n`

const DARK = `@media (prefers-color-scheme: dark) {
  body { background-color: #222; color: #faf9fa; }
  .swagger-ui { filter: invert(92%) hue-rotate(180deg); }
  .swagger-ui .microlight { filter: invert(100%) hue-rotate(180deg); }
}
`

const cached = { 'cache-control': 'public, max-age=86400' }

export function docsPage() {
  return new Elysia({ name: 'docs-page' })
    .get('/docs', () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', ...securityHeaders(DOCS_CSP) } }), {
      detail: { hide: true },
    })
    .get('/docs/assets/docs.js', () => new Response(START, { headers: { 'content-type': 'text/javascript; charset=utf-8', ...cached } }), {
      detail: { hide: true },
    })
    .get('/docs/assets/docs.css', () => new Response(DARK, { headers: { 'content-type': 'text/css; charset=utf-8', ...cached } }), {
      detail: { hide: true },
    })
}
