import { Cron } from 'croner'
import type { LogFormat, LogLevel } from './lib/logger'
import { parseCidr, type Cidr } from './lib/cidr'
import { storageSettings, type StorageSettings } from './modules/storage/storage.config'
import { databaseSettings, type DatabaseSettings } from './lib/database-url'
import { redisUrlSetting } from './http/rate-limiter.config'

/**
 * A bad option, environment variable or argument: one line on stderr and exit 2. Named, so
 * `vigil`'s entry can tell it apart without loading this module (the collector never does).
 */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** One typed configuration: flags win over environment, environment over defaults. */
export interface Config {
  port: number
  host: string
  dataDir: string
  siteUrl: string
  jwtSecret: string | null // null: generated and kept in the data dir
  logLevel: LogLevel
  logFormat: LogFormat
  trustProxy: boolean
  /**
   * VIGIL_TRUSTED_PROXIES: the proxies whose X-Forwarded-For entries are believed, besides the
   * socket's peer (which is trusted when trustProxy is on and this list is empty)
   */
  trustedProxies: Cidr[]
  /** the hub publishes its own executable as the collectors' version at start (VIGIL_PUBLISH_SELF, default on) */
  publishSelf: boolean
  /** a built vigil the hub serves collectors for its architecture (VIGIL_AGENT_EXECUTABLE), e.g. when it runs from source */
  agentExecutable: string | null
  rateLimits: { free: number; pro: number; enterprise: number; anonymous: number }
  /** how long a refusal for the rate limit is held before it is sent (at most the wait it announces) */
  rateLimitDelayMs: number
  /** VIGIL_REDIS_URL: the rate limit's buckets in Redis or Valkey, shared by every hub pointed at it; null: not used */
  redisUrl: string | null
  maxBodyBytes: number
  tlsCert: string | null
  tlsKey: string | null
  corsOrigins: string[]
  /** PRAGMA synchronous (db/connection.ts) */
  synchronous: 'NORMAL' | 'FULL'
  /** VIGIL_DATABASE_URL (PostgreSQL; null: SQLite in the data dir) and VIGIL_DATABASE_POOL: see lib/database-url.ts */
  database: DatabaseSettings
  refreshTtlSeconds: number
  stripe: { secretKey: string | null; webhookSecret: string | null; apiBase: string | null }
  plansFile: string | null
  /** AES-256-GCM key for third-party secrets (base64, 32 bytes); null: kept in the data dir */
  secretKey: string | null
  /** a bearer token a Prometheus server may scrape GET /metrics with; null: operator or metrics:read keys only */
  metricsToken: string | null
  ai: AiDefaults
  /** requests the server makes to URLs tenants choose (language models, webhooks) */
  outbound: { allowPrivate: boolean; allowLocal?: boolean }
  /** how long each metric tier is kept, in seconds */
  metricsRetention: { raw: number; m1: number; m10: number; h1: number; d1: number }
  /** VIGIL_STORAGE_BUDGET (null: none) and VIGIL_STORAGE_DISK_WARN: see storage.config.ts */
  storage: StorageSettings
  /** scheduled backups: a six-field UTC cron or null (off); dir null = <data dir>/backups */
  backup: { schedule: string | null; dir: string | null; keep: number }
  /** the portal's live streams (GET /v1/events) open at once, over every user */
  liveMaxStreams: number
  /** own instance (no billing: the operator sets limits) or service (the plans apply); who may register */
  instance: InstanceSettings
}

export type InstanceMode = 'own' | 'service'
export type SignupPolicy = 'open' | 'invite' | 'closed'

export interface InstanceSettings {
  mode: InstanceMode
  /** null: follows the mode (own: invite, service: open) */
  signup: SignupPolicy | null
  /** what a client on the free plan gets in own-instance mode, unless the operator overrides it */
  own: { maxDevices: number; maxUsers: number; rateLimit: number }
}

/** daily at 03:47 UTC: off the hour, and after the 03:17 clean-up jobs */
export const DEFAULT_BACKUP_SCHEDULE = '0 47 3 * * *'

/** The instance-wide language-model default that clients inherit unless they configure their own. */
export interface AiDefaults {
  provider: 'rules' | 'openai' | 'ollama' | 'anthropic'
  baseUrl: string | null
  apiKey: string | null
  model: string | null
  /** language-model calls per client per UTC day */
  dailyBudget: number
  timeoutMs: number
}

type Env = Record<string, string | undefined>

