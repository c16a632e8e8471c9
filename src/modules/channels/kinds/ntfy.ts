import { type KindSpec, num, query, queryOf, ShoutrrrError, shoutrrrBool, str } from '../channels.kind-spec'
import type { Severity } from '../channels.model'
import { truncate } from '../channels.render'

const PRIORITY: Record<Severity, number> = { info: 3, warning: 4, critical: 5 }
const TAG: Record<Severity, string> = { info: 'information_source', warning: 'warning', critical: 'rotating_light' }
const PRIORITY_NAMES: Record<string, number> = { min: 1, low: 2, default: 3, high: 4, max: 5, urgent: 5 }

/** The server's origin (and path, if ntfy sits under one), without a trailing slash. */
const serverOf = (s: { server?: unknown }) => (typeof s.server === 'string' ? s.server : 'https://ntfy.sh').replace(/\/+$/, '')

/**
 * ntfy's JSON publishing (POST to the server's root with the topic in the body): unlike the
 * header form it carries a title or message in any script. Access tokens go as Bearer; with
 * a username, username and password go as Basic.
 */
export const ntfy: KindSpec = {
  id: 'ntfy',
  name: 'ntfy',
  description: 'Publishes to an ntfy topic on ntfy.sh or your own server (priority and tags by severity, click opens the portal).',
  shoutrrr: 'ntfy',
  fields: [
    { name: 'server', label: 'Server', type: 'url', required: false, secret: false, default: 'https://ntfy.sh', description: 'your ntfy server, or ntfy.sh' },
    {
      name: 'topic',
      label: 'Topic',
      type: 'string',
      required: true,
      secret: false,
      default: null,
      description: 'the topic to publish to',
      pattern: { re: /^[-_A-Za-z0-9]{1,64}$/, message: 'ntfy topics are 1 to 64 letters, digits, - and _' },
    },
    {
      name: 'username',
      label: 'Username',
      type: 'string',
      required: false,
      secret: false,
      default: null,
      description: 'only for user and password login; leave empty with an access token',
    },
    {
      name: 'token',
      label: 'Access token or password',
      type: 'string',
      required: false,
      secret: true,
      default: null,
      description: 'an access token (tk_…), or the password of username',
    },
    {
      name: 'priority',
      label: 'Priority',
      type: 'integer',
      required: false,
      secret: false,
      default: null,
      minimum: 1,
      maximum: 5,
      description: '1 (min) to 5 (max); default by severity: info 3, warning 4, critical 5',
    },
  ],
  targets: (s) => [`${serverOf(s)}/`],
  render(s, n, env) {
    const token = str(s, 'token')
    const user = str(s, 'username')
    const auth = user ? `Basic ${Buffer.from(`${user}:${token ?? ''}`).toString('base64')}` : token ? `Bearer ${token}` : null
    const tags = n.event === 'resolved' ? ['white_check_mark'] : [TAG[n.severity]]
    return {
      transport: 'http',
      method: 'POST',
      url: `${serverOf(s)}/`,
      headers: { 'content-type': 'application/json', 'user-agent': `Vigil/${env.version}`, ...(auth ? { authorization: auth } : {}) },
      body: JSON.stringify({
        topic: str(s, 'topic'),
        title: truncate(n.title, 250),
        message: truncate(n.body, 4000),
        priority: num(s, 'priority') ?? PRIORITY[n.severity],
        tags,
        ...(n.url ? { click: n.url } : {}),
      }),
    }
  },
  fromShoutrrr(u) {
    const q = queryOf(u)
    const http = shoutrrrBool(q.get('disabletls'), false) || q.get('scheme')?.toLowerCase() === 'http'
    const host = u.host || 'ntfy.sh'
    const topic = decodeURIComponent(u.pathname.replace(/^\/+/, ''))
    if (!topic) throw new ShoutrrrError('the topic is missing (ntfy://host/topic)')
    const out: Record<string, string | number> = { server: new URL(`${http ? 'http' : 'https'}://${host}`).origin, topic }
    if (u.username) out.username = decodeURIComponent(u.username)
    if (u.password) out.token = decodeURIComponent(u.password)
    const p = q.get('priority')?.toLowerCase()
    if (p) {
      const value = PRIORITY_NAMES[p] ?? Number(p)
      if (!Number.isInteger(value) || value < 1 || value > 5) throw new ShoutrrrError(`priority ${p} is not 1-5 or min/low/default/high/max`)
      out.priority = value
    }
    return out
  },
  toShoutrrr(s) {
    const server = new URL(serverOf(s))
    const user = str(s, 'username')
    const token = str(s, 'token')
    const auth = user || token ? `${encodeURIComponent(user ?? '')}${token ? `:${encodeURIComponent(token)}` : ''}@` : ''
    return `ntfy://${auth}${server.host}/${str(s, 'topic')}${query([
      ['scheme', server.protocol.replace(':', '')],
      ['priority', num(s, 'priority')],
    ])}`
  },
}
