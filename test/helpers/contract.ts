import { join } from 'node:path'
import { startBinary, tempDir } from './binary'
import { testApp } from './app'
import { loadConfig } from '../../src/config'
import { postgresForTests } from './postgres'

/** One answer, as the contract tests look at it. */
export interface Answer {
  status: number
  contentType: string | null
  text: string
  json: any
}

export interface SendOptions {
  headers?: Record<string, string>
  /** sent as JSON */
  body?: unknown
  /** sent as is (with content-type application/json unless headers say otherwise) */
  raw?: string
}

/** Somewhere requests go: the compiled executable over a socket, or the source in-process. */
export interface Target {
  name: 'executable' | 'source'
  send(method: string, path: string, opts?: SendOptions): Promise<Answer>
  stop(): Promise<void>
}

/** Limits high enough that a fuzz run is never throttled (429 is tested elsewhere). */
const UNTHROTTLED = {
  VIGIL_RATE_LIMIT_FREE: '10000000',
  VIGIL_RATE_LIMIT_PRO: '10000000',
  VIGIL_RATE_LIMIT_ENTERPRISE: '10000000',
  VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
  VIGIL_OWN_RATE_LIMIT: '10000000',
  VIGIL_AI_TIMEOUT_MS: '500',
}

/** Both targets run as shipped (an own instance, no billing), open to registration so the fuzz reaches its success path too. */
const INSTANCE = { VIGIL_MODE: 'own', VIGIL_SIGNUP: 'open' }

async function answerOf(res: Response): Promise<Answer> {
  // A live stream (GET /v1/events) does not end: only its head is read, and the body let go,
  // which closes the connection and the server's side of the stream.
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.body?.cancel()
    return { status: res.status, contentType: res.headers.get('content-type'), text: '', json: undefined }
  }
  const text = await res.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: res.status, contentType: res.headers.get('content-type'), text, json }
}

function requestInit(method: string, opts: SendOptions = {}): RequestInit {
  const headers: Record<string, string> = { ...opts.headers }
  let body: string | undefined
  if (opts.raw !== undefined) body = opts.raw
  else if (opts.body !== undefined) body = JSON.stringify(opts.body)
  if (body !== undefined) headers['content-type'] ??= 'application/json'
  return { method, headers, body }
}

/**
 * The engine the executable serves from: `VIGIL_TEST_ENGINE=postgres` runs the contract suite
 * on a fresh PostgreSQL database of the test server's (VIGIL_TEST_PG_URL) instead of SQLite.
 */
export type TargetEngine = 'sqlite' | 'postgres'
export const TARGET_ENGINE: TargetEngine = process.env.VIGIL_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite'

/** dist/vigil on a fresh data dir (and on PostgreSQL, a fresh database), on a free loopback port. */
export async function executableTarget(opts: { engine?: TargetEngine } = {}): Promise<Target> {
  const engine = opts.engine ?? TARGET_ENGINE
  const cwd = tempDir('vigil-contract-')
  const fresh = engine === 'postgres' ? await postgresForTests().freshDatabase('vigil_contract') : null
  const { proc, base } = await startBinary({
    cwd,
    env: { VIGIL_DATA_DIR: join(cwd, 'data'), ...UNTHROTTLED, ...INSTANCE },
    databaseUrl: fresh?.url,
  }).catch(async (err) => {
    await fresh?.drop()
    throw err
  })
  return {
    name: 'executable',
    send: async (method, path, opts) => answerOf(await fetch(base + path, requestInit(method, opts))),
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      await fresh?.drop()
    },
  }
}

/** The source, through createApp's own dispatch, on a fresh in-memory database. */
export function sourceTarget(): Target {
  const config = loadConfig({ VIGIL_LOG_FORMAT: 'json', ...UNTHROTTLED, ...INSTANCE })
  const t = testApp({ config: { rateLimits: config.rateLimits, instance: config.instance } })
  return {
    name: 'source',
    send: async (method, path, opts) => answerOf(await t.handle(new Request(`http://localhost${path}`, requestInit(method, opts)))),
    async stop() {},
  }
}

