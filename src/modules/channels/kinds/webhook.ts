import { type KindSpec, query, queryOf, ShoutrrrError, shoutrrrBool, str } from '../channels.kind-spec'

/** Shoutrrr's own keys on a generic URL: they shape Shoutrrr's payload, which ours replaces. */
const SHOUTRRR_KEYS = new Set(['contenttype', 'disabletls', 'template', 'title', 'titlekey', 'messagekey', 'method'])

/**
 * A POST of Vigil's own JSON to any URL (docs/channels.md documents the shape): the
 * notification as the alerts module worded it, plus `type` and `version` so a receiver can
 * tell it from other senders and from a later shape.
 */
export const webhook: KindSpec = {
  id: 'webhook',
  name: 'Generic webhook',
  description: 'POSTs a JSON document (type, version, event, severity, title, body, url, devices, rule, alert_ids, timestamp) to a URL of yours.',
  shoutrrr: 'generic',
  fields: [
    {
      name: 'url',
      label: 'URL',
      type: 'url',
      required: true,
      secret: false,
      default: null,
      description: 'http(s) URL the JSON is sent to; shown to every member, so keep tokens in Authorization',
    },
    { name: 'method', label: 'Method', type: 'enum', required: false, secret: false, default: 'POST', options: ['POST', 'PUT'], description: 'HTTP method' },
    {
      name: 'authorization',
      label: 'Authorization header',
      type: 'string',
      required: false,
      secret: true,
      default: null,
      description: 'sent as the Authorization header, e.g. "Bearer <token>"',
    },
  ],
  targets: (s) => [str(s, 'url')!],
  render: (s, n, env) => ({
    transport: 'http',
    method: (str(s, 'method') ?? 'POST') as 'POST',
    url: str(s, 'url')!,
    headers: {
      'content-type': 'application/json',
      'user-agent': `Vigil/${env.version}`,
      ...(str(s, 'authorization') ? { authorization: str(s, 'authorization')! } : {}),
    },
    body: JSON.stringify({ type: 'vigil.notification', version: 1, ...n }),
  }),
  fromShoutrrr(u) {
    let target: URL
    if (u.protocol === 'generic:') {
      const tls = !shoutrrrBool(queryOf(u).get('disabletls'), false)
      target = new URL(u.href.replace(/^generic:/, tls ? 'https:' : 'http:'))
    } else {
      target = new URL(u.href.replace(/^generic\+/, ''))
    }
    const out: Record<string, string> = {}
    const kept = new URLSearchParams()
    for (const [key, value] of target.searchParams) {
      const k = key.toLowerCase()
      if (k === '@authorization') out.authorization = value
      else if (k === 'method') {
        const m = value.toUpperCase()
        if (m !== 'POST' && m !== 'PUT') throw new ShoutrrrError(`method ${value} is not supported (POST or PUT)`)
        out.method = m
      } else if (k.startsWith('@') || k.startsWith('$'))
        throw new ShoutrrrError(`${key}: of custom headers only Authorization is supported, and no extra fields`)
      else if (!SHOUTRRR_KEYS.has(k)) kept.append(key, value)
    }
    target.search = kept.toString()
    if (target.username || target.password) throw new ShoutrrrError('put credentials in an @Authorization query parameter, not in the URL')
    return { url: target.href, ...out }
  },
  toShoutrrr(s) {
    const target = new URL(str(s, 'url')!)
    const extra = query([
      ['method', str(s, 'method') === 'PUT' ? 'PUT' : null],
      ['@Authorization', str(s, 'authorization')],
    ])
    const joined = target.search ? `${target.href}${extra.replace(/^\?/, '&')}` : `${target.href}${extra}`
    return `generic+${joined}`
  },
}
