import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'

/** One entry of the spec's HTTPValidationError `detail` list. */
export interface ValidationDetail {
  loc: (string | number)[]
  msg: string
  type: string
}

/** Elysia names the parts of a request; the spec's `loc` names them the FastAPI way. */
const LOCATION: Record<string, string> = { body: 'body', query: 'query', params: 'path', headers: 'header', cookie: 'cookie' }

export const locationOf = (elysiaType: string) => LOCATION[elysiaType] ?? elysiaType

/** Stable, documented `type` values, so a client can branch on them. */
const TYPE_NAMES: Partial<Record<ValueErrorType, string>> = {
  [ValueErrorType.ObjectRequiredProperty]: 'missing',
  [ValueErrorType.ObjectAdditionalProperties]: 'extra_forbidden',
  [ValueErrorType.Object]: 'object_type',
  [ValueErrorType.Array]: 'array_type',
  [ValueErrorType.ArrayMaxItems]: 'too_long',
  [ValueErrorType.ArrayMinItems]: 'too_short',
  [ValueErrorType.String]: 'string_type',
  [ValueErrorType.StringMinLength]: 'string_too_short',
  [ValueErrorType.StringMaxLength]: 'string_too_long',
  [ValueErrorType.StringPattern]: 'string_pattern_mismatch',
  [ValueErrorType.StringFormat]: 'format',
  [ValueErrorType.Integer]: 'int_type',
  [ValueErrorType.Number]: 'number_type',
  [ValueErrorType.Boolean]: 'bool_type',
  [ValueErrorType.Null]: 'null_type',
  [ValueErrorType.IntegerMinimum]: 'greater_than_equal',
  [ValueErrorType.NumberMinimum]: 'greater_than_equal',
  [ValueErrorType.IntegerMaximum]: 'less_than_equal',
  [ValueErrorType.NumberMaximum]: 'less_than_equal',
  [ValueErrorType.IntegerExclusiveMinimum]: 'greater_than',
  [ValueErrorType.NumberExclusiveMinimum]: 'greater_than',
  [ValueErrorType.IntegerExclusiveMaximum]: 'less_than',
  [ValueErrorType.NumberExclusiveMaximum]: 'less_than',
  [ValueErrorType.Literal]: 'literal_error',
  [ValueErrorType.Union]: 'union_error',
}

function pathSegments(path: string): (string | number)[] {
  if (!path || path === '/') return []
  return path
    .slice(1)
    .split('/')
    .map((seg) => seg.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg))
}

/** A required property is reported by TypeBox at the parent; loc should name the property itself. */
function missingProperty(err: ValueError): string | undefined {
  if (err.type !== ValueErrorType.ObjectRequiredProperty) return undefined
  const match = /'([^']+)'/.exec(err.message)
  return match?.[1]
}

const CONSTRAINT = new Set([
  'string_too_short',
  'string_too_long',
  'string_pattern_mismatch',
  'format',
  'greater_than_equal',
  'less_than_equal',
  'greater_than',
  'less_than',
  'too_long',
  'too_short',
])

/**
 * Elysia turns many schemas into unions (a numeric field also accepts its string form), so
 * "Expected union value" would hide the real problem: report the most specific member error.
 */
function unwrapUnion(err: ValueError): ValueError {
  if (err.type !== ValueErrorType.Union || !err.errors?.length) return err
  const subs = err.errors.flatMap((it) => [...it])
  return subs.find((s) => CONSTRAINT.has(TYPE_NAMES[s.type] ?? '')) ?? subs[subs.length - 1] ?? err
}

export function toDetail(location: string, original: ValueError): ValidationDetail {
  const err = unwrapUnion(original)
  if (err.value === undefined && err.type !== ValueErrorType.ObjectRequiredProperty && err.path) {
    return { loc: [location, ...pathSegments(err.path)], msg: 'Field required', type: 'missing' }
  }
  const loc: (string | number)[] = [location, ...pathSegments(err.path)]
  const missing = missingProperty(err)
  if (missing && loc[loc.length - 1] !== missing) loc.push(missing)
  return {
    loc,
    msg: err.type === ValueErrorType.ObjectRequiredProperty ? 'Field required' : err.message,
    type: TYPE_NAMES[err.type] ?? 'value_error',
  }
}

/**
 * TypeBox reports a union mismatch once for the union and again for each member; and a missing
 * property twice (once as required, once as the wrong type). Keep the first per location.
 */
export function dedupe(details: ValidationDetail[]): ValidationDetail[] {
  const seen = new Set<string>()
  return details.filter((d) => {
    const key = JSON.stringify(d.loc)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