/** The flags a command accepts: long name → config key (the env name is in the same table). */
const FLAGS: Record<string, string> = {
  port: 'VIGIL_PORT',
  host: 'VIGIL_HOST',
  'data-dir': 'VIGIL_DATA_DIR',
  'site-url': 'VIGIL_SITE_URL',
  'tls-cert': 'VIGIL_TLS_CERT',
  'tls-key': 'VIGIL_TLS_KEY',
}

function int(name: string, raw: string | undefined, def: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return def
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const n = Number(raw)
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`)
  return n
}

function oneOf<T extends string>(name: string, raw: string | undefined, def: T, allowed: readonly T[]): T {
  if (raw === undefined || raw === '') return def
  const v = raw.trim().toLowerCase() as T
  if (!allowed.includes(v)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`)
  return v
}

function bool(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return false
  const v = raw.trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(v)) return true
  if (['0', 'false', 'no', 'off'].includes(v)) return false
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}

function url(name: string, raw: string): string {
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`)
  }
  return raw.replace(/\/+$/, '')
}

/** Durations like 30d, 12h, 45m, 90s or a bare number of seconds. */
export function parseDuration(name: string, raw: string | undefined, defSeconds: number): number {
  if (raw === undefined || raw === '') return defSeconds
  const m = /^(\d+)\s*([smhd]?)$/.exec(raw.trim())
  if (!m) throw new ConfigError(`${name} must be a duration such as 30d, 12h, 15m or 900s, got "${raw}"`)
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd']
  const seconds = Number(m[1]) * unit
  if (seconds <= 0) throw new ConfigError(`${name} must be longer than zero`)
  return seconds
}

/** Parses `--name value` and `--name=value` for the known flags; anything else is an error. */
export function parseFlags(args: string[], allowed: string[] = Object.keys(FLAGS)): Env {
  const out: Env = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument "${arg}"`)
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    if (!allowed.includes(name) || !FLAGS[name]) throw new ConfigError(`unknown option --${name}`)
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1)
    if (value === undefined || value.startsWith('--')) throw new ConfigError(`--${name} needs a value`)
    out[FLAGS[name]!] = value
  }
  return out
}

