import { RedisClient, type SQL } from 'bun'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import type { Timers } from '../../lib/timers'
import { redactUrl, urlPassword } from '../../lib/url-secrets'
import { ACCOUNT_POLICY, ADDRESS_POLICY, type LoginThrottle, loginThrottle, memoryThrottle, type ThrottlePolicy } from './users.throttle'
import { postgresThrottle } from './users.throttle.pg'
import { redisThrottle } from './users.throttle.redis'

/** A shared store slower than this for one call is treated as down: the sign-in is not held longer. */
export const THROTTLE_BOUND_MS = 250

export interface ThrottleChoice {
  /** the hub's PostgreSQL; null on SQLite, where the throttle stays in memory */
  pg: SQL | null
  /** VIGIL_DATABASE_URL, only to name the store in the log (its password hidden) */
  databaseUrl: string | null
  /** VIGIL_REDIS_URL: on PostgreSQL, the throttle counts there instead */
  redisUrl: string | null
  clock: Clock
  timers: Timers
  logger: Logger
  boundMs?: number
}

export interface LoginThrottles {
  account: LoginThrottle
  address: LoginThrottle
  /** closes the Redis connection the throttle made, if any */
  close(): Promise<void>
}

/**
 * Where failed sign-ins are counted: on a SQLite hub in its memory, as always; on PostgreSQL in
 * Redis when VIGIL_REDIS_URL is set, else in the database, so that N hubs behind a proxy allow
 * what one hub allows. While the shared store is down or slow each hub counts in its own memory
 * (said once in the log when it happens, once when the store answers again).
 */
export function selectLoginThrottles(c: ThrottleChoice): LoginThrottles {
  const memory = (policy: ThrottlePolicy) => loginThrottle(c.clock, policy)
  if (!c.pg) return { account: memory(ACCOUNT_POLICY), address: memory(ADDRESS_POLICY), close: async () => {} }
  const redis = c.redisUrl ? lazyRedis(c.redisUrl) : null
  const url = c.redisUrl ?? c.databaseUrl
  const state: StoreState = {
    down: false,
    store: url ? redactUrl(url) : 'postgresql',
    secret: url ? urlPassword(url) : undefined,
    logger: c.logger,
    timers: c.timers,
    boundMs: c.boundMs ?? THROTTLE_BOUND_MS,
  }
  const pg = c.pg
  const shared = (policy: ThrottlePolicy, scope: string) =>
    withLocalThrottle(
      redis ? redisThrottle(redis.client, c.clock, policy, scope) : postgresThrottle(pg, c.clock, policy, scope),
      memoryThrottle(c.clock, policy),
      state,
    )
  c.logger.info('login throttle shared across hubs', { engine: redis ? 'redis' : 'postgresql', store: state.store })
  return { account: shared(ACCOUNT_POLICY, 'account'), address: shared(ADDRESS_POLICY, 'address'), close: async () => redis?.close() }
}

/** What the account and address throttles share of their store: whether it is down, and how to say so. */
interface StoreState {
  down: boolean
  store: string
  secret: string | undefined
  logger: Logger
  timers: Timers
  boundMs: number
}

/** Each call to the shared store, or to the hub's memory when the store fails or does not answer within the bound. */
export function withLocalThrottle(shared: LoginThrottle, local: ReturnType<typeof memoryThrottle>, s: StoreState): LoginThrottle {
  async function either<T>(call: () => Promise<T>, fallback: () => T): Promise<T> {
    try {
      const result = await within(call(), s.boundMs, s.timers)
      if (s.down) {
        s.down = false
        s.logger.info('login throttle store answers again: failed sign-ins are counted across hubs again', { store: s.store })
      }
      return result
    } catch (err) {
      if (!s.down) {
        s.down = true
        const reason = (err as Error).message
        s.logger.warn('login throttle store unreachable: each hub counts failed sign-ins by itself until it answers', {
          store: s.store,
          reason: s.secret ? reason.split(s.secret).join('***') : reason,
        })
      }
      return fallback()
    }
  }
  return {
    retryAfterMs: (key) =>
      either(
        () => shared.retryAfterMs(key),
        () => local.retryAfterMs(key),
      ),
    fail: (key) =>
      either(
        () => shared.fail(key),
        () => local.fail(key),
      ),
    reset: (key) =>
      either(
        () => shared.reset(key),
        () => local.reset(key),
      ),
  }
}

function within<T>(answer: Promise<T>, ms: number, timers: Timers): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = timers.after(ms, () => reject(new Error(`no answer within ${ms} ms`)))
    answer.then(
      (v) => {
        cancel()
        resolve(v)
      },
      (err) => {
        cancel()
        reject(err instanceof Error ? err : new Error(String(err)))
      },
    )
  })
}

/** A Redis client that connects on first use and again after losing the server; commands are never queued while it is down. */
export function lazyRedis(url: string) {
  const raw = new RedisClient(url, { connectionTimeout: 2_000, enableOfflineQueue: false, autoReconnect: true, maxRetries: 2 ** 32 - 1 })
  let connecting: Promise<void> | null = null
  let closed = false
  const ready = async () => {
    if (raw.connected) return
    if (closed) throw new Error('login throttle closed')
    connecting ??= raw.connect().finally(() => {
      connecting = null
    })
    await connecting
  }
  return {
    client: {
      async send(command: string, args: string[]) {
        await ready()
        return raw.send(command, args)
      },
      async hmget(key: string, fields: string[]) {
        await ready()
        return raw.hmget(key, fields)
      },
      async del(key: string) {
        await ready()
        return raw.del(key)
      },
    },
    close() {
      closed = true
      raw.close()
    },
  }
}
