import { ApiError } from './api'

/**
 * What to tell a person about a failed request: a plain sentence per error code. Codes whose
 * server message is already written for people (it names the limit or the next step) keep it.
 */
const SENTENCES: Record<string, string> = {
  network: 'The server could not be reached. Check your connection and try again.',
  invalid_credentials: 'That email and password do not match an account. Check both and try again.',
  unauthorized: 'Your session has ended. Sign in again.',
  forbidden: 'Your role in this account does not allow this. Ask an owner or admin.',
  not_found: 'This no longer exists, or you do not have access to it.',
  email_taken: 'An account with this email already exists. Sign in instead, or use another email.',
  rate_limited: 'Too many requests in a short time. Wait a minute and try again.',
  payload_too_large: 'What you sent is too large.',
  internal_error: 'Something went wrong on the server. Try again; if it keeps happening, tell the operator.',
  storage_full: "The server's disk is full; nothing was saved. The operator needs to free space.",
  storage_error: 'The server could not read or write its database; nothing was changed. Try again shortly.',
  database_corrupt: "The server's database is damaged; the operator needs to restore a backup.",
  service_unavailable: 'The server is restarting or not ready. Try again in a moment.',
  provider_error: 'A service this depends on (payments, language model) failed. Try again later.',
  billing_not_configured: 'Billing is not set up on this instance.',
  validation_error: 'Some fields need attention.',
}

/** Codes whose own message is the better sentence (it carries the instance's rule or the limit reached). */
const OWN_MESSAGE = new Set([
  'signup_closed',
  'setup_token_required',
  'invalid_invitation',
  'conflict',
  'last_owner',
  'device_limit_reached',
  'user_limit_reached',
  'budget_exceeded',
  'unsafe_base_url',
  'invalid_schedule',
  'invalid_prompt',
  'no_customer',
])

export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (OWN_MESSAGE.has(err.code) && err.message) return err.message
    return SENTENCES[err.code] ?? err.message ?? 'The request failed.'
  }
  return err instanceof Error && err.message ? err.message : 'Something went wrong.'
}

/** The field a validation error points at: the tail of `loc` (['body', 'email'] → 'email'). */
export function fieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (!(err instanceof ApiError)) return out
  for (const d of err.detail) {
    const name = d.loc.filter((p) => typeof p === 'string' && p !== 'body' && p !== 'query').join('.')
    if (name && !out[name]) out[name] = sentenceFor(d.msg, d.type)
  }
  if (err.param && !out[err.param] && !err.detail.length) out[err.param] = describeError(err)
  return out
}

/**
 * The same error with each 422 `loc` moved onto the form's own input (a form whose inputs are not
 * named as the API's fields: scope.value is the tag box or the device list, by the scope chosen).
 * `field` gets the path inside the body and answers the input's name, or null to leave it.
 */
export function onFormFields(err: unknown, field: (path: (string | number)[]) => string | null): unknown {
  if (!(err instanceof ApiError)) return err
  const move = (loc: (string | number)[]) => {
    const inBody = loc[0] === 'body' ? loc.slice(1) : loc
    const name = field(inBody)
    return name === null ? loc : ['body', name]
  }
  const param = err.param === null ? null : (field(err.param.split('.')) ?? err.param)
  return new ApiError(
    err.status,
    err.code,
    err.message,
    param,
    err.detail.map((d) => ({ ...d, loc: move(d.loc) })),
  )
}

function sentenceFor(msg: string, type: string): string {
  if (/'email' format/.test(msg)) return 'Enter a valid email address.'
  const min = type === 'string_too_short' && /(\d+)/.exec(msg)
  if (min) return min[1] === '1' ? 'Fill this in.' : `Use at least ${min[1]} characters.`
  const max = type === 'string_too_long' && /(\d+)/.exec(msg)
  if (max) return `Use at most ${max[1]} characters.`
  return msg.charAt(0).toUpperCase() + msg.slice(1)
}
