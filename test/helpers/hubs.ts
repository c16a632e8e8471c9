/**
 * N `dist/vigil serve` hubs on one fresh PostgreSQL database, optionally behind Debian's nginx on
 * the shipped deploy/nginx/vigil.conf, for the several-hubs tests (test/e2e/hubs*.test.ts):
 *
 *   const h = await startHubs({ count: 2 })
 *   await fetch(`${h.hubs[0].base}/health`) … h.kill(0) … await h.stop()
 *
 * Every hub has its own data dir and the same VIGIL_JWT_SECRET and VIGIL_SECRET_KEY, as hubs of
 * one instance must. `databaseUrl` lets a test put something between the hubs and the server
 * (a TCP proxy it stops and starts again); the database itself is always a fresh one of the
 * test server's, dropped by `stop`.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SQL } from 'bun'
import { ensureBinary, freePort, tempDir } from './binary'
import { startNginx } from './nginx'
import { type FreshDatabase, postgresForTests } from './postgres'

export interface HubProcess {
  name: string
  port: number
  base: string
  proc: Bun.Subprocess
  /** what the hub logged on stdout so far (JSON lines) */
  log(): string
}

export interface HubsOptions {
  count: number
  /** more settings for every hub */
  env?: Record<string, string>
  /** put deploy/nginx/vigil.conf in front: `base` is nginx's address */
  nginx?: boolean
  /** the URL the hubs are given, made from the fresh database's (e.g. through a proxy); default that URL */
  databaseUrl?: (fresh: string) => string
  /** fills the fresh database before the first hub starts (an instance moved with `vigil copy`) */
  prepare?: (url: string) => Promise<void>
  /**
   * files written into every hub's data dir before it starts, by name (an instance's jwt-secret
   * and secret.key): the hubs then get no VIGIL_JWT_SECRET or VIGIL_SECRET_KEY and read these
   */
  dataDirFiles?: Record<string, string>
}

export interface Hubs {
  hubs: HubProcess[]
  /** nginx's address when asked for, else the first hub's */
  base: string
  /** the fresh database's URL, straight to the server */
  url: string
  /** a connection of the test's own to that database, for counting rows */
  sql: SQL
  /** starts one more hub on the same database (a hub restarted after a kill, say) */
  add(name: string): Promise<HubProcess>
  /** SIGKILL: the hub stops at once, without closing anything */
  kill(index: number): Promise<void>
  /** SIGTERM to every hub and nginx, waiting for them to finish: the database stays, to be read */
  terminate(): Promise<void>
  /** stops every hub and nginx, and drops the database */
  stop(): Promise<void>
  /** the setup token the hub that started first logged (every hub of the database takes it), if any did */
  setupToken(): string | null
}

const pg = postgresForTests()
export const hubsSkipReason = pg.skipReason
/** how long a hub may take to answer /health after it is started (it migrates a fresh database first) */
const START_MS = 30_000

/** the secrets every hub of one instance shares (made for this run) */
function sharedSecrets() {
  const key = new Uint8Array(32)
  crypto.getRandomValues(key)
  return { VIGIL_JWT_SECRET: `hubs-test-${crypto.randomUUID()}-${crypto.randomUUID()}`, VIGIL_SECRET_KEY: Buffer.from(key).toString('base64') }
}

