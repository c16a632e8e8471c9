import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { SMTPServer } from 'smtp-server'
import { enqueueNotification } from '../../../src/modules/channels/channels.delivery'
import { channelsTestApp, FIRING } from '../../helpers/channels'
import { createTenant } from '../../helpers/fixtures'
import { FAKE_PUBLIC_IP } from '../../helpers/outbound'

/** What the sink saw of one message: envelope, login, whether TLS was on, the raw message. */
interface Sunk {
  from: string
  to: string[]
  user: string | null
  secure: boolean
  raw: string
}

const dir = `${process.env.TMPDIR ?? '/tmp'}/vigil-smtp-${process.pid}`
let cert = ''
let key = ''

/** A local SMTP sink (smtp-server) that takes any login for `vigil` with `mail-pass`. */
async function smtpSink(opts: { secure?: boolean; starttls?: boolean } = {}) {
  const sunk: Sunk[] = []
  const server = new SMTPServer({
    secure: opts.secure ?? false,
    key,
    cert,
    disabledCommands: opts.starttls === false ? ['STARTTLS'] : [],
    authOptional: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'vigil' && auth.password === 'mail-pass') return cb(null, { user: auth.username })
      return cb(new Error('Invalid username or password'))
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        sunk.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: (session.user as string | undefined) ?? null,
          secure: session.secure,
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        cb()
      })
    },
  })
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return { sunk, port: (server.server.address() as { port: number }).port, close: () => server.close() }
}

