import { RedisClient } from 'bun'
import type { TakeResult } from '../lib/token-bucket'
import { type RateLimiter, takeResult, WINDOW_MS } from './rate-limiter'

/**
 * One take, atomic in Redis: the same token bucket as lib/token-bucket.ts (refill in proportion
 * to the time since the last take, capped at the limit; a plan change caps the tokens kept), in
 * a hash that expires a window after its last take, when it would be full again anyway.
 * Tokens are written with 17 significant digits so that they read back exactly and every take
 * answers as the memory limiter would; the last take's time never moves back, so a hub whose
 * clock is a little behind cannot hand out the tokens another hub's time already counted.
 */
const TAKE_SCRIPT = `
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 't', 'u')
local tokens = limit
local updated = now
if b[1] then
  tokens = math.min(tonumber(b[1]), limit)
  updated = tonumber(b[2])
end
tokens = math.min(limit, tokens + (math.max(0, now - updated) * limit) / window)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
local t = string.format('%.17g', tokens)
redis.call('HSET', KEYS[1], 't', t, 'u', string.format('%.17g', math.max(updated, now)))
redis.call('PEXPIRE', KEYS[1], window)
return {allowed, t}
`

const KEY_PREFIX = 'vigil:rl:'

export interface RedisRateLimiterOptions {
  /** how long one attempt to connect may take */
  connectTimeoutMs?: number
  /**
   * A take still waiting for the connection after this long is dropped instead of sent: its
   * caller has answered it by other means (rate-limiter.fallback.ts), and a take sent once the
   * server is back would count the request a second time.
   */
  sendWithinMs?: number
}

/**
 * The rate limit in Redis (or Valkey), shared by every hub pointed at it: `take` is one EVALSHA
 * round trip. Commands are never queued while the connection is down: a take fails at once, or
 * after waiting `sendWithinMs` at most for a connection under way, and the caller
 * (rate-limiter.fallback.ts) counts locally until Redis answers again.
 */
export function redisRateLimiter(url: string, opts: RedisRateLimiterOptions = {}): RateLimiter {
  const client = new RedisClient(url, {
    connectionTimeout: opts.connectTimeoutMs ?? 2_000,
    enableOfflineQueue: false,
    autoReconnect: true,
    maxRetries: 2 ** 32 - 1, // the most Bun takes: keep reconnecting for as long as the hub runs
  })
  const sha = new Bun.CryptoHasher('sha1').update(TAKE_SCRIPT).digest('hex')
  const sendWithinMs = opts.sendWithinMs ?? 50
  let connecting: Promise<void> | null = null
  let closed = false

  /** Connects on first use, and again after the client gave up on a server that was gone. */
  function connected(): Promise<void> | null {
    if (client.connected) return null
    if (closed) return Promise.reject(new Error('rate limiter closed'))
    connecting ??= client.connect().finally(() => {
      connecting = null
    })
    return connecting
  }

  // at once, so that the first requests do not wait for the handshake (nor fall back for it)
  connected()?.catch(() => {})

  async function run(key: string, limit: number, now: number): Promise<[number, string]> {
    const args = [sha, '1', KEY_PREFIX + key, String(limit), String(now), String(WINDOW_MS)]
    try {
      return (await client.send('EVALSHA', args)) as [number, string]
    } catch (err) {
      // a restarted Redis has forgotten the script: send it whole once, which also caches it again
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
      return (await client.send('EVAL', [TAKE_SCRIPT, ...args.slice(1)])) as [number, string]
    }
  }

  return {
    async take(key, limitPerMinute, now): Promise<TakeResult> {
      const wait = connected()
      if (wait) {
        const started = performance.now()
        await wait
        if (performance.now() - started > sendWithinMs) throw new Error('connected too late for this take')
      }
      const [allowed, tokens] = await run(key, limitPerMinute, now)
      return takeResult(allowed === 1, Number(tokens), limitPerMinute, now)
    },
    async close() {
      closed = true
      client.close()
    },
  }
}
