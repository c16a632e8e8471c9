import { Kind, OptionalKind, type Static, type TObject, type TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { Value } from '@sinclair/typebox/value'
import { dedupe, toDetail, type ValidationDetail } from './validation'

/**
 * A request part (body, query) that does not match its schema: a 422 with the spec's `detail`
 * list. The pipeline's own type, so no router's error classes leak into the mapping.
 */
export class RequestValidationError extends Error {
  constructor(readonly detail: ValidationDetail[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '))
  }
}

/**
 * Request bodies and query strings are checked here, not by the router: Elysia coerces
 * (a string "5" for an integer, `[1,2]` or `"x"` for an optional object), strips properties a
 * schema forbids instead of refusing them, and recognises its own decode failures by class
 * name, which a minified build renames. These checks are compiled TypeBox with no coercion,
 * so the source and the executable answer alike. Schemas use TypeBox's own `Type.Integer`:
 * Elysia's `t.Integer` is a union that also takes a numeric string ("5") and decodes it only
 * inside Elysia's validator.
 */
function compiled<T extends TSchema>(schema: T): () => TypeCheck<T> {
  // Compiled on first use: compiling every schema at start-up made the engine optimise
  // TypeBox's compiler and kept more memory at idle. A compiled check costs a fraction of a
  // microsecond on an ingest body, far below the router's per-request validation.
  let check: TypeCheck<T> | undefined
  return () => (check ??= TypeCompiler.Compile(schema))
}

const detailsOf = (where: 'body' | 'query', check: TypeCheck<TSchema>, value: unknown): ValidationDetail[] => {
  const all = dedupe([...check.Errors(value)].map((e) => toDetail(where, e)))
  return all.length ? all : [{ loc: [where], msg: 'Invalid value', type: 'value_error' }]
}

const hasRequired = (schema: TSchema) => ((schema as { required?: unknown[] }).required?.length ?? 0) > 0

/**
 * A reader for a JSON body: exactly the schema's types (no coercion), its defaults filled in,
 * and only its declared properties handed on. An absent body reads as `{}` when the schema
 * requires nothing (every field optional), else it is a 422 like any other mismatch.
 */
export function bodyReader<T extends TSchema>(schema: T): (body: unknown) => Static<T> {
  const check = compiled(schema)
  const optional = schema[Kind] === 'Object' && !hasRequired(schema)
  // the ingest bodies have no defaults: they skip the walk that fills them
  const defaults = JSON.stringify(schema).includes('"default":')
  const declared = declaredKeys(schema)
  return (body) => {
    const value = body === undefined && optional ? {} : body
    const c = check()
    const filled = defaults && value !== null && typeof value === 'object' ? Value.Default(schema, value) : value
    if (!c.Check(filled)) throw new RequestValidationError(detailsOf('body', c, filled))
    if (declared && filled !== null && typeof filled === 'object' && !Array.isArray(filled)) {
      for (const key of Object.keys(filled)) if (!declared.has(key)) delete (filled as Record<string, unknown>)[key]
    }
    return filled as Static<T>
  }
}

/**
 * The top-level names a closed object schema declares: only these reach a service (no mass
 * assignment of fields a route does not take); nested free-form parts are kept as sent. Null
 * for a schema that is open (it says so with additionalProperties) or not an object.
 */
function declaredKeys(schema: TSchema): Set<string> | null {
  const s = schema as { properties?: Record<string, unknown>; additionalProperties?: unknown }
  if (schema[Kind] !== 'Object' || !s.properties) return null
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return null
  return new Set(Object.keys(s.properties))
}

/** What a query parameter's schema takes (a scalar, T | null, or a union of string literals), with the null and optional wrappers seen through. */
interface ParamShape {
  name: string
  kind: 'integer' | 'number' | 'string' | 'boolean'
  nullable: boolean
  schema: TSchema
}

function shapeOf(name: string, schema: TSchema): ParamShape {
  let nullable = false
  let inner = schema
  if (schema[Kind] === 'Union') {
    const members = (schema as unknown as { anyOf: TSchema[] }).anyOf
    // a set of words (`kind=hardware|network`): read as a string, the compiled check takes the words
    if (members.every((m) => m[Kind] === 'Literal' && typeof (m as { const?: unknown }).const === 'string')) {
      return { name, kind: 'string', nullable: false, schema }
    }
    nullable = members.some((m) => m[Kind] === 'Null')
    const rest = members.filter((m) => m[Kind] !== 'Null')
    if (rest.length !== 1) throw new Error(`query parameter ${name}: only T or T | null is supported`)
    inner = rest[0]!
  }
  const kind = ({ Integer: 'integer', Number: 'number', String: 'string', Boolean: 'boolean' } as const)[inner[Kind] as 'Integer']
  if (!kind) throw new Error(`query parameter ${name}: unsupported type ${String(inner[Kind])}`)
  return { name, kind, nullable, schema }
}

const INTEGER = /^-?\d+$/
const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/

/**
 * One raw query value as its schema's type, or a detail entry saying why not. Numbers are
 * plain decimal only: no hex (`0x10`), no blanks, no `Infinity`, and integers must be exact
 * (safe integers), so `99999999999999999999` is refused instead of rounded.
 */
function convert(p: ParamShape, raw: string): { value: unknown } | { error: ValidationDetail } {
  const loc = ['query', p.name]
  if (raw === '' && p.nullable) return { value: null }
  switch (p.kind) {
    case 'string':
      return { value: raw }
    case 'boolean':
      if (raw === 'true' || raw === 'false') return { value: raw === 'true' }
      return { error: { loc, msg: 'Expected true or false', type: 'bool_type' } }
    case 'integer': {
      const n = INTEGER.test(raw) ? Number(raw) : NaN
      if (Number.isSafeInteger(n)) return { value: n }
      return { error: { loc, msg: 'Expected a whole number written in decimal, between -9007199254740991 and 9007199254740991', type: 'int_type' } }
    }
    case 'number': {
      const n = DECIMAL.test(raw) ? Number(raw) : NaN
      if (Number.isFinite(n)) return { value: n }
      return { error: { loc, msg: 'Expected a number written in decimal', type: 'number_type' } }
    }
  }
}

/**
 * A reader for a query string against an object schema of scalar parameters: each value is
 * converted strictly (see convert), defaults are filled, bounds and formats are checked.
 * A parameter given twice is refused; parameters the schema does not name are ignored.
 */
export function queryReader<T extends TObject>(schema: T): (request: Request) => Static<T> {
  const params = Object.entries(schema.properties).map(([name, s]) => shapeOf(name, s as TSchema))
  const check = compiled(schema)
  return (request) => {
    const url = request.url
    const at = url.indexOf('?')
    const search = new URLSearchParams(at === -1 ? '' : url.slice(at + 1))
    const value: Record<string, unknown> = {}
    const errors: ValidationDetail[] = []
    for (const p of params) {
      const raws = search.getAll(p.name)
      if (raws.length === 0) continue
      if (raws.length > 1) {
        errors.push({ loc: ['query', p.name], msg: 'Given more than once', type: 'value_error' })
        continue
      }
      const r = convert(p, raws[0]!)
      if ('error' in r) errors.push(r.error)
      else value[p.name] = r.value
    }
    if (errors.length) throw new RequestValidationError(errors)
    const filled = Value.Default(schema, value) as Record<string, unknown>
    const c = check()
    if (!c.Check(filled)) throw new RequestValidationError(detailsOf('query', c, filled))
    return filled as Static<T>
  }
}

/** OpenAPI `parameters` for a query schema, as the readers above interpret it. */
export function queryParameters(schema: TObject) {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties).map(([name, s]) => {
    const { [Kind]: _k, [OptionalKind]: _o, ...plain } = s as TSchema & Record<symbol, unknown>
    return { name, in: 'query', required: required.has(name) && !('default' in plain), schema: JSON.parse(JSON.stringify(plain)) }
  })
}

/**
 * The extension keys under which a route's body and query parameters reach the OpenAPI
 * post-processing (openapi.ts), which turns them into `requestBody` and `parameters`.
 */
export const BODY_DOC = 'x-vigil-body'
export const QUERY_DOC = 'x-vigil-query'

/** A route's JSON body: its reader, and the `detail` fragment that documents it. */
export function jsonInput<T extends TSchema>(schema: T) {
  return {
    read: bodyReader(schema),
    doc: { [BODY_DOC]: { required: !(schema[Kind] === 'Object' && !hasRequired(schema)), content: { 'application/json': { schema } } } },
  }
}

/** A route's query string: its reader, and the `detail` fragment that documents it. */
export function queryInput<T extends TObject>(schema: T) {
  return { read: queryReader(schema), doc: { [QUERY_DOC]: queryParameters(schema) } }
}
