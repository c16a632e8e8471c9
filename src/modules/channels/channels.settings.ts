import { AppError } from '../../http/errors'
import { EMAIL, type FieldSpec, type KindSpec, type SettingValue, type Settings } from './channels.kind-spec'

const MAX_STRING = 2000

const invalid = (field: string, message: string) => new AppError('invalid_channel_config', `${field}: ${message}`, `config.${field}`)

function checkUrl(field: string, raw: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw invalid(field, 'must be an absolute http(s) URL')
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid(field, 'must use http or https')
  if (u.username || u.password) throw invalid(field, 'must not carry a user name or password')
  if (u.hash) throw invalid(field, 'must not have a fragment (#…)')
  return raw
}

/** One value as its field takes it, or a 422 naming the field. */
function checkValue(f: FieldSpec, value: unknown): SettingValue {
  const bad = (why: string) => invalid(f.name, why)
  switch (f.type) {
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('must be true or false')
      return value
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw bad('must be a whole number')
      if ((f.minimum !== undefined && value < f.minimum) || (f.maximum !== undefined && value > f.maximum))
        throw bad(`must be between ${f.minimum} and ${f.maximum}`)
      return value
    case 'string_list': {
      const items = typeof value === 'string' ? value.split(',').map((v) => v.trim()) : value
      if (!Array.isArray(items) || items.some((v) => typeof v !== 'string' || !v)) throw bad('must be a list of non-empty strings')
      if (items.length < 1 || items.length > 20) throw bad('must have 1 to 20 entries')
      return items as string[]
    }
    default: {
      if (typeof value !== 'string') throw bad('must be a string')
      if (!value.trim()) throw bad('must not be empty')
      if (value.length > MAX_STRING) throw bad(`must be at most ${MAX_STRING} characters`)
      if (/[\r\n\0]/.test(value)) throw bad('must be one line')
      if (f.type === 'enum' && !f.options!.includes(value)) throw bad(`must be one of ${f.options!.join(', ')}`)
      if (f.type === 'email' && !EMAIL.test(value)) throw bad('is not an email address')
      if (f.type === 'url') checkUrl(f.name, value)
      if (f.pattern && !f.pattern.re.test(value)) throw bad(f.pattern.message)
      return value
    }
  }
}

/**
 * The settings a create, a change or an import leaves: `input` applied over `current` (null
 * removes an optional field, an absent field keeps its value), every value checked against
 * its field, required fields present, then the kind's own checks.
 */
export function applySettings(kind: KindSpec, input: Record<string, unknown>, current: Settings = {}): Settings {
  const fields = new Map(kind.fields.map((f) => [f.name, f]))
  const next: Settings = { ...current }
  for (const [name, value] of Object.entries(input)) {
    const f = fields.get(name)
    if (!f) throw invalid(name, `${kind.name} has no such setting (it has ${[...fields.keys()].join(', ')})`)
    if (value === null || value === undefined) delete next[name]
    else next[name] = checkValue(f, value)
  }
  for (const f of kind.fields) if (f.required && next[f.name] === undefined) throw invalid(f.name, 'is required')
  const problem = kind.check?.(next)
  if (problem) throw invalid(problem.field, problem.message)
  return next
}

/** Settings split into what is stored in clear and what is sealed. */
export function splitSettings(kind: KindSpec, s: Settings): { config: Settings; secrets: Settings } {
  const config: Settings = {}
  const secrets: Settings = {}
  for (const f of kind.fields) if (s[f.name] !== undefined) (f.secret ? secrets : config)[f.name] = s[f.name]!
  return { config, secrets }
}
