import { type KindSpec, num, query, queryOf, type RenderEnv, ShoutrrrError, str } from '../channels.kind-spec'
import type { Severity } from '../channels.model'
import { truncate } from '../channels.render'

/** -1 quiet, 0 normal, 1 high (bypasses quiet hours); 2 (emergency) needs acknowledgement and is not used */
const PRIORITY: Record<Severity, number> = { info: -1, warning: 0, critical: 1 }
const KEY = { re: /^[A-Za-z0-9]{30}$/, message: 'Pushover keys are 30 letters and digits' }

const endpoint = (env: RenderEnv) => `${env.apiBase.pushover ?? 'https://api.pushover.net'}/1/messages.json`

/** Pushover's messages API: a form POST with the application token and the user (or group) key. */
export const pushover: KindSpec = {
  id: 'pushover',
  name: 'Pushover',
  description: 'Pushes to your Pushover devices through an application you register at pushover.net.',
  shoutrrr: 'pushover',
  fields: [
    {
      name: 'app_token',
      label: 'Application token',
      type: 'string',
      required: true,
      secret: true,
      default: null,
      description: "your application's API token",
      pattern: KEY,
    },
    {
      name: 'user_key',
      label: 'User key',
      type: 'string',
      required: true,
      secret: true,
      default: null,
      description: 'your user key (or a group key)',
      pattern: KEY,
    },
    {
      name: 'device',
      label: 'Devices',
      type: 'string',
      required: false,
      secret: false,
      default: null,
      description: 'device names, comma-separated; empty: all your devices',
      pattern: { re: /^[A-Za-z0-9_-]{1,25}(,[A-Za-z0-9_-]{1,25})*$/, message: 'device names (letters, digits, _ and -), comma-separated' },
    },
    {
      name: 'priority',
      label: 'Priority',
      type: 'integer',
      required: false,
      secret: false,
      default: null,
      minimum: -2,
      maximum: 1,
      description: '-2 (no alert) to 1 (high); default by severity: info -1, warning 0, critical 1',
    },
  ],
  targets: (_s, env) => [endpoint(env)],
  render(s, n, env) {
    const form = new URLSearchParams()
    form.set('token', str(s, 'app_token')!)
    form.set('user', str(s, 'user_key')!)
    form.set('title', truncate(n.title, 250))
    form.set('message', truncate(n.body, 1024))
    form.set('priority', String(num(s, 'priority') ?? PRIORITY[n.severity]))
    form.set('timestamp', String(Math.floor(Date.parse(n.timestamp) / 1000)))
    if (n.url && n.url.length <= 512) {
      form.set('url', n.url)
      form.set('url_title', 'Open in Vigil')
    }
    if (str(s, 'device')) form.set('device', str(s, 'device')!)
    return {
      transport: 'http',
      method: 'POST',
      url: endpoint(env),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': `Vigil/${env.version}` },
      body: form.toString(),
    }
  },
  fromShoutrrr(u) {
    const q = queryOf(u)
    const token = decodeURIComponent(u.password)
    const user = u.hostname
    if (!token) throw new ShoutrrrError('the application token is missing (pushover://shoutrrr:token@userKey)')
    if (!user) throw new ShoutrrrError('the user key is missing (pushover://shoutrrr:token@userKey)')
    const out: Record<string, string | number> = { app_token: token, user_key: user }
    if (q.get('devices')) out.device = q.get('devices')!
    const p = q.get('priority')
    if (p) {
      const value = Number(p)
      if (!Number.isInteger(value) || value < -2 || value > 1) throw new ShoutrrrError(`priority ${p} is not -2 to 1`)
      out.priority = value
    }
    return out
  },
  toShoutrrr: (s) =>
    `pushover://shoutrrr:${encodeURIComponent(str(s, 'app_token')!)}@${str(s, 'user_key')}/${query([
      ['devices', str(s, 'device')],
      ['priority', num(s, 'priority')],
    ])}`,
}
