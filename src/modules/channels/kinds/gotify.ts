import { type KindSpec, num, query, queryOf, ShoutrrrError, shoutrrrBool, str } from '../channels.kind-spec'
import type { Severity } from '../channels.model'
import { truncate } from '../channels.render'

/** Gotify's clients: 1-3 a silent notification, 4-7 with sound, 8-10 also pops up. */
const PRIORITY: Record<Severity, number> = { info: 2, warning: 5, critical: 8 }

const serverOf = (server: string) => server.replace(/\/+$/, '')

/**
 * Gotify's POST /message with an application token. The token travels in the X-Gotify-Key
 * header, which Gotify takes like the ?token= query parameter, so that it stays out of the
 * access logs of proxies in front of the server.
 */
export const gotify: KindSpec = {
  id: 'gotify',
  name: 'Gotify',
  description: 'Sends a message to your Gotify server as an application (priority by severity, a click opens the portal).',
  shoutrrr: 'gotify',
  fields: [
    {
      name: 'server',
      label: 'Server',
      type: 'url',
      required: true,
      secret: false,
      default: null,
      description: 'your Gotify server, e.g. https://gotify.example.com',
    },
    {
      name: 'token',
      label: 'Application token',
      type: 'string',
      required: true,
      secret: true,
      default: null,
      description: 'the token of an application made in Gotify (Apps → Create)',
    },
    {
      name: 'priority',
      label: 'Priority',
      type: 'integer',
      required: false,
      secret: false,
      default: null,
      minimum: 0,
      maximum: 10,
      description: '0 to 10; default by severity: info 2, warning 5, critical 8',
    },
  ],
  targets: (s) => [`${serverOf(str(s, 'server')!)}/message`],
  render: (s, n, env) => ({
    transport: 'http',
    method: 'POST',
    url: `${serverOf(str(s, 'server')!)}/message`,
    headers: { 'content-type': 'application/json', 'user-agent': `Vigil/${env.version}`, 'x-gotify-key': str(s, 'token')! },
    body: JSON.stringify({
      title: truncate(n.title, 250),
      message: truncate(n.body, 8000),
      priority: num(s, 'priority') ?? PRIORITY[n.severity],
      extras: {
        'client::display': { contentType: 'text/plain' },
        ...(n.url ? { 'client::notification': { click: { url: n.url } } } : {}),
      },
    }),
  }),
  fromShoutrrr(u) {
    const q = queryOf(u)
    const path = u.pathname.replace(/\/+$/, '')
    const at = path.lastIndexOf('/')
    const token = decodeURIComponent(path.slice(at + 1))
    if (!u.host) throw new ShoutrrrError('the Gotify host is missing (gotify://host/token)')
    if (!token) throw new ShoutrrrError('the application token is missing (gotify://host/token)')
    const scheme = shoutrrrBool(q.get('disabletls'), false) ? 'http' : 'https'
    // through URL, so a default port (:443) is dropped as the URL standard drops it
    const server = new URL(`${scheme}://${u.host}${path.slice(0, at)}`).href.replace(/\/+$/, '')
    const out: Record<string, string | number> = { server, token }
    const p = q.get('priority')
    if (p) {
      const value = Number(p)
      if (!Number.isInteger(value) || value < 0 || value > 10) throw new ShoutrrrError(`priority ${p} is not 0-10`)
      out.priority = value
    }
    return out
  },
  toShoutrrr(s) {
    const server = new URL(serverOf(str(s, 'server')!))
    const path = server.pathname.replace(/\/+$/, '')
    return `gotify://${server.host}${path}/${encodeURIComponent(str(s, 'token')!)}${query([
      ['priority', num(s, 'priority')],
      ['disabletls', server.protocol === 'http:' ? 'Yes' : null],
    ])}`
  },
}
