import { type KindSpec, ShoutrrrError, str } from '../channels.kind-spec'
import { contextLine, truncate } from '../channels.render'

/** Shoutrrr's Slack token: type (hook, xoxb, xoxp), then three parts joined by -, / or ,. */
const TOKEN = /^(?:(xox.|hook)[-:]|:?)([A-Z0-9]{9,})([-/,])([A-Z0-9]{9,})([-/,])([A-Za-z0-9]{24,})$/
const SERVICES_PATH = /^\/services\/([A-Z0-9]+)\/([A-Z0-9]+)\/([A-Za-z0-9]+)\/?$/

/** Slack's mrkdwn gives &, < and > a meaning: a device name must not become a link or a mention. */
const mrkdwn = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

/**
 * A Slack incoming webhook: `text` for the notification preview, blocks for the message (a
 * header, the body, a button to the portal, a context line).
 */
export const slack: KindSpec = {
  id: 'slack',
  name: 'Slack',
  description: 'Posts to a Slack channel through an incoming webhook of a Slack app.',
  shoutrrr: 'slack',
  fields: [
    {
      name: 'webhook_url',
      label: 'Webhook URL',
      type: 'url',
      required: true,
      secret: true,
      default: null,
      description: 'https://hooks.slack.com/services/T…/B…/…',
    },
  ],
  targets: (s) => [str(s, 'webhook_url')!],
  render: (s, n, env) => ({
    transport: 'http',
    method: 'POST',
    url: str(s, 'webhook_url')!,
    headers: { 'content-type': 'application/json', 'user-agent': `Vigil/${env.version}` },
    body: JSON.stringify({
      text: truncate(n.title, 3000),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: truncate(n.title, 150), emoji: true } },
        { type: 'section', text: { type: 'mrkdwn', text: truncate(mrkdwn(n.body), 3000) } },
        ...(n.url ? [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in Vigil' }, url: n.url }] }] : []),
        { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(mrkdwn(contextLine(n)), 3000) }] },
      ],
    }),
  }),
  fromShoutrrr(u) {
    // the old form slack://T/B/X, else slack://hook:T-B-X@webhook (or a bot token @channel)
    const raw = u.pathname.length > 1 ? `${u.hostname}${u.pathname}` : decodeURIComponent(`${u.username}${u.password ? `:${u.password}` : ''}`)
    const m = TOKEN.exec(raw.replace(/\/$/, ''))
    if (!m) throw new ShoutrrrError('not a Slack webhook token (slack://hook:T…-B…-…@webhook)')
    if (m[1] && m[1] !== 'hook') throw new ShoutrrrError('Slack bot tokens are not supported: use an incoming webhook (slack://hook:…@webhook)')
    if (m[3] !== m[5]) throw new ShoutrrrError('the token parts use different separators')
    return { webhook_url: `https://hooks.slack.com/services/${m[2]}/${m[4]}/${m[6]}` }
  },
  toShoutrrr(s) {
    const m = SERVICES_PATH.exec(new URL(str(s, 'webhook_url')!).pathname)
    if (!m) throw new ShoutrrrError('only webhook URLs of the form https://hooks.slack.com/services/T…/B…/… have a Shoutrrr form')
    return `slack://hook:${m[1]}-${m[2]}-${m[3]}@webhook`
  },
}
