/**
 * Every error a client can receive, with its HTTP status and a description. This table is
 * the single source for the mapping, for the page at /docs/errors and for the README.
 * Codes are stable: clients may branch on them. Add, never rename.
 */
export const ERROR_CODES = {
  validation_error: { status: 422, description: 'The request did not match its schema; the body is the `detail` list (loc, msg, type).' },
  invalid_parameter: { status: 400, description: 'A parameter value is outside its allowed set; `param` names it.' },
  bad_request: { status: 400, description: 'The request cannot be processed as sent.' },
  invalid_signature: { status: 400, description: 'A webhook whose signature is missing, wrong or too old (more than 300 s); nothing was applied.' },
  unauthorized: { status: 401, description: 'No credential, or one that is malformed, unknown, expired or revoked.' },
  invalid_enrolment: {
    status: 401,
    description: 'The enrolment token is unknown, already used or expired (tokens are single use and last 60 minutes by default); create a new one.',
  },
  invalid_credentials: { status: 401, description: 'Email or password is wrong (the same answer whether or not the account exists).' },
  forbidden: { status: 403, description: 'The caller is known but its role does not allow this action.' },
  signup_closed: {
    status: 403,
    description:
      'Registration is not open on this instance (VIGIL_SIGNUP): register with an invitation_token from an invitation, or ask the operator for an account.',
  },
  setup_token_required: {
    status: 403,
    description:
      "The instance has no operator yet and this registration may come from another machine (the service listens beyond loopback or trusts a proxy, or the request carries a forwarded header): the first registration needs the setup token printed on the server's console (header x-setup-token or body setup_token), or create the operator with `vigil admin create`.",
  },
  invalid_invitation: { status: 403, description: 'The invitation_token is unknown, used, expired, or was sent to another email; ask for a new invitation.' },
  insufficient_scope: { status: 403, description: 'The API key lacks the scope this endpoint needs; `param` names the scope.' },
  device_mismatch: { status: 403, description: 'The API key is bound to another device.' },
  device_limit_reached: { status: 403, description: "The client's plan allows no more devices." },
  user_limit_reached: { status: 403, description: "The client's plan allows no more members." },
  not_found: { status: 404, description: 'No such route, or no such object in your account.' },
  no_metrics: { status: 404, description: 'The device has not reported metrics of this kind yet.' },
  conflict: { status: 409, description: 'The request conflicts with the current state.' },
  email_taken: { status: 409, description: 'An account with this email exists.' },
  no_customer: { status: 409, description: 'The client has no payment-provider customer yet (never checked out).' },
  last_owner: { status: 409, description: 'The last owner of a client cannot be removed or demoted.' },
  payload_too_large: { status: 413, description: 'The request body is larger than the configured limit.' },
  unsupported_media_type: {
    status: 415,
    description:
      'The request has a body that is not sent as `Content-Type: application/json` (parameters such as `; charset=utf-8` are fine); no body is read otherwise.',
  },
  device_required: { status: 422, description: 'The metric names no device and the key is bound to none; send x-device-id or device_id.' },
  unsafe_base_url: {
    status: 422,
    description:
      'The language-model base_url is not http(s), carries credentials, or points at an address the server may not call for this client (loopback, this server, link-local, cloud metadata, reserved; private networks unless allowed).',
  },
  invalid_schedule: { status: 422, description: 'The schedule is not a valid cron pattern.' },
  invalid_prompt: { status: 422, description: 'The prompt template uses a variable that does not exist; `param` names it.' },
  invalid_channel_config: {
    status: 422,
    description:
      "A notification channel's setting is unknown, missing or malformed for its kind; `param` names it (config.<field>). GET /v1/channels/kinds lists each kind's fields.",
  },
  unsafe_url: {
    status: 422,
    description:
      'A URL or host the server would call is not acceptable: not http(s), carrying credentials, a query or a fragment (webhook URLs), or pointing at an address the server may not call for this client (loopback, this server, link-local, cloud metadata, reserved; private networks unless allowed); the message says which.',
  },
  invalid_shoutrrr_url: {
    status: 422,
    description: 'The Shoutrrr URL cannot be read, or names a service or option Vigil does not support; the message says which.',
  },
  rate_limited: { status: 429, description: 'Too many requests; wait for Retry-After seconds.' },
  too_many_streams: {
    status: 429,
    description:
      "Too many live streams (GET /v1/events) are open: 20 per user (close another tab or window), the account's share (a tenth of VIGIL_LIVE_MAX_STREAMS), or the instance's (its last quarter is kept for accounts opening their first 2); retry after Retry-After seconds.",
  },
  budget_exceeded: { status: 429, description: 'The daily budget of language-model calls is spent.' },
  internal_error: { status: 500, description: 'Something failed on our side; the request id identifies it in the logs.' },
  provider_error: { status: 502, description: 'An upstream provider (payments, language model) failed or answered badly.' },
  billing_not_configured: { status: 503, description: 'Billing is not set up on this instance (STRIPE_SECRET_KEY is missing).' },
  service_unavailable: { status: 503, description: 'The service is shutting down or not ready.' },
  database_corrupt: {
    status: 503,
    description:
      'The database file is damaged where this request reads or writes; nothing was changed. The operator must restore a backup (GET /health says since when).',
  },
  storage_full: { status: 503, description: "The server's disk is full; nothing was written. Retry after Retry-After seconds (the operator must free space)." },
  database_unavailable: {
    status: 503,
    description:
      'The server cannot reach its database (PostgreSQL) at the moment; nothing was changed. Retry after Retry-After seconds (GET /health says since when).',
  },
  storage_error: {
    status: 503,
    description: 'The server could not read or write its database (a disk I/O error); nothing was changed. Retry after Retry-After seconds.',
  },
} as const satisfies Record<string, { status: number; description: string }>

export type ErrorCode = keyof typeof ERROR_CODES

export class AppError extends Error {
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    /** extra response headers, e.g. Retry-After */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.status = ERROR_CODES[code].status
  }
}

export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found`)
export const forbidden = (message = 'Your role does not allow this action') => new AppError('forbidden', message)
export const unauthorized = (message = 'Authentication required') => new AppError('unauthorized', message)

export interface ErrorBody {
  error: { code: ErrorCode; message: string; param: string; doc_url: string }
}

export const docUrl = (siteUrl: string, code: string) => `${siteUrl.replace(/\/$/, '')}/docs/errors#${code}`

export function errorBody(siteUrl: string, code: ErrorCode, message: string, param?: string): ErrorBody {
  return { error: { code, message, param: param ?? '', doc_url: docUrl(siteUrl, code) } }
}
