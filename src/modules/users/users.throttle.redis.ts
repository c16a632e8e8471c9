import type { Clock } from '../../lib/clock'
import { type LoginThrottle, type ThrottlePolicy, waitOf } from './users.throttle'

/**
 * One failure, atomic in Redis: the same count as users.throttle.ts (forgotten a window after the
 * last failure or at the lockout's end, whichever is later; past the free attempts a lockout that
 * doubles with every failure). The hash expires when it would be forgotten anyway. Times are
 * written as whole numbers so that they read back exactly; the last failure never moves back.
 */
const FAIL_SCRIPT = `
local now = tonumber(ARGV[1])
local free = tonumber(ARGV[2])
local base = tonumber(ARGV[3])
local max = tonumber(ARGV[4])
local window = tonumber(ARGV[5])
local e = redis.call('HMGET', KEYS[1], 'f', 'l', 'u')
local f, last, locked = 0, now, 0
if e[1] then
  f = tonumber(e[1])
  last = tonumber(e[2])
  locked = tonumber(e[3])
  if now - last > math.max(window, locked - last) then
    f, last, locked = 0, now, 0
  end
end
f = f + 1
last = math.max(last, now)
if f >= free then
  locked = now + math.min(max, base * 2 ^ math.min(f - free, 60))
end
redis.call('HSET', KEYS[1], 'f', string.format('%.0f', f), 'l', string.format('%.0f', last), 'u', string.format('%.0f', locked))
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.max(last + window, locked) - now + 1))
return f
`

const KEY_PREFIX = 'vigil:login:'

/** What the throttle sends to Redis: the few commands of Bun's RedisClient it uses. */
export interface ThrottleRedis {
  send(command: string, args: string[]): Promise<unknown>
  hmget(key: string, fields: string[]): Promise<Array<string | null>>
  del(key: string): Promise<number>
}

/**
 * The login throttle in Redis (or Valkey), shared by every hub pointed at it: a failure is one
 * EVAL, a check one HMGET. The client is the caller's (users.throttle.select.ts), which connects
 * it; `scope` keeps the account and the address counts apart.
 */
export function redisThrottle(client: ThrottleRedis, clock: Clock, policy: ThrottlePolicy, scope: string): LoginThrottle {
  const keyOf = (key: string) => `${KEY_PREFIX}${scope}:${key}`
  return {
    async retryAfterMs(key) {
      const [f, l, u] = await client.hmget(keyOf(key), ['f', 'l', 'u'])
      const now = clock.now()
      return waitOf(f == null ? null : { failures: Number(f), lastFailure: Number(l), lockedUntil: Number(u) }, now, policy)
    },
    async fail(key) {
      const args = [String(clock.now()), String(policy.free), String(policy.baseMs), String(policy.maxMs), String(policy.windowMs)]
      await client.send('EVAL', [FAIL_SCRIPT, '1', keyOf(key), ...args])
    },
    async reset(key) {
      await client.del(keyOf(key))
    },
  }
}
