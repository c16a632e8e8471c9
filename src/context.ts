import type { SQL } from 'bun'
import type { Config } from './config'
import type { DbHandle } from './db/connection'
import type { Clock } from './lib/clock'
import type { Logger } from './lib/logger'
import type { Timers } from './lib/timers'
import type { RateLimiter } from './http/rate-limiter'
import type { Plan } from './modules/billing/billing.catalog'
import type { Authenticator } from './http/principal'
import type Stripe from 'stripe'
import type { MetricsSource } from './modules/ai/ai.metrics-source'
import type { PasswordCost } from './modules/users/users.passwords'
import type { SecretKeySource } from './lib/secret-box'
import type { OutboundDeps, Resolver } from './lib/outbound/outbound.fetch'
import type { EventBus } from './lib/event-bus'
import type { MailTransport } from './modules/channels/channels.transport'
import type { RenderEnv } from './modules/channels/channels.kind-spec'

/** What the outside world hands the app: swap any of these in tests. */
export interface AppDeps {
  config: Config
  db: DbHandle
  clock: Clock
  logger: Logger
  jwtSecret: string
  limiter?: RateLimiter
  /** deferred calls (the rate-limit hold); default the event loop's */
  timers?: Timers
  fetch?: typeof fetch
  /** DNS for outbound calls; default: the system resolver */
  resolve?: Resolver
  plans?: Plan[]
  /** the Stripe client; default: built from config.stripe (null without STRIPE_SECRET_KEY) */
  stripe?: Stripe | null
  /** AES-256-GCM key for provider secrets at rest; default: VIGIL_SECRET_KEY, else an ephemeral key */
  secretKey?: SecretKeySource
  /** what the recommendation engine reads; default: the metrics module */
  metricsSource?: MetricsSource
  /** argon2id cost; tests pass a cheap one */
  passwordCost?: PasswordCost
  /** where alert notices go (the channels module); default: logged only */
  notify?: import('./modules/alerts/runtime/alerts.runtime-ports').Notify
  /** the one-time token the operator's registration needs when it may come from another machine (users.signup.ts): in clear, or as agreed by the hubs (users.setup-token.ts) */
  setupToken?: string | import('./modules/users/users.setup-token').SetupToken | null
  /** the SMTP transport factory of email channels; default nodemailer's */
  mail?: MailTransport
  /** notification services with a fixed API host (Pushover, Telegram) pointed elsewhere: tests' local fakes */
  channelApiBase?: RenderEnv['apiBase']
  /** what status pages read of checks; default: the checks module (tests pass a fake) */
  statusChecks?: import('./modules/status-pages/status-pages.ports').StatusChecksPort
  /** the other hubs on the same PostgreSQL (src/db/pg/notify.ts): shared events and session revocations; none with one hub */
  peers?: import('./lib/peer-link').PeerLink
  /**
   * PostgreSQL (VIGIL_DATABASE_URL): the stores that run on both engines are built on it instead
   * of the SQLite file (src/composition/engine.ts); none (the default) keeps everything in SQLite
   */
  pg?: SQL | null
  /**
   * the pause between the bounded steps of a long run of writes (pruning, vacuuming, rollups);
   * default a turn of the event loop. `vigil serve` on SQLite also keeps the WAL within a bound
   * with it (src/db/bulk-pause.ts)
   */
  bulkPause?: () => Promise<void>
}

/** The dependencies every module receives, built once by createApp. */
export interface AppContext {
  config: Config
  db: DbHandle
  clock: Clock
  logger: Logger
  fetch: typeof fetch
  /** for every request to a URL a tenant chose: pass it to safeFetch with a policy */
  outbound: OutboundDeps
  /** the credential checks the gateway and every module's route guards share */
  auth: Authenticator
  plans: () => Plan[]
  /** the key for provider secrets at rest, made on first use */
  secretKey: () => Uint8Array
  /** each client's live events (samples, device status, alerts): the portal's stream reads it */
  events: EventBus
  /** PostgreSQL when the hub runs on it (AppDeps.pg), else null: pick a store with `onEngine` */
  pg: SQL | null
  /** the pause between the bounded steps of a long run of writes (AppDeps.bulkPause) */
  bulkPause: () => Promise<void>
}