beforeAll(async () => {
  const gen = Bun.spawnSync([
    'openssl',
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${dir}-key.pem`,
    '-out',
    `${dir}-cert.pem`,
    '-days',
    '1',
    '-subj',
    '/CN=mail.example.test',
    '-addext',
    'subjectAltName=DNS:mail.example.test',
  ])
  if (gen.exitCode !== 0) throw new Error('openssl is needed for this test')
  cert = await Bun.file(`${dir}-cert.pem`).text()
  key = await Bun.file(`${dir}-key.pem`).text()
})
afterAll(() => {
  for (const f of ['key', 'cert']) rmSync(`${dir}-${f}.pem`, { force: true })
})

async function setup(config: Record<string, unknown>) {
  // the sink's certificate is trusted as a CA, so verification against the name is real
  const t = channelsTestApp({ mailOptions: { tls: { ca: cert } } })
  const tenant = await createTenant(t)
  const created = await t.request('POST', '/v1/channels', { headers: tenant.userHeaders, body: { name: 'mail', kind: 'email', config } })
  expect(created.status).toBe(201)
  return { t, tenant, id: created.body.id as string }
}

test('STARTTLS with login: the envelope, subject and text arrive over TLS verified against the host name', async () => {
  const sink = await smtpSink()
  const { t, tenant, id } = await setup({
    host: 'mail.example.test',
    port: sink.port,
    username: 'vigil',
    password: 'mail-pass',
    from: 'alerts@vigil.example.com',
    to: ['ops@example.com', 'oncall@example.com'],
  })
  t.worker.start()
  await enqueueNotification(t.channels, tenant.clientId, [id], FIRING)
  await t.worker.idle()
  expect(sink.sunk).toHaveLength(1)
  const m = sink.sunk[0]!
  expect(m.from).toBe('alerts@vigil.example.com')
  expect(m.to).toEqual(['ops@example.com', 'oncall@example.com'])
  expect(m.user).toBe('vigil')
  expect(m.secure).toBe(true)
  expect(m.raw).toContain('\r\nSubject: CRITICAL: disk / above 90% on web-1\r\n')
  expect(m.raw).toContain('From: alerts@vigil.example.com\r\n')
  expect(m.raw).toContain('To: ops@example.com, oncall@example.com\r\n')
  expect(m.raw).toContain('Content-Type: text/plain; charset=utf-8')
  expect(m.raw).toContain('Content-Type: text/html; charset=utf-8')
  expect(m.raw).toContain('Largest growth: /var/log.')
  expect(m.raw).toContain('https://vigil.example.com/devices/dev_1')
  // nodemailer was handed the checked address, never the name
  expect(t.mailConnections).toEqual([FAKE_PUBLIC_IP])
  const log = await t.request('GET', `/v1/channels/${id}/deliveries`, { headers: tenant.userHeaders })
  expect(log.body.items[0].status).toBe('delivered')
  expect(log.body.items[0].attempts[0].http_status).toBe(250)
  sink.close()
})

test('the certificate is checked against the host name: a name it does not carry gets no mail', async () => {
  const sink = await smtpSink({ secure: true })
  const t = channelsTestApp({ mailOptions: { tls: { ca: cert } }, names: { 'other.example.test': [FAKE_PUBLIC_IP] } })
  const tenant = await createTenant(t)
  const created = await t.request('POST', '/v1/channels', {
    headers: tenant.userHeaders,
    body: {
      name: 'm',
      kind: 'email',
      config: { host: 'other.example.test', port: sink.port, security: 'tls', from: 'a@vigil.example.com', to: ['b@example.com'] },
    },
  })
  const res = await t.request('POST', `/v1/channels/${created.body.id}/test`, { headers: tenant.userHeaders })
  expect(res.body.ok).toBe(false)
  expect(sink.sunk).toHaveLength(0)
  expect(t.logs.join('\n')).toContain("is not in the cert's altnames")
  sink.close()
})

test('implicit TLS on its own port, no login', async () => {
  const sink = await smtpSink({ secure: true })
  const { t, tenant, id } = await setup({ host: 'mail.example.test', port: sink.port, security: 'tls', from: 'a@vigil.example.com', to: ['b@example.com'] })
  const res = await t.request('POST', `/v1/channels/${id}/test`, { headers: tenant.userHeaders })
  expect(res.status).toBe(200)
  expect(res.body.ok).toBe(true)
  expect(sink.sunk[0]!.secure).toBe(true)
  expect(sink.sunk[0]!.user).toBeNull()
  expect(sink.sunk[0]!.raw).toContain('Subject: Test notification from Vigil')
  sink.close()
})

test('starttls required: a server that does not offer it gets no mail and no password', async () => {
  const sink = await smtpSink({ starttls: false })
  const { t, tenant, id } = await setup({
    host: 'mail.example.test',
    port: sink.port,
    username: 'vigil',
    password: 'mail-pass',
    from: 'a@vigil.example.com',
    to: ['b@example.com'],
  })
  const res = await t.request('POST', `/v1/channels/${id}/test`, { headers: tenant.userHeaders })
  expect(res.body.ok).toBe(false)
  expect(res.body.outcome).toBe('error')
  expect(sink.sunk).toHaveLength(0)
  expect(JSON.stringify(t.logs)).not.toContain('mail-pass')
  sink.close()
})

test('a wrong password is a final failure with the server reply, the password nowhere', async () => {
  const sink = await smtpSink()
  const { t, tenant, id } = await setup({
    host: 'mail.example.test',
    port: sink.port,
    username: 'vigil',
    password: 'wrong-pass-123',
    from: 'a@vigil.example.com',
    to: ['b@example.com'],
  })
  const res = await t.request('POST', `/v1/channels/${id}/test`, { headers: tenant.userHeaders })
  expect(res.body).toMatchObject({ ok: false, http_status: 535, outcome: 'error' })
  expect(sink.sunk).toHaveLength(0)
  const all = JSON.stringify([res.body, t.logs, (await t.request('GET', `/v1/channels/${id}/deliveries`, { headers: tenant.userHeaders })).body])
  expect(all).not.toContain('wrong-pass-123')
  sink.close()
})

test('an SMTP host that resolves to a forbidden address is refused before any connection', async () => {
  const t = channelsTestApp({ names: { 'mail.internal.test': ['169.254.169.254'] } })
  const tenant = await createTenant(t)
  const created = await t.request('POST', '/v1/channels', {
    headers: tenant.userHeaders,
    body: { name: 'm', kind: 'email', config: { host: 'mail.internal.test', from: 'a@vigil.example.com', to: ['b@example.com'] } },
  })
  const res = await t.request('POST', `/v1/channels/${created.body.id}/test`, { headers: tenant.userHeaders })
  // to a tenant, a refused name reads as an unreachable one
  expect(res.body).toMatchObject({ ok: false, outcome: 'unreachable' })
  expect(res.body.error).toStartWith('not allowed or not reachable')
  expect(t.mailConnections).toEqual([])
  // an IP literal (or localhost) is refused when saved
  for (const host of ['127.0.0.1', 'localhost', '169.254.169.254', '10.0.0.5']) {
    const bad = await t.request('POST', '/v1/channels', {
      headers: tenant.userHeaders,
      body: { name: 'm', kind: 'email', config: { host, from: 'a@vigil.example.com', to: ['b@example.com'] } },
    })
    expect([bad.status, bad.body.error.code]).toEqual([422, 'unsafe_url'])
  }
})
