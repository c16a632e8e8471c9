import { ERROR_CODES, type ErrorCode } from './errors'

/**
 * What a route declares beyond its schemas, under OpenAPI extension keys that completeDocument
 * replaces with the real thing: its credential (set by the guard macros), its query and body
 * (http/input.ts), and the error codes its service can answer beyond the ones every route of
 * its kind can.
 */
export const AUTH_DOC = 'x-vigil-auth'
export const ERRORS_DOC = 'x-vigil-errors'
/** `scrape`: GET /metrics, which takes a bearer token (metrics token or operator JWT) or an API key */
export type Credential = 'jwt' | 'key' | 'scrape'

/** OpenAPI `security` of each credential (the schemes are declared in openapi.ts). */
const JWT_AUTH: Record<string, string[]>[] = [{ bearer: [] }]
const KEY_AUTH: Record<string, string[]>[] = [{ apiKey: [] }, { bearer: [] }]
const SECURITY: Record<Credential, Record<string, string[]>[]> = { jwt: JWT_AUTH, key: KEY_AUTH, scrape: [{ bearer: [] }, { apiKey: [] }] }

/** A route's own error codes, for its `detail`: `detail: { ...routeErrors('email_taken'), … }` */
export const routeErrors = (...codes: ErrorCode[]) => ({ [ERRORS_DOC]: codes })

/** Codes any request can meet, whatever the route. */
const EVERY_ROUTE: ErrorCode[] = ['rate_limited', 'internal_error']
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete'])

type Operation = Record<string, unknown> & {
  parameters?: { in: string }[]
  responses?: Record<string, unknown>
  requestBody?: unknown
}

const ERROR_REF = { $ref: '#/components/schemas/ErrorBody' }
const VALIDATION_REF = { $ref: '#/components/schemas/HTTPValidationError' }

/** The schemas the error responses refer to, for `components.schemas`. */
export const ERROR_SCHEMAS = {
  ErrorBody: {
    type: 'object' as const,
    required: ['error'],
    properties: {
      error: {
        type: 'object' as const,
        required: ['code', 'message', 'param', 'doc_url'],
        properties: {
          code: { type: 'string' as const, enum: Object.keys(ERROR_CODES) },
          message: { type: 'string' as const },
          param: { type: 'string' as const, description: 'the offending parameter, or empty' },
          doc_url: { type: 'string' as const },
        },
      },
    },
  },
  HTTPValidationError: {
    type: 'object' as const,
    required: ['detail'],
    properties: {
      detail: {
        type: 'array' as const,
        items: {
          type: 'object' as const,
          required: ['loc', 'msg', 'type'],
          properties: {
            loc: { type: 'array' as const, items: { anyOf: [{ type: 'string' as const }, { type: 'integer' as const }] } },
            msg: { type: 'string' as const },
            type: { type: 'string' as const },
          },
        },
      },
    },
  },
}

/** The error codes an operation can answer, from what it declares. */
export function errorCodesOf(method: string, op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>(EVERY_ROUTE)
  const credential = op[AUTH_DOC] as Credential | undefined
  if (credential) {
    codes.add('unauthorized')
    if (credential !== 'key') codes.add('forbidden')
    if (credential !== 'jwt') codes.add('insufficient_scope')
  }
  const params = op.parameters ?? []
  if (params.some((p) => p.in === 'path')) codes.add('not_found')
  if (params.length || op.requestBody) codes.add('validation_error')
  if (BODY_METHODS.has(method)) {
    // any body is read and size-checked, even where the route takes none, and must be JSON
    codes.add('payload_too_large')
    codes.add('unsupported_media_type')
    codes.add('validation_error')
  }
  for (const code of (op[ERRORS_DOC] as ErrorCode[] | undefined) ?? []) codes.add(code)
  return [...codes]
}

/** Every operation's extension keys made into parameters, request body, security and error responses. */
export function completeDocument(doc: { paths?: Record<string, Record<string, Operation>> }, extensions: { query: string; body: string }) {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) completeOperation(path, method, op, extensions)
  }
}

function completeOperation(path: string, method: string, op: Operation, ext: { query: string; body: string }) {
  op.operationId = operationIdOf(method, path)
  if (op[ext.query]) {
    op.parameters = [...(op.parameters ?? []).filter((p) => p.in !== 'query'), ...(op[ext.query] as { in: string }[])]
    delete op[ext.query]
  }
  if (!op.parameters && path.includes('{')) {
    op.parameters = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1]!, in: 'path', required: true, schema: { type: 'string' } }))
  }
  if (op[ext.body]) {
    op.requestBody = op[ext.body]
    delete op[ext.body]
  }
  const credential = op[AUTH_DOC] as Credential | undefined
  if (credential) op.security = SECURITY[credential]
  const responses = (op.responses ??= {})
  for (const r of Object.values(responses) as { content?: Record<string, { schema?: unknown }> }[]) {
    for (const media of Object.values(r.content ?? {})) closeObjects(media.schema)
  }
  if (!Object.keys(responses).some((s) => s.startsWith('2'))) responses['204'] = { description: 'Done; no content' }
  for (const [status, codes] of byStatus(errorCodesOf(method, op))) {
    const schemas = codes.map((c) => (c === 'validation_error' ? VALIDATION_REF : ERROR_REF))
    const unique = [...new Map(schemas.map((s) => [s.$ref, s])).values()]
    responses[status] ??= {
      description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].description}`).join(' '),
      content: { 'application/json': { schema: unique.length === 1 ? unique[0] : { oneOf: unique } } },
    }
  }
  delete op[AUTH_DOC]
  delete op[ERRORS_DOC]
}

/**
 * Answers are cleaned to their schema (the router drops undeclared properties), so their object
 * schemas are closed unless they say otherwise. Said here for every response, because the router
 * marks a schema so only once it has first served the route, which made the document depend on
 * which routes had been called before it was first asked for.
 */
function closeObjects(schema: unknown): void {
  if (!schema || typeof schema !== 'object') return
  const s = schema as Record<string, unknown>
  if (s.type === 'object' && s.additionalProperties === undefined && (s.properties || s.patternProperties)) s.additionalProperties = false
  for (const value of Object.values(s)) {
    if (Array.isArray(value)) value.forEach(closeObjects)
    else if (value && typeof value === 'object') closeObjects(value)
  }
}

/**
 * One naming for every operation, whichever router serves it: the method, then each path
 * segment in camel case, parameters as `By<Name>` (`DELETE /v1/auth/api-keys/{key_id}` →
 * `deleteV1AuthApiKeysByKeyId`), so generated clients get valid identifiers.
 */
export function operationIdOf(method: string, path: string): string {
  const camel = (word: string) =>
    word
      .split(/[-_]/)
      .map((w) => (w[0] ?? '').toUpperCase() + w.slice(1))
      .join('')
  // a parameter may share its segment with a suffix (`{slug}.json` → `BySlugJson`)
  const segments = path
    .split('/')
    .filter(Boolean)
    .flatMap((seg) => seg.split(/(\{\w+\})/).filter(Boolean))
    .map((part) => (part.startsWith('{') ? `By${camel(part.slice(1, -1))}` : camel(part.replace(/[^A-Za-z0-9_-]/g, '-'))))
  return method.toLowerCase() + (segments.join('') || 'Index')
}

function byStatus(codes: ErrorCode[]): Map<string, ErrorCode[]> {
  const out = new Map<string, ErrorCode[]>()
  for (const code of codes) {
    const status = String(ERROR_CODES[code].status)
    out.set(status, [...(out.get(status) ?? []), code])
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)))
}
