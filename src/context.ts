import type { Config } from './config'
import type { DbHandle } from './db/connection'
import type { Clock } from './lib/clock'
import type { Logger } from './lib/logger'
import type { RateLimiter } from './http/rate-limiter'
import type { AccessTokens } from './modules/users/users.tokens'
import type { ApiKeyVerifier } from './modules/api-keys/api-keys.verifier'
import type { ClientLimits } from './modules/clients/clients.limits'
import type { Plan } from './modules/billing/billing.catalog'
import type { Job } from './jobs/scheduler'
import type { PasswordCost } from './modules/users/users.passwords'
import type { StatProvider } from './modules/admin/admin.stats'

/** What the outside world hands the app: swap any of these in tests. */
export interface AppDeps {
  config: Config
  db: DbHandle
  clock: Clock
  logger: Logger
  jwtSecret: string
  limiter?: RateLimiter
  fetch?: typeof fetch
  plans?: Plan[]
  /** argon2id cost; tests pass a cheap one */
  passwordCost?: PasswordCost
}

/** The dependencies every module receives, built once by createApp. */
export interface AppContext {
  config: Config
  db: DbHandle
  clock: Clock
  logger: Logger
  fetch: typeof fetch
  startedAt: number
  tokens: AccessTokens
  apiKeys: ApiKeyVerifier
  limits: ClientLimits
  plans: () => Plan[]
  /** jobs modules register; `serve` schedules them */
  jobs: Job[]
  passwordCost: PasswordCost
  /** counts other modules add to GET /v1/admin/stats (metric rows, ingest rate…) */
  statProviders: StatProvider[]
}
