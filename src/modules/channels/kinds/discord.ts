import { type KindSpec, query, queryOf, ShoutrrrError, str } from '../channels.kind-spec'
import { contextLine, SEVERITY_COLOR, truncate } from '../channels.render'

const HOOK_PATH = /\/api\/webhooks\/(\d+)\/([\w-]+)\/?$/

function withThread(url: string, thread: string | null): string {
  if (!thread) return url
  const u = new URL(url)
  u.searchParams.set('thread_id', thread)
  return u.href
}

/**
 * Discord's Execute Webhook: one embed (title, description, colour by severity, link to the
 * portal, timestamp). allowed_mentions is empty so that a device or rule named "@everyone"
 * pings nobody.
 */
export const discord: KindSpec = {
  id: 'discord',
  name: 'Discord',
  description: 'Posts an embed to a Discord channel through a channel webhook (Server settings → Integrations → Webhooks).',
  shoutrrr: 'discord',
  fields: [
    {
      name: 'webhook_url',
      label: 'Webhook URL',
      type: 'url',
      required: true,
      secret: true,
      default: null,
      description: 'https://discord.com/api/webhooks/<id>/<token>',
      pattern: { re: HOOK_PATH, message: 'must be a Discord webhook URL (…/api/webhooks/<id>/<token>)' },
    },
    {
      name: 'thread_id',
      label: 'Thread ID',
      type: 'string',
      required: false,
      secret: false,
      default: null,
      description: 'post into this thread of the channel',
      pattern: { re: /^\d{1,30}$/, message: 'a thread ID is a number' },
    },
    { name: 'username', label: 'Name', type: 'string', required: false, secret: false, default: null, description: "overrides the webhook's own name" },
  ],
  targets: (s) => [str(s, 'webhook_url')!],
  render: (s, n, env) => ({
    transport: 'http',
    method: 'POST',
    url: withThread(str(s, 'webhook_url')!, str(s, 'thread_id')),
    headers: { 'content-type': 'application/json', 'user-agent': `Vigil/${env.version}` },
    body: JSON.stringify({
      ...(str(s, 'username') ? { username: truncate(str(s, 'username')!, 80) } : {}),
      embeds: [
        {
          title: truncate(n.title, 256),
          description: truncate(n.body, 4096),
          ...(n.url ? { url: n.url } : {}),
          color: SEVERITY_COLOR[n.severity],
          timestamp: n.timestamp,
          footer: { text: truncate(contextLine(n), 2048) },
        },
      ],
      allowed_mentions: { parse: [] },
    }),
  }),
  fromShoutrrr(u) {
    const id = u.hostname
    const token = decodeURIComponent(u.username)
    if (!/^\d+$/.test(id)) throw new ShoutrrrError('the webhook ID is missing or not a number (discord://token@id)')
    if (!token) throw new ShoutrrrError('the webhook token is missing (discord://token@id)')
    if (u.pathname && u.pathname !== '/' && u.pathname !== '/raw') throw new ShoutrrrError(`unexpected path ${u.pathname}`)
    const q = queryOf(u)
    return {
      webhook_url: `https://discord.com/api/webhooks/${id}/${token}`,
      ...(q.get('thread_id') ? { thread_id: q.get('thread_id')!.trim() } : {}),
      ...(q.get('username') ? { username: q.get('username')! } : {}),
    }
  },
  toShoutrrr(s) {
    const m = HOOK_PATH.exec(new URL(str(s, 'webhook_url')!).pathname)!
    return `discord://${m[2]}@${m[1]}${query([
      ['thread_id', str(s, 'thread_id')],
      ['username', str(s, 'username')],
    ])}`
  },
}