/** What the contract tests act with: an operator's account, a collector key, a device with data. */
export interface World {
  jwt: Record<string, string>
  key: Record<string, string>
  ids: Record<string, string>
}

async function ok(target: Target, method: string, path: string, opts: SendOptions): Promise<any> {
  const res = await target.send(method, path, opts)
  if (res.status >= 300) throw new Error(`${target.name}: ${method} ${path} answered ${res.status} ${res.text}`)
  return res.json
}

/** Builds the same world on a target through its public API only. */
export async function seedWorld(target: Target): Promise<World> {
  const account = { email: 'ops@example.test', password: 'correct horse battery' }
  const user = await ok(target, 'POST', '/v1/auth/register', { body: account })
  const login = await ok(target, 'POST', '/v1/auth/login', { body: account })
  const jwt = { authorization: `Bearer ${login.access_token}` }
  const created = await ok(target, 'POST', '/v1/auth/api-keys', { headers: jwt, body: { name: 'contract' } })
  const key = { 'x-api-key': created.api_key as string }
  const device = await ok(target, 'POST', '/v1/clients/me/devices', {
    headers: key,
    body: { hostname: 'rack-1', os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: 'fp-rack-1' },
  })
  await ok(target, 'POST', '/v1/metrics/batch', { headers: key, body: { hardware: { cpu_percent: 12.5 }, network: { latency_avg_ms: 3 } } })
  await ok(target, 'POST', '/v1/versions', { headers: jwt, body: { platform: 'linux-x64', version: '1.0.0' } })
  const members = await ok(target, 'GET', '/v1/clients/me/members', { headers: jwt })
  return {
    jwt,
    key,
    ids: {
      device_id: device.device_id,
      key_id: created.key_id,
      client_id: user.client_id,
      member_id: members[0].id,
      platform: 'linux-x64',
    },
  }
}

/** The operations of an OpenAPI document, flattened. */
export interface Operation {
  method: string
  path: string
  op: {
    security?: Record<string, string[]>[]
    parameters?: { name: string; in: string; required?: boolean; schema: any }[]
    requestBody?: { required?: boolean; content: Record<string, { schema: any }> }
    responses: Record<string, unknown>
  }
}

export function operationsOf(doc: { paths: Record<string, Record<string, Operation['op']>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })))
}

/** The credential headers an operation declares, from the world. */
export function credentialFor(op: Operation, world: World): Record<string, string> {
  const schemes = (op.op.security ?? []).flatMap((s) => Object.keys(s))
  if (schemes.includes('apiKey')) return world.key
  if (schemes.includes('bearer')) return world.jwt
  return {}
}

/** The operation's path with its parameters filled (from `values`, else the world's ids). */
export function fillPath(path: string, world: World, values: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? world.ids[name] ?? 'unknown'))
}

/** A value that satisfies a JSON schema, kept small: the base that one-field mutations start from. */
export function validValue(schema: any): unknown {
  if (!schema || typeof schema !== 'object') return null
  if (schema.default !== undefined) return schema.default
  if (schema.const !== undefined) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum[0]
  if (Array.isArray(schema.anyOf)) return validValue(schema.anyOf.find((s: any) => s.type !== 'null') ?? schema.anyOf[0])
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type
  switch (type) {
    case 'string':
      if (schema.format === 'email') return 'someone@example.test'
      if (schema.format === 'date-time') return new Date().toISOString()
      if (schema.format === 'uri') return 'https://example.test/'
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1))
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1)
    case 'boolean':
      return true
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => validValue(schema.items))
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const name of schema.required ?? []) out[name] = validValue(schema.properties?.[name])
      return out
    }
    default:
      return null
  }
}
