import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBinary, freePort, tempDir } from '../helpers/binary'
import { redisForTests } from '../helpers/postgres'
import { sseReader } from '../helpers/sse'
import { nginxSkipReason, renderNginxConfig, runNginx } from '../helpers/nginx'

/**
 * Two dist/vigil hubs behind Debian's nginx running deploy/nginx/vigil.conf, rendered for them.
 * Each hub has its own data dir on SQLite: what is tested here is what sits in front of the hubs
 * (the proxy, and the rate limit the hubs share in Redis); hubs sharing one PostgreSQL database
 * behind nginx are test/e2e/hubs.test.ts's.
 */
const redis = redisForTests()
const skipReason = nginxSkipReason
  ? nginxSkipReason
  : !Bun.which('openssl')
    ? '(skipped: openssl, which makes the TLS test its certificate, is not installed; .ci/run installs it)'
    : redis.skipReason
const skip = skipReason !== ''
/** the anonymous budget per address, per minute, across both hubs (one token back every 3 s) */
const ANONYMOUS_LIMIT = 20

const started: Bun.Subprocess[] = []
const dir = tempDir('vigil-nginx-')
const byte = () => 1 + Math.floor(Math.random() * 254)
/** a client address of this run's own, so no bucket another run or test left in Redis is in the way */
const address = () => `10.${byte()}.${byte()}.${byte()}`

interface Hub {
  name: string
  port: number
  base: string
  proc: Bun.Subprocess
  log: () => string
}

