import type SMTPTransport from 'nodemailer/lib/smtp-transport'
import { classifyIp } from '../../lib/outbound/outbound.address'
import type { OutboundDeps } from '../../lib/outbound/outbound.fetch'
import { addressRefusal, hostRefusal, type OutboundPolicy } from '../../lib/outbound/outbound.policy'
import { refusedHostText, unsentText, type Audience } from '../../lib/outbound/outbound.words'
import { sendHttp as postOnce } from '../deliveries/deliveries.http'
import type { HttpRequest, MailRequest, OutboundRequest } from './channels.kind-spec'

/** How much of an answer is kept in the delivery log. */
export const EXCERPT_CHARS = 256
/** How much of an answer is read at all; the rest is never downloaded. */
const READ_BYTES = 4096

/** nodemailer's createTransport, or a stand-in (tests point it at a local SMTP sink). */
export type MailTransport = (options: SMTPTransport.Options) => {
  sendMail(message: { from: string; to: string[]; subject: string; text: string; html: string }): Promise<{ response?: string }>
  close(): void
}
/**
 * nodemailer's SMTP transport, loaded on the first email: most instances never send one, and
 * the library is not worth parsing at every start.
 */
export const nodemailerTransport: MailTransport = (options) => {
  let transport: { close(): void } | undefined
  return {
    async sendMail(message) {
      const { default: nodemailer } = await import('nodemailer')
      const made = nodemailer.createTransport(options)
      transport = made
      return made.sendMail(message)
    },
    close: () => transport?.close(),
  }
}

export interface TransportDeps {
  outbound: OutboundDeps
  mail: MailTransport
  /** the whole attempt, connection to answer */
  timeoutMs: number
  /** the name this server gives in SMTP's EHLO */
  clientName: string
  /** wall time, for a Retry-After given as a date */
  now: () => number
}

export type Outcome = 'ok' | 'http_error' | 'rate_limited' | 'refused' | 'unreachable' | 'redirect' | 'invalid' | 'error'

export interface SendResult {
  ok: boolean
  outcome: Outcome
  /** the HTTP status, or the SMTP reply code */
  status: number | null
  /** for the tenant: never the remote server's words beyond the excerpt */
  error: string | null
  excerpt: string | null
  /** worth another attempt later */
  retry: boolean
  /** the service asked for this much patience (429 Retry-After) */
  retryAfterMs: number | null
  /** for the server's log only */
  detail: string | null
}

/** Every secret of the channel replaced, in the spellings it may come back in. */
export function scrub(text: string, secrets: string[]): string {
  let out = text
  for (const s of secrets) {
    if (s.length < 4) continue
    for (const form of new Set([s, encodeURIComponent(s)])) out = out.split(form).join('[secret]')
  }
  return out
}

/** A send that did not succeed, with nothing to retry unless `extra` says so. */
export const failure = (outcome: Outcome, error: string, extra: Partial<SendResult> = {}): SendResult => ({
  ok: false,
  outcome,
  status: null,
  error,
  excerpt: null,
  retry: false,
  retryAfterMs: null,
  detail: null,
  ...extra,
})

/** Where a send goes and whose it is: the policy, and what a refusal may tell (lib/outbound/outbound.words). */
export interface SendScope {
  policy: OutboundPolicy
  audience: Audience
  /** aborts an HTTP attempt when the service stops */
  stop?: AbortSignal
}

/** Sends one request under the policy; never throws. */
export async function sendRequest(deps: TransportDeps, scope: SendScope, req: OutboundRequest, secrets: string[]): Promise<SendResult> {
  const result = req.transport === 'http' ? await sendHttp(deps, scope, req) : await sendMail(deps, scope, req)
  return {
    ...result,
    error: result.error && scrub(result.error, secrets),
    excerpt: result.excerpt && scrub(result.excerpt, secrets).slice(0, EXCERPT_CHARS),
    detail: result.detail && scrub(result.detail, secrets),
  }
}

/**
 * One HTTP request through the delivery core's sender (deliveries/deliveries.http). A refused
 * address reads to a tenant as an unreachable one, and is retried like one, so the log cannot
 * tell which internal names resolve; the operator's own client is told which setting allows it.
 */