export function loadConfig(env: Env, flagArgs: string[] = []): Config {
  const e: Env = { ...env, ...parseFlags(flagArgs) }
  const jwtSecret = e.VIGIL_JWT_SECRET || null
  if (jwtSecret !== null && Buffer.byteLength(jwtSecret) < 32) {
    throw new ConfigError('VIGIL_JWT_SECRET must be at least 32 bytes long (or unset, to generate one)')
  }
  const tlsCert = e.VIGIL_TLS_CERT || null
  const tlsKey = e.VIGIL_TLS_KEY || null
  if (!!tlsCert !== !!tlsKey) throw new ConfigError('VIGIL_TLS_CERT and VIGIL_TLS_KEY must be set together')
  const port = int('VIGIL_PORT', e.VIGIL_PORT, 8080, 0, 65535)
  return {
    port,
    host: e.VIGIL_HOST?.trim() || '0.0.0.0',
    dataDir: e.VIGIL_DATA_DIR?.trim() || './data',
    siteUrl: url('VIGIL_SITE_URL', e.VIGIL_SITE_URL?.trim() || `http://localhost:${port || 8080}`),
    jwtSecret,
    logLevel: oneOf('VIGIL_LOG_LEVEL', e.VIGIL_LOG_LEVEL, 'info', ['debug', 'info', 'warn', 'error'] as const),
    logFormat: oneOf('VIGIL_LOG_FORMAT', e.VIGIL_LOG_FORMAT, process.stdout.isTTY ? 'pretty' : 'json', ['json', 'pretty'] as const),
    trustProxy: bool('VIGIL_TRUST_PROXY', e.VIGIL_TRUST_PROXY),
    trustedProxies: trustedProxies(e.VIGIL_TRUSTED_PROXIES, bool('VIGIL_TRUST_PROXY', e.VIGIL_TRUST_PROXY)),
    publishSelf: e.VIGIL_PUBLISH_SELF === undefined || bool('VIGIL_PUBLISH_SELF', e.VIGIL_PUBLISH_SELF),
    agentExecutable: e.VIGIL_AGENT_EXECUTABLE?.trim() || null,
    rateLimits: {
      free: int('VIGIL_RATE_LIMIT_FREE', e.VIGIL_RATE_LIMIT_FREE, 60, 1, 10_000_000),
      pro: int('VIGIL_RATE_LIMIT_PRO', e.VIGIL_RATE_LIMIT_PRO, 600, 1, 10_000_000),
      enterprise: int('VIGIL_RATE_LIMIT_ENTERPRISE', e.VIGIL_RATE_LIMIT_ENTERPRISE, 6000, 1, 10_000_000),
      anonymous: int('VIGIL_RATE_LIMIT_ANONYMOUS', e.VIGIL_RATE_LIMIT_ANONYMOUS, 60, 1, 10_000_000),
    },
    rateLimitDelayMs: int('VIGIL_RATE_LIMIT_DELAY_MS', e.VIGIL_RATE_LIMIT_DELAY_MS, 1000, 0, 60_000),
    redisUrl: redisUrlSetting(e.VIGIL_REDIS_URL, (message) => {
      throw new ConfigError(message)
    }),
    maxBodyBytes: int('VIGIL_MAX_BODY_BYTES', e.VIGIL_MAX_BODY_BYTES, 1024 * 1024, 1024, 1024 * 1024 * 1024),
    tlsCert,
    tlsKey,
    corsOrigins: (e.VIGIL_CORS_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((o) => url('VIGIL_CORS_ORIGINS', o)),
    synchronous: oneOf('VIGIL_DB_SYNCHRONOUS', e.VIGIL_DB_SYNCHRONOUS?.toLowerCase(), 'normal', ['normal', 'full'] as const).toUpperCase() as 'NORMAL' | 'FULL',
    database: databaseSettings(e.VIGIL_DATABASE_URL, e.VIGIL_DATABASE_POOL, (message) => {
      throw new ConfigError(message)
    }),
    refreshTtlSeconds: parseDuration('VIGIL_REFRESH_TTL', e.VIGIL_REFRESH_TTL, 30 * 86400),
    stripe: {
      secretKey: e.STRIPE_SECRET_KEY || null,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET || null,
      apiBase: e.STRIPE_API_BASE ? url('STRIPE_API_BASE', e.STRIPE_API_BASE) : null,
    },
    plansFile: e.VIGIL_PLANS_FILE || null,
    secretKey: secretKey(e.VIGIL_SECRET_KEY),
    metricsToken: metricsToken(e.VIGIL_METRICS_TOKEN),
    ai: {
      provider: oneOf('VIGIL_AI_PROVIDER', e.VIGIL_AI_PROVIDER, 'rules', ['rules', 'openai', 'ollama', 'anthropic'] as const),
      baseUrl: e.VIGIL_AI_BASE_URL ? url('VIGIL_AI_BASE_URL', e.VIGIL_AI_BASE_URL.trim()) : null,
      apiKey: e.VIGIL_AI_API_KEY || null,
      model: e.VIGIL_AI_MODEL?.trim() || null,
      dailyBudget: int('VIGIL_AI_DAILY_BUDGET', e.VIGIL_AI_DAILY_BUDGET, 48, 0, 100_000),
      timeoutMs: int('VIGIL_AI_TIMEOUT_MS', e.VIGIL_AI_TIMEOUT_MS, 60_000, 100, 600_000),
    },
    outbound: {
      // off: only the operator's own client may point the server at the LAN
      allowPrivate: bool('VIGIL_OUTBOUND_ALLOW_PRIVATE', e.VIGIL_OUTBOUND_ALLOW_PRIVATE),
      // off: a tenant's URL could probe the instance itself and what listens beside it
      allowLocal: bool('VIGIL_OUTBOUND_ALLOW_LOCAL', e.VIGIL_OUTBOUND_ALLOW_LOCAL),
    },
    metricsRetention: {
      raw: parseDuration('VIGIL_RETENTION_RAW', e.VIGIL_RETENTION_RAW, 7 * 86400),
      m1: parseDuration('VIGIL_RETENTION_1M', e.VIGIL_RETENTION_1M, 3 * 86400),
      m10: parseDuration('VIGIL_RETENTION_10M', e.VIGIL_RETENTION_10M, 30 * 86400),
      h1: parseDuration('VIGIL_RETENTION_1H', e.VIGIL_RETENTION_1H, 365 * 86400),
      d1: parseDuration('VIGIL_RETENTION_1D', e.VIGIL_RETENTION_1D, 5 * 365 * 86400),
    },
    storage: storageSettings(e.VIGIL_STORAGE_BUDGET, e.VIGIL_STORAGE_DISK_WARN, (message) => {
      throw new ConfigError(message)
    }),
    backup: {
      schedule: backupSchedule(e.VIGIL_BACKUP_SCHEDULE),
      dir: e.VIGIL_BACKUP_DIR?.trim() || null,
      keep: int('VIGIL_BACKUP_KEEP', e.VIGIL_BACKUP_KEEP, 7, 1, 10_000),
    },
    liveMaxStreams: int('VIGIL_LIVE_MAX_STREAMS', e.VIGIL_LIVE_MAX_STREAMS, 1000, 1, 100_000),
    instance: {
      // billing configured means a service selling plans; without it, somebody's own instance
      mode: oneOf('VIGIL_MODE', e.VIGIL_MODE, e.STRIPE_SECRET_KEY ? 'service' : 'own', ['own', 'service'] as const),
      signup: e.VIGIL_SIGNUP?.trim() ? oneOf('VIGIL_SIGNUP', e.VIGIL_SIGNUP, 'open', ['open', 'invite', 'closed'] as const) : null,
      own: {
        maxDevices: int('VIGIL_OWN_MAX_DEVICES', e.VIGIL_OWN_MAX_DEVICES, 1000, 0, 10_000_000),
        maxUsers: int('VIGIL_OWN_MAX_USERS', e.VIGIL_OWN_MAX_USERS, 1000, 1, 10_000_000),
        // 1,000 collectors reporting every 10 s, with room for their other calls
        rateLimit: int('VIGIL_OWN_RATE_LIMIT', e.VIGIL_OWN_RATE_LIMIT, 12_000, 1, 10_000_000),
      },
    },
  }
}

/**
 * On by default: a self-hosted box is expected to keep backups without being asked. `off`
 * disables; a five-field cron (minute first) gets a seconds field of 0. Read in UTC.
 */
function backupSchedule(raw: string | undefined): string | null {
  const v = raw?.trim().toLowerCase()
  if (!v) return DEFAULT_BACKUP_SCHEDULE
  if (v === 'off') return null
  const fields = v.split(/\s+/)
  const pattern = fields.length === 5 ? `0 ${fields.join(' ')}` : fields.join(' ')
  try {
    if (fields.length !== 5 && fields.length !== 6) throw new Error('five or six fields')
    new Cron(pattern, { paused: true, utcOffset: 0 })
  } catch {
    throw new ConfigError(`VIGIL_BACKUP_SCHEDULE must be a cron pattern such as "47 3 * * *" (daily at 03:47 UTC) or "off", got "${raw}"`)
  }
  return pattern
}

/** Comma-separated addresses or CIDRs; only meaningful behind a proxy, so set alone it is a mistake worth saying. */
function trustedProxies(raw: string | undefined, trustProxy: boolean): Cidr[] {
  const items = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (items.length && !trustProxy) throw new ConfigError('VIGIL_TRUSTED_PROXIES is set but VIGIL_TRUST_PROXY is off: set VIGIL_TRUST_PROXY=true too')
  if (items.length > 100) throw new ConfigError('VIGIL_TRUSTED_PROXIES takes at most 100 entries')
  return items.map((item) => {
    const cidr = parseCidr(item)
    if (!cidr) throw new ConfigError(`VIGIL_TRUSTED_PROXIES must list IP addresses or CIDRs (10.0.0.0/8, ::1), got "${item}"`)
    return cidr
  })
}

/** Long enough not to be guessed, and free of what a bearer header cannot carry. */
function metricsToken(raw: string | undefined): string | null {
  const v = raw?.trim()
  if (!v) return null
  if (v.length < 32 || !/^[\x21-\x7e]+$/.test(v))
    throw new ConfigError('VIGIL_METRICS_TOKEN must be at least 32 printable characters without spaces (openssl rand -hex 32)')
  return v
}

function secretKey(raw: string | undefined): string | null {
  if (!raw) return null
  if (Buffer.from(raw.trim(), 'base64').length !== 32) throw new ConfigError('VIGIL_SECRET_KEY must be 32 random bytes in base64 (openssl rand -base64 32)')
  return raw.trim()
}

/**
 * A config for tests and tools: defaults with overrides, never reading the process env. Service
 * mode, so tests see the spec's plans and open sign-up unless they ask for an own instance.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // refusals for the rate limit are answered at once in tests (one test holds them, with manual timers)
  return {
    ...loadConfig({
      VIGIL_LOG_FORMAT: 'json',
      VIGIL_JWT_SECRET: 'test-secret-test-secret-test-secret-!!',
      VIGIL_MODE: 'service',
      VIGIL_RATE_LIMIT_DELAY_MS: '0',
    }),
    ...overrides,
  }
}