async function startHub(name: string): Promise<Hub> {
  const port = freePort()
  const proc = Bun.spawn([ensureBinary(), 'serve'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      VIGIL_PORT: String(port),
      VIGIL_HOST: '127.0.0.1',
      VIGIL_LOG_FORMAT: 'json',
      VIGIL_DATA_DIR: join(dir, name),
      VIGIL_REDIS_URL: redis.url!,
      VIGIL_TRUST_PROXY: 'true',
      VIGIL_TRUSTED_PROXIES: '127.0.0.1',
      VIGIL_RATE_LIMIT_ANONYMOUS: String(ANONYMOUS_LIMIT),
      VIGIL_RATE_LIMIT_DELAY_MS: '0',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  started.push(proc)
  let log = ''
  void (async () => {
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) log += new TextDecoder().decode(chunk)
  })()
  const base = `http://127.0.0.1:${port}`
  // polled as an address of its own: the hub's anonymous budget for 127.0.0.1 is shared in Redis
  const me = { 'x-forwarded-for': address() }
  for (let i = 0; i < 200 && proc.exitCode === null; i++) {
    try {
      if ((await fetch(`${base}/health`, { headers: me })).ok) return { name, port, base, proc, log: () => log }
    } catch {
      // not listening yet
    }
    await Bun.sleep(50)
  }
  throw new Error(`hub ${name} did not start: ${await new Response(proc.stderr).text()}`)
}

/**
 * The TLS example of the shipped file, uncommented: its `listen 443 ssl;` (on a free port here)
 * with a certificate made for the test. `http2 on;` stays out: Debian's nginx 1.22 predates it.
 */
function withTls(rendered: string, opts: { port: number; cert: string; key: string }): string {
  const out = rendered
    .replace(/^ {4}listen 127\.0\.0\.1:\d+;$/m, `    listen 127.0.0.1:${opts.port} ssl;`)
    .replace(/^ {4}# {3}ssl_certificate {5}\S+;$/m, `    ssl_certificate ${opts.cert};`)
    .replace(/^ {4}# {3}ssl_certificate_key \S+;$/m, `    ssl_certificate_key ${opts.key};`)
    .replace(/^ {4}# {3}(ssl_protocols .*;)$/m, '    $1')
  if (!out.includes(`ssl_certificate ${opts.cert};`) || !out.includes(`ssl_certificate_key ${opts.key};`) || !/^ {4}ssl_protocols/m.test(out))
    throw new Error('the TLS example of deploy/nginx/vigil.conf was not found')
  return out
}

let hubs: Hub[] = []
let proxy = ''
let tlsProxy = ''

/**
 * nginx on `conf`, probed at `probe`. The hub asks for an unbuffered stream itself
 * (X-Accel-Buffering: no); ignored here, so that what is tested is that the shipped file passes
 * the live stream on by its own settings.
 */
const startNginx = (home: string, conf: string, probe: string) =>
  runNginx(home, conf, { probe, headers: { 'x-forwarded-for': address() }, http: '    proxy_ignore_headers X-Accel-Buffering;\n', started })

beforeAll(async () => {
  if (skip) return
  hubs = [await startHub('a'), await startHub('b')]
  const ports = hubs.map((h) => h.port)
  const port = freePort()
  proxy = `http://127.0.0.1:${port}`
  await startNginx(dir, renderNginxConfig({ hubs: ports, port, dir }), proxy)

  const tlsHome = join(dir, 'tls')
  mkdirSync(tlsHome)
  const [cert, key] = [join(tlsHome, 'cert.pem'), join(tlsHome, 'key.pem')]
  const made = Bun.spawnSync(
    ['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-days', '1', '-keyout', key, '-out', cert],
    {
      stdout: 'ignore',
      stderr: 'pipe',
    },
  )
  if (made.exitCode !== 0) throw new Error(`openssl: ${made.stderr.toString()}`)
  const tlsPort = freePort()
  tlsProxy = `https://127.0.0.1:${tlsPort}`
  await startNginx(tlsHome, withTls(renderNginxConfig({ hubs: ports, port: tlsPort, dir: tlsHome }), { port: tlsPort, cert, key }), tlsProxy)
}, 60_000)

afterAll(async () => {
  for (const p of started) if (p.exitCode === null) p.kill('SIGTERM')
  await Promise.all(started.map((p) => p.exited))
})

/** the access log's lines for one client address, once nginx has written `count` of them (it logs after answering) */
async function logged(client: string, count: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const lines = readFileSync(join(dir, 'access.log'), 'utf8')
      .split('\n')
      .filter((l) => l.includes(`"${client}"`))
    if (lines.length >= count) return lines
    await Bun.sleep(25)
  }
  throw new Error(`nginx logged fewer than ${count} requests from ${client}`)
}

const upstreamOf = (line: string) => / upstream=(.*?) upstream_status=/.exec(line)?.[1] ?? ''

describe('two hubs behind nginx (deploy/nginx/vigil.conf)', () => {
  test.skipIf(skip)(
    `GET /health through nginx is answered by both hubs in turn ${skipReason}`,
    async () => {
      const client = address()
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${proxy}/health`, { headers: { 'x-forwarded-for': client } })
        expect(res.status).toBe(200)
        expect(((await res.json()) as { database: { ok: boolean } }).database.ok).toBe(true)
      }
      const upstreams = (await logged(client, 6)).map(upstreamOf)
      expect(new Set(upstreams)).toEqual(new Set(hubs.map((h) => `127.0.0.1:${h.port}`)))
      // nothing else open: each one after the other
      for (let i = 1; i < upstreams.length; i++) expect(upstreams[i]).not.toBe(upstreams[i - 1])
    },
    30_000,
  )

  test.skipIf(skip)(
    `the client's address reaches the hubs, so one address's rate limit holds in total across both, with Retry-After ${skipReason}`,
    async () => {
      // the client as a CDN in front of nginx would name it; nginx appends 127.0.0.1, which the
      // hubs trust (VIGIL_TRUSTED_PROXIES), so they count the address left of it
      const client = address()
      const answers: { status: number; retryAfter: string | null }[] = []
      for (let i = 0; i < ANONYMOUS_LIMIT + 4; i++) {
        const res = await fetch(`${proxy}/health`, { headers: { 'x-forwarded-for': client } })
        await res.arrayBuffer()
        answers.push({ status: res.status, retryAfter: res.headers.get('retry-after') })
      }
      const ok = answers.filter((a) => a.status === 200).length
      // each hub saw 12, under the 20 it would allow alone; a 21st only if a token came back meanwhile
      expect(ok).toBeGreaterThanOrEqual(ANONYMOUS_LIMIT)
      expect(ok).toBeLessThanOrEqual(ANONYMOUS_LIMIT + 1)
      expect(answers.slice(0, ANONYMOUS_LIMIT).every((a) => a.status === 200)).toBe(true)
      const refused = answers.filter((a) => a.status === 429)
      expect(refused.length).toBeGreaterThanOrEqual(3)
      for (const r of refused) expect(Number(r.retryAfter)).toBeGreaterThan(0)
      const lines = await logged(client, answers.length)
      const refusedBy = new Set(lines.filter((l) => / 429 /.test(l)).map(upstreamOf))
      expect(refusedBy).toEqual(new Set(hubs.map((h) => `127.0.0.1:${h.port}`)))
      // another client behind the same proxy keeps its own budget: the hubs did not count nginx's address
      expect((await fetch(`${proxy}/health`, { headers: { 'x-forwarded-for': address() } })).status).toBe(200)
    },
    30_000,
  )

  test.skipIf(skip)(
    `a live stream opened through nginx receives an event as it happens, a body as large as the hub takes passes, a larger one is refused with the hub's error body, and a status page is cached as the hub says ${skipReason}`,
    async () => {
      const [a] = hubs
      const me = { 'x-forwarded-for': address() }
      const json = { ...me, 'content-type': 'application/json' }
      let token = ''
      for (let i = 0; i < 200 && !token; i++) {
        token = /vst_[A-Za-z0-9_-]+/.exec(a!.log())?.[0] ?? ''
        if (!token) await Bun.sleep(25)
      }
      const account = { email: 'ops@example.test', password: 'correct horse battery' }
      const reg = await fetch(`${a!.base}/v1/auth/register`, {
        method: 'POST',
        headers: { ...json, 'x-setup-token': token },
        body: JSON.stringify({ ...account, company: 'Acme' }),
      })
      expect(reg.status).toBe(201)
      const login = (await (await fetch(`${a!.base}/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(account) })).json()) as {
        access_token: string
      }
      const portal = { ...me, authorization: `Bearer ${login.access_token}` }
      const key = (await (
        await fetch(`${a!.base}/v1/auth/api-keys`, { method: 'POST', headers: { ...json, ...portal }, body: JSON.stringify({ name: 'rack-1' }) })
      ).json()) as { api_key: string }

      // the account lives on hub a alone (its own SQLite): hub b refuses its token with 401, so
      // open the stream until nginx hands it to hub a (the next try, as nothing else is open)
      let stream: Response | undefined
      for (let i = 0; i < 4 && !stream; i++) {
        const res = await fetch(`${proxy}/v1/events`, { headers: portal })
        if (res.status === 200) stream = res
        else {
          expect(res.status).toBe(401)
          await res.arrayBuffer()
        }
      }
      expect(stream!.headers.get('content-type')).toContain('text/event-stream')
      const events = sseReader(stream!)
      const device = await fetch(`${a!.base}/v1/clients/me/devices`, {
        method: 'POST',
        headers: { ...json, 'x-api-key': key.api_key },
        body: JSON.stringify({ hostname: 'rack-1', os: 'linux', os_version: '6.8', arch: 'arm64', fingerprint: 'fp-rack-1' }),
      })
      expect(device.status).toBe(201)
      // nginx passes the event on as the hub writes it; a buffered one would wait for the next
      // pings to fill nginx's buffer, and the test would time out
      const event = await events.event()
      expect(event?.event).toBe('device.registered')
      await events.cancel()

      // a body as large as the hub takes (1 MiB, VIGIL_MAX_BODY_BYTES) reaches it, and the hub
      // reads it whole (the padding is a field it drops) and takes the item
      const bulk = (pad: number) => JSON.stringify({ items: [{ recorded_at: new Date().toISOString(), pad: 'x'.repeat(pad) }] })
      const collector = { ...json, 'x-api-key': key.api_key }
      // Hub b has no such key: it refuses the body 401 before reading it, and keeps the
      // connection of the proxy it trusts, so the client gets that 401, never nginx's 502.
      // Sent again until hub a has it; every attempt refused is checked to be hub b's below.
      let fits = await fetch(`${proxy}/v1/metrics/bulk`, { method: 'POST', headers: collector, body: bulk(1000 * 1024) })
      for (let i = 0; i < 3 && fits.status === 401; i++) {
        await fits.arrayBuffer()
        fits = await fetch(`${proxy}/v1/metrics/bulk`, { method: 'POST', headers: collector, body: bulk(1000 * 1024) })
      }
      expect(fits.status).toBe(201)
      expect(((await fits.json()) as { items: unknown[] }).items).toHaveLength(1)
      const bulkLines = (await logged(me['x-forwarded-for'], 1)).filter((l) => l.includes('"POST /v1/metrics/bulk'))
      for (const l of bulkLines.filter((l) => !/" 201 /.test(l))) expect(upstreamOf(l)).toBe(`127.0.0.1:${hubs[1]!.port}`)
      // a larger one is refused by nginx with the hub's error body, not cut off into a 502
      const tooLarge = await fetch(`${proxy}/v1/metrics/bulk`, { method: 'POST', headers: collector, body: bulk(1536 * 1024) })
      expect(tooLarge.status).toBe(413)
      expect(tooLarge.headers.get('content-type')).toContain('application/json')
      expect(((await tooLarge.json()) as { error: { code: string; doc_url: string } }).error).toMatchObject({
        code: 'payload_too_large',
        doc_url: `${proxy}/docs/errors#payload_too_large`,
      })

      // a public status page is kept by nginx as long as the hub's Cache-Control says: once a hub
      // has answered it, the next visitor gets nginx's copy whichever hub is next
      const { device_id } = (await device.json()) as { device_id: string }
      const slug = `nginx-${byte()}-${byte()}`
      const page = await fetch(`${a!.base}/v1/status-pages`, {
        method: 'POST',
        headers: { ...json, ...portal },
        body: JSON.stringify({ slug, title: 'Acme', groups: [{ name: 'Servers', items: [{ type: 'device', id: device_id, label: 'rack' }] }] }),
      })
      expect(page.status).toBe(201)
      let first: Response | undefined
      for (let i = 0; i < 4 && !first; i++) {
        // hub b has no such page: its 404 carries no Cache-Control, and nginx keeps none of it
        const res = await fetch(`${proxy}/status/${slug}.json`, { headers: me })
        if (res.status === 200) first = res
        else expect(res.headers.get('x-cache-status')).toBe('MISS')
        await res.arrayBuffer()
      }
      expect(first!.headers.get('cache-control')).toBe('public, max-age=30')
      expect(first!.headers.get('x-cache-status')).toBe('MISS')
      for (let i = 0; i < 2; i++) {
        const again = await fetch(`${proxy}/status/${slug}.json`, { headers: me })
        expect(again.status).toBe(200)
        expect(again.headers.get('x-cache-status')).toBe('HIT')
        expect(((await again.json()) as { title: string }).title).toBe('Acme')
      }
    },
    30_000,
  )

  test.skipIf(skip)(
    `with the file's TLS example, nginx terminates HTTPS and tells the hubs so: their session cookie is Secure there, and not over plain HTTP ${skipReason}`,
    async () => {
      // the account made on hub a above (hub b does not know it: 401, and the next try goes to a)
      async function signIn(base: string): Promise<Response> {
        for (let i = 0; i < 4; i++) {
          const res = await fetch(`${base}/v1/auth/session`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': address() },
            body: JSON.stringify({ email: 'ops@example.test', password: 'correct horse battery' }),
            tls: { rejectUnauthorized: false },
          } as RequestInit)
          if (res.status === 200) return res
          expect(res.status).toBe(401)
          await res.arrayBuffer()
        }
        throw new Error(`no hub signed in through ${base}`)
      }
      const overTls = (await signIn(tlsProxy)).headers.get('set-cookie')
      expect(overTls).toStartWith('vigil_session=vrt_')
      expect(overTls).toContain('; Secure')
      const plain = (await signIn(proxy)).headers.get('set-cookie')
      expect(plain).toStartWith('vigil_session=vrt_')
      expect(plain).not.toContain('Secure')
    },
    30_000,
  )

  test.skipIf(skip)(
    `with one hub killed, nginx sends every request to the other: no client sees an error ${skipReason}`,
    async () => {
      const [a, b] = hubs
      b!.proc.kill('SIGKILL')
      await b!.proc.exited
      const client = address()
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${proxy}/health`, { headers: { 'x-forwarded-for': client } })
        expect(res.status).toBe(200)
        await res.arrayBuffer()
      }
      const upstreams = (await logged(client, 6)).map(upstreamOf)
      // the attempt on the dead hub failed and the request went on to the live one...
      expect(upstreams).toContain(`127.0.0.1:${b!.port}, 127.0.0.1:${a!.port}`)
      // ...and every answer came from the live one
      for (const u of upstreams) expect(u.endsWith(`127.0.0.1:${a!.port}`)).toBe(true)
      expect(readFileSync(join(dir, 'error.log'), 'utf8')).toContain('Connection refused')
    },
    30_000,
  )
})
