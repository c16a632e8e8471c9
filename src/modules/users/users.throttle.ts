import type { Clock } from '../../lib/clock'

interface Entry {
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

const MAX_ENTRIES = 100_000

/**
 * Failed-login counting with exponential backoff. In memory (one process serves the instance);
 * keys are hashed-free strings like "email:x" / "ip:y". Unknown and known emails are counted
 * alike, so the 429 reveals nothing about which accounts exist.
 */
export function loginThrottle(clock: Clock, policy: ThrottlePolicy) {
  const entries = new Map<string, Entry>()
  const live = (key: string) => {
    const e = entries.get(key)
    if (e && clock.now() - e.lastFailure > Math.max(policy.windowMs, e.lockedUntil - e.lastFailure)) {
      entries.delete(key)
      return undefined
    }
    return e
  }
  return {
    /** milliseconds until the next attempt is allowed; 0 when allowed now */
    retryAfterMs(key: string): number {
      const e = live(key)
      return e ? Math.max(0, e.lockedUntil - clock.now()) : 0
    },
    fail(key: string) {
      const now = clock.now()
      const e = live(key) ?? { failures: 0, lastFailure: now, lockedUntil: 0 }
      e.failures += 1
      e.lastFailure = now
      if (e.failures >= policy.free) {
        e.lockedUntil = now + Math.min(policy.maxMs, policy.baseMs * 2 ** (e.failures - policy.free))
      }
      entries.delete(key)
      entries.set(key, e)
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
    },
    reset: (key: string) => void entries.delete(key),
  }
}

export type LoginThrottle = ReturnType<typeof loginThrottle>
