/**
 * The headers that keep browsers from misreading what this server answers: every answer says
 * what it may load (CSP), that it may not be framed (clickjacking) and that its content type is
 * meant (no sniffing). One policy per kind of answer, each as narrow as that answer allows.
 */

/** JSON answers load nothing and are never a page. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'"

/** The landing page and the error-code reference: markup and this server's own stylesheet. */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

/**
 * The API reference (Swagger UI): its script, styles and start-up script are this server's
 * files (http/docs-page.ts), it reads /openapi.json and "try it out" calls this origin; its
 * icons are data: images. No inline script, no third-party origin.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

/** The three headers for an answer under `csp`. */
export const securityHeaders = (csp: string) => ({
  'content-security-policy': csp,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
})

/** What every answer through the request pipeline starts with; a page replaces the CSP with its own. */
export const API_HEADERS = Object.freeze(securityHeaders(API_CSP))
