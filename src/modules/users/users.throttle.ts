import type { Clock } from '../../lib/clock'

/** One key's count: failures in a row, the last one, and the time before which no attempt is allowed. */
export interface ThrottleEntry {
  failures: number
  lastFailure: number
  lockedUntil: number
}

export interface ThrottlePolicy {
  /** failures allowed before backing off */
  free: number
  /** first lockout; doubles with every further failure */
  baseMs: number
  maxMs: number
  /** failures older than this are forgotten */
  windowMs: number
}

/** Per account: 5 tries, then 30 s, 1 min, 2 min… up to 15 min. Per address: the same from 20 tries. */
export const ACCOUNT_POLICY: ThrottlePolicy = { free: 5, baseMs: 30_000, maxMs: 15 * 60_000, windowMs: 15 * 60_000 }
export const ADDRESS_POLICY: ThrottlePolicy = { free: 20, baseMs: 30_000, maxMs: 15 * 60_000, windowMs: 15 * 60_000 }

/**
 * Failed-login counting with exponential backoff, under one policy. Keys are strings like
 * "email:x" / "ip:y". Unknown and known emails are counted alike, so the 429 reveals nothing
 * about which accounts exist. In one hub's memory (`loginThrottle`), or shared by the hubs of
 * one PostgreSQL (users.throttle.pg.ts, users.throttle.redis.ts, chosen in users.throttle.select.ts).
 */
export interface LoginThrottle {
  /** milliseconds until the next attempt is allowed; 0 when allowed now */
  retryAfterMs(key: string): Promise<number>
  /** counts one failure: past the free ones, the key is locked out for longer each time */
  fail(key: string): Promise<void>
  /** forgets the key's failures (a successful sign-in) */
  reset(key: string): Promise<void>
}

/**
 * Whether an entry still counts at `now`: failures are forgotten a window after the last one,
 * or when the lockout is over if that is later. The shared stores apply the same rule.
 */
export const entryLive = (e: ThrottleEntry, now: number, policy: ThrottlePolicy) =>
  now - e.lastFailure <= Math.max(policy.windowMs, e.lockedUntil - e.lastFailure)

/** The lockout after the `failures`th failure in a row at `now`, or 0 while the free attempts last. */
export const lockoutAfter = (failures: number, now: number, policy: ThrottlePolicy) =>
  failures >= policy.free ? now + Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(failures - policy.free, 60)) : 0

/** What to wait, given the entry a store holds (none: nothing to wait). */
export const waitOf = (e: ThrottleEntry | null, now: number, policy: ThrottlePolicy) => (e && entryLive(e, now, policy) ? Math.max(0, e.lockedUntil - now) : 0)

const MAX_ENTRIES = 100_000

/** The throttle in this hub's memory: what a SQLite hub uses, and what a shared one falls back to while its store is down. */
export function memoryThrottle(clock: Clock, policy: ThrottlePolicy) {
  const entries = new Map<string, ThrottleEntry>()
  const live = (key: string) => {
    const e = entries.get(key)
    if (e && !entryLive(e, clock.now(), policy)) {
      entries.delete(key)
      return undefined
    }
    return e
  }
  return {
    retryAfterMs: (key: string): number => waitOf(live(key) ?? null, clock.now(), policy),
    fail(key: string) {
      const now = clock.now()
      const e = live(key) ?? { failures: 0, lastFailure: now, lockedUntil: 0 }
      e.failures += 1
      e.lastFailure = now
      if (e.failures >= policy.free) e.lockedUntil = lockoutAfter(e.failures, now, policy)
      entries.delete(key)
      entries.set(key, e)
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
    },
    reset: (key: string) => void entries.delete(key),
  }
}

export type MemoryThrottle = ReturnType<typeof memoryThrottle>

/** The memory throttle behind the asynchronous interface. */
export function loginThrottle(clock: Clock, policy: ThrottlePolicy): LoginThrottle {
  const m = memoryThrottle(clock, policy)
  return {
    retryAfterMs: async (key) => m.retryAfterMs(key),
    fail: async (key) => m.fail(key),
    reset: async (key) => m.reset(key),
  }
}
