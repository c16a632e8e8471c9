import { EMAIL, type KindSpec, list, num, query, queryOf, ShoutrrrError, shoutrrrBool, type SmtpSecurity, str } from '../channels.kind-spec'
import { contextLine, escapeHtml, truncate } from '../channels.render'

const SECURITY: SmtpSecurity[] = ['starttls', 'tls', 'none']

/** Port 465 is implicit TLS (RFC 8314), the others start plain and upgrade. */
const defaultSecurity = (port: number): SmtpSecurity => (port === 465 ? 'tls' : 'starttls')

/**
 * Email through the user's SMTP server (nodemailer does the protocol). A plain-text part and
 * a small HTML part with the same content; the subject is the notification's title.
 */
export const email: KindSpec = {
  id: 'email',
  name: 'Email (SMTP)',
  description: 'Sends an email through your SMTP server (STARTTLS, implicit TLS or plain, with or without login).',
  shoutrrr: 'smtp',
  fields: [
    {
      name: 'host',
      label: 'SMTP server',
      type: 'string',
      required: true,
      secret: false,
      default: null,
      description: 'host name or address of the SMTP server',
      pattern: { re: /^[A-Za-z0-9.-]{1,253}$|^\[?[0-9A-Fa-f:.]+\]?$/, message: 'must be a host name or an IP address' },
    },
    {
      name: 'port',
      label: 'Port',
      type: 'integer',
      required: false,
      secret: false,
      default: 587,
      minimum: 1,
      maximum: 65535,
      description: '587 (submission, STARTTLS), 465 (implicit TLS) or 25',
    },
    {
      name: 'security',
      label: 'Security',
      type: 'enum',
      required: false,
      secret: false,
      default: null,
      options: SECURITY,
      description:
        'starttls: upgrade and refuse to continue without TLS; tls: TLS from the first byte; none: no encryption (only on a trusted network). Default: tls on port 465, starttls otherwise',
    },
    {
      name: 'username',
      label: 'Username',
      type: 'string',
      required: false,
      secret: false,
      default: null,
      description: 'login name, when the server wants one',
    },
    { name: 'password', label: 'Password', type: 'string', required: false, secret: true, default: null, description: 'login password' },
    { name: 'from', label: 'From', type: 'email', required: true, secret: false, default: null, description: 'sender address' },
    { name: 'to', label: 'To', type: 'string_list', required: true, secret: false, default: null, description: 'recipient addresses (up to 20)' },
  ],
  check(s) {
    const bad = list(s, 'to').find((a) => !EMAIL.test(a))
    if (bad !== undefined) return { field: 'to', message: `"${truncate(bad, 80)}" is not an email address` }
    if (!list(s, 'to').length) return { field: 'to', message: 'at least one recipient is needed' }
    if (str(s, 'password') && !str(s, 'username')) return { field: 'username', message: 'a password needs a username' }
    return null
  },
  targets: () => [],
  render(s, n) {
    const port = num(s, 'port') ?? 587
    const lines = [n.body, '', contextLine(n), ...(n.url ? ['', n.url] : [])]
    const html = [
      `<h2 style="margin:0 0 8px">${escapeHtml(n.title)}</h2>`,
      `<p style="white-space:pre-wrap;margin:0 0 8px">${escapeHtml(n.body)}</p>`,
      `<p style="color:#666;margin:0 0 8px">${escapeHtml(contextLine(n))}</p>`,
      ...(n.url ? [`<p><a href="${escapeHtml(n.url)}">Open in Vigil</a></p>`] : []),
    ].join('\n')
    return {
      transport: 'smtp',
      host: str(s, 'host')!,
      port,
      security: (str(s, 'security') as SmtpSecurity | null) ?? defaultSecurity(port),
      username: str(s, 'username'),
      password: str(s, 'password'),
      from: str(s, 'from')!,
      to: list(s, 'to'),
      // a subject is one line: a title from elsewhere must not add headers
      subject: truncate(n.title.replace(/[\r\n]+/g, ' '), 200),
      text: lines.join('\n'),
      html,
    }
  },
  fromShoutrrr(u) {
    const q = queryOf(u)
    const port = u.port ? Number(u.port) : 25
    const from = q.get('fromaddress') ?? q.get('from')
    const to = (q.get('toaddresses') ?? q.get('to') ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
    if (!from) throw new ShoutrrrError('from (fromaddress) is missing')
    if (!to.length) throw new ShoutrrrError('to (toaddresses) is missing')
    const encryption = (q.get('encryption') ?? 'auto').toLowerCase()
    const startTls = shoutrrrBool(q.get('usestarttls') ?? q.get('starttls'), true)
    // Shoutrrr's STARTTLS is opportunistic by default; here it is required, so a server that
    // stops offering it cannot make us send the password in clear text.
    let security: SmtpSecurity
    if (encryption === 'implicittls' || (encryption === 'auto' && port === 465)) security = 'tls'
    else if (encryption === 'none' || !startTls) security = 'none'
    else if (encryption === 'explicittls' || encryption === 'auto') security = 'starttls'
    else throw new ShoutrrrError(`encryption ${q.get('encryption')} is not one of None, ExplicitTLS, ImplicitTLS, Auto`)
    const host = u.hostname.replace(/^\[|\]$/g, '')
    if (!host) throw new ShoutrrrError('the SMTP host is missing')
    return {
      host,
      port,
      security,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      from: from.replaceAll(' ', '+'),
      to: to.map((a) => a.replaceAll(' ', '+')),
    }
  },
  toShoutrrr(s) {
    const user = str(s, 'username')
    const pass = str(s, 'password')
    const auth = user ? `${encodeURIComponent(user)}${pass ? `:${encodeURIComponent(pass)}` : ''}@` : ''
    const port = num(s, 'port') ?? 587
    const security = (str(s, 'security') as SmtpSecurity | null) ?? defaultSecurity(port)
    const host = str(s, 'host')!.includes(':') ? `[${str(s, 'host')}]` : str(s, 'host')
    const q = query([
      ['fromaddress', str(s, 'from')],
      ['toaddresses', list(s, 'to').join(',')],
      ['encryption', security === 'tls' ? 'ImplicitTLS' : security === 'starttls' ? 'ExplicitTLS' : 'None'],
      ['usestarttls', security === 'starttls' ? 'Yes' : 'No'],
      ['requirestarttls', security === 'starttls' ? 'Yes' : null],
    ])
    return `smtp://${auth}${host}:${port}/${q}`
  },
}