async function sendHttp(deps: TransportDeps, scope: SendScope, req: HttpRequest): Promise<SendResult> {
  const r = await postOnce(deps, { ...req, policy: scope.policy, audience: scope.audience, excerptBytes: READ_BYTES, stop: scope.stop })
  if (r.kind === 'aborted') return failure('error', 'the service stopped during the attempt', { retry: true })
  if (r.kind === 'redirect') return failure('redirect', r.error)
  if (r.kind === 'unsent') {
    const refused = r.refused && scope.audience === 'operator'
    return failure(refused ? 'refused' : 'unreachable', r.error, { retry: !refused, detail: r.detail })
  }
  const { status, excerpt } = r
  if (status >= 200 && status < 300) return { ok: true, outcome: 'ok', status, error: null, excerpt, retry: false, retryAfterMs: null, detail: null }
  if (status === 429) {
    return failure('rate_limited', 'the service answered HTTP 429 (too many requests)', { status, excerpt, retry: true, retryAfterMs: r.retryAfterMs })
  }
  // a server error or a timeout on its side may pass; a 4xx says the request itself is wrong
  const retry = status >= 500 || status === 408
  return failure('http_error', `the service answered HTTP ${status}`, { status, excerpt, retry, retryAfterMs: retry ? r.retryAfterMs : null })
}

/** The SMTP server's addresses, each checked against the policy as safeFetch checks a URL's. */
async function mailAddresses(deps: TransportDeps, scope: SendScope, host: string): Promise<{ addresses: string[]; byName: boolean } | SendResult> {
  const { policy, audience } = scope
  const bare = host.replace(/^\[|\]$/g, '')
  const literal = hostRefusal(bare, policy, deps.outbound.selfAddresses)
  if (literal) return failure('refused', `the SMTP host is ${refusedHostText(literal, audience)}`, { detail: `host: ${literal}` })
  const unsent = (detail: string, refused: Parameters<typeof unsentText>[2] = null) =>
    failure(refused && audience === 'operator' ? 'refused' : 'unreachable', unsentText(audience, deps.timeoutMs, refused), {
      retry: !(refused && audience === 'operator'),
      detail,
    })
  if (classifyIp(bare) !== null) return { addresses: [bare], byName: false }
  let addresses: string[]
  try {
    addresses = await deps.outbound.resolve(bare.replace(/\.$/, ''))
  } catch (err) {
    return unsent(`dns: ${(err as { code?: string }).code ?? (err as Error).message}`)
  }
  if (!addresses.length) return unsent('dns: no addresses')
  for (const ip of addresses) {
    const refusal = addressRefusal(ip, policy, deps.outbound.selfAddresses)
    if (refusal) return unsent(`resolved: ${refusal}`, { host: bare, refusal })
  }
  return { addresses, byName: true }
}

/** nodemailer's error codes for "no connection" (worth retrying) */
const CONNECTION_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET'])

/**
 * The mail goes to a checked address: the host is resolved here, every address checked, and
 * nodemailer connects to the address with the name kept for TLS (SNI and certificate
 * verification against the name), so it never resolves the name again.
 */
async function sendMail(deps: TransportDeps, scope: SendScope, req: MailRequest): Promise<SendResult> {
  const target = await mailAddresses(deps, scope, req.host)
  if ('ok' in target) return target
  let last: SendResult | null = null
  for (const ip of target.addresses.slice(0, 3)) {
    const transport = deps.mail({
      host: ip,
      port: req.port,
      secure: req.security === 'tls',
      requireTLS: req.security === 'starttls',
      ignoreTLS: req.security === 'none',
      ...(req.username ? { auth: { user: req.username, pass: req.password ?? '' } } : {}),
      tls: { minVersion: 'TLSv1.2', ...(target.byName ? { servername: req.host } : {}) },
      name: deps.clientName,
      connectionTimeout: deps.timeoutMs,
      greetingTimeout: deps.timeoutMs,
      socketTimeout: deps.timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    })
    try {
      const info = await transport.sendMail({ from: req.from, to: req.to, subject: req.subject, text: req.text, html: req.html })
      const code = Number(/^\d{3}/.exec(info.response ?? '')?.[0] ?? 250)
      return { ok: true, outcome: 'ok', status: code, error: null, excerpt: info.response ?? null, retry: false, retryAfterMs: null, detail: null }
    } catch (err) {
      const e = err as { code?: string; responseCode?: number; response?: string; message?: string }
      if (e.responseCode) {
        // 4xx is "try later" in SMTP, 5xx is final (bad login, unknown recipient)
        return failure('error', `the SMTP server answered ${e.responseCode}`, {
          status: e.responseCode,
          excerpt: e.response ?? null,
          retry: e.responseCode < 500,
          detail: e.code ?? null,
        })
      }
      if (e.code && CONNECTION_CODES.has(e.code)) {
        last = failure('unreachable', unsentText(scope.audience, deps.timeoutMs, null), {
          retry: true,
          detail: `${e.code}: ${String(e.message).slice(0, 200)}`,
        })
        continue
      }
      // TLS refused or unverifiable, STARTTLS not offered, an address refused: a setting to fix
      return failure('error', `sending failed: ${String(e.message ?? err).slice(0, 200)}`, { detail: e.code ?? null })
    } finally {
      transport.close()
    }
  }
  return last!
}