export async function startHubs(o: HubsOptions): Promise<Hubs> {
  const fresh: FreshDatabase = await pg.freshDatabase('vigil_hubs')
  const dir = tempDir('vigil-hubs-')
  const secrets = sharedSecrets()
  const databaseUrl = o.databaseUrl ? o.databaseUrl(fresh.url) : fresh.url
  const started: Bun.Subprocess[] = []
  const hubs: HubProcess[] = []
  const sql = new SQL(fresh.url, { max: 2 })

  async function add(name: string): Promise<HubProcess> {
    const port = freePort()
    const dataDir = join(dir, name)
    if (o.dataDirFiles) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      for (const [file, text] of Object.entries(o.dataDirFiles)) writeFileSync(join(dataDir, file), text, { mode: 0o600 })
    }
    const proc = Bun.spawn([ensureBinary(), 'serve'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        VIGIL_PORT: String(port),
        VIGIL_HOST: '127.0.0.1',
        VIGIL_LOG_FORMAT: 'json',
        VIGIL_DATA_DIR: dataDir,
        VIGIL_DATABASE_URL: databaseUrl,
        ...(o.dataDirFiles ? {} : secrets),
        ...(o.nginx ? { VIGIL_TRUST_PROXY: 'true', VIGIL_TRUSTED_PROXIES: '127.0.0.1' } : {}),
        ...o.env,
      },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    started.push(proc)
    let log = ''
    // read as it comes: a pipe nobody reads fills and stops the hub
    void (async () => {
      for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) log += new TextDecoder().decode(chunk)
    })()
    const base = `http://127.0.0.1:${port}`
    const until = Date.now() + START_MS
    while (Date.now() < until && proc.exitCode === null) {
      try {
        if ((await fetch(`${base}/health`)).ok) {
          const hub = { name, port, base, proc, log: () => log }
          hubs.push(hub)
          return hub
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(50)
    }
    proc.kill('SIGKILL')
    throw new Error(`hub ${name} did not start: ${await new Response(proc.stderr as ReadableStream<Uint8Array>).text()}`)
  }

  async function terminate() {
    for (const p of started) if (p.exitCode === null) p.kill('SIGTERM')
    await Promise.all(started.map((p) => p.exited))
  }

  async function stop() {
    await terminate()
    await sql.close()
    await fresh.drop()
  }

  try {
    await o.prepare?.(fresh.url)
    // one after the other: the first migrates the fresh database, the others find it done
    for (let i = 0; i < o.count; i++) await add(`hub${i + 1}`)
    let base = hubs[0]!.base
    if (o.nginx) {
      const nginx = await startNginx(
        join(dir, 'nginx'),
        hubs.map((h) => h.port),
      )
      started.push(nginx.proc)
      base = nginx.base
    }
    return {
      hubs,
      base,
      url: fresh.url,
      sql,
      add,
      async kill(index) {
        const hub = hubs[index]!
        hub.proc.kill('SIGKILL')
        await hub.proc.exited
      },
      terminate,
      stop,
      setupToken: () => {
        for (const hub of hubs) {
          const m = /setup token (vst_[A-Za-z0-9_-]+)/.exec(hub.log())
          if (m) return m[1]!
        }
        return null
      },
    }
  } catch (err) {
    await stop()
    throw err
  }
}

/** JSON over HTTP to one base address, as a client of the API would send it. */
export function client(base: string, headers: Record<string, string> = {}) {
  return async (method: string, path: string, body?: unknown, more: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers, ...more },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    let json: any
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, body: json, text }
  }
}

/** An account on the instance (the first is its operator), its token, a collector key and a device. */
export async function accountWithDevice(base: string, email: string, setupToken: string | null = null) {
  const call = client(base)
  const creds = { email, password: 'correct horse battery' }
  const registered = await call('POST', '/v1/auth/register', creds, setupToken ? { 'x-setup-token': setupToken } : {})
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${registered.text}`)
  const login = await call('POST', '/v1/auth/login', creds)
  const auth = { authorization: `Bearer ${login.body.access_token}` }
  const key = (await call('POST', '/v1/auth/api-keys', { name: 'collector' }, auth)).body.api_key as string
  const device = await call(
    'POST',
    '/v1/clients/me/devices',
    { hostname: `host-${email}`, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: `fp-${email}` },
    { 'x-api-key': key },
  )
  if (device.status !== 201) throw new Error(`device: ${device.status} ${device.text}`)
  return { auth, key, deviceId: device.body.device_id as string, login: login.body, clientId: registered.body.client_id as string }
}
