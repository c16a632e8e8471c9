import { bool, type KindSpec, query, queryOf, type RenderEnv, ShoutrrrError, shoutrrrBool, str } from '../channels.kind-spec'
import { contextLine, escapeHtml, truncate } from '../channels.render'

const TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/
/** a numeric chat ID or @channelname, optionally :message_thread_id (a forum topic), as Shoutrrr writes it */
const CHAT = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})(?::(\d{1,20}))?$/

const base = (env: RenderEnv) => env.apiBase.telegram ?? 'https://api.telegram.org'

/**
 * The Bot API's sendMessage in HTML parse mode (the only mode whose escaping is simple and
 * complete): the title in bold, the body, a link to the portal. Link previews are off
 * (link_preview_options, which replaced disable_web_page_preview in Bot API 7.0).
 */
export const telegram: KindSpec = {
  id: 'telegram',
  name: 'Telegram',
  description: 'Sends a message from your bot (made with @BotFather) to a chat, group or channel.',
  shoutrrr: 'telegram',
  fields: [
    {
      name: 'bot_token',
      label: 'Bot token',
      type: 'string',
      required: true,
      secret: true,
      default: null,
      description: 'the token @BotFather gave, 123456:ABC…',
      pattern: { re: TOKEN, message: 'a bot token looks like 123456789:AAE…' },
    },
    {
      name: 'chat_id',
      label: 'Chat',
      type: 'string',
      required: true,
      secret: false,
      default: null,
      description: 'a chat ID (-100… for groups and channels) or @channelname; chat:topic for a forum topic',
      pattern: { re: CHAT, message: 'must be a chat ID, @channelname, or either with :topic' },
    },
    { name: 'silent', label: 'Silent', type: 'boolean', required: false, secret: false, default: false, description: 'deliver without a notification sound' },
  ],
  targets: (s, env) => [`${base(env)}/bot${str(s, 'bot_token')}/sendMessage`],
  render(s, n, env) {
    const [, chat, thread] = CHAT.exec(str(s, 'chat_id')!)!
    const text = [
      `<b>${escapeHtml(truncate(n.title, 300))}</b>`,
      escapeHtml(truncate(n.body, 3000)),
      `<i>${escapeHtml(truncate(contextLine(n), 300))}</i>`,
      ...(n.url ? [`<a href="${escapeHtml(n.url)}">Open in Vigil</a>`] : []),
    ].join('\n\n')
    return {
      transport: 'http',
      method: 'POST',
      url: `${base(env)}/bot${str(s, 'bot_token')}/sendMessage`,
      headers: { 'content-type': 'application/json', 'user-agent': `Vigil/${env.version}` },
      body: JSON.stringify({
        chat_id: chat,
        ...(thread ? { message_thread_id: Number(thread) } : {}),
        text,
        parse_mode: 'HTML',
        link_preview_options: { is_disabled: true },
        ...(bool(s, 'silent', false) ? { disable_notification: true } : {}),
      }),
    }
  },
  fromShoutrrr(u) {
    const q = queryOf(u)
    const token = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`
    if (!TOKEN.test(token)) throw new ShoutrrrError('the bot token is missing or malformed (telegram://123456:ABC…@telegram)')
    const chats = (q.get('chats') ?? q.get('channels') ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean)
    if (!chats.length) throw new ShoutrrrError('chats is missing (telegram://token@telegram?chats=…)')
    if (chats.length > 1) throw new ShoutrrrError('one chat per channel: import the URL once per chat, each with one chats= value')
    return { bot_token: token, chat_id: chats[0]!, ...(shoutrrrBool(q.get('notification'), true) ? {} : { silent: true }) }
  },
  toShoutrrr(s) {
    const [id, secret] = str(s, 'bot_token')!.split(':') as [string, string]
    return `telegram://${id}:${secret}@telegram${query([
      ['chats', str(s, 'chat_id')],
      ['notification', bool(s, 'silent', false) ? 'No' : null],
      ['parsemode', 'HTML'],
      ['preview', 'No'],
    ])}`
  },
}
