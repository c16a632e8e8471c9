import { Cron } from 'croner'

/** Who a rule or a silence applies to. */
export type Scope = { type: 'all'; value: null } | { type: 'tag'; value: string } | { type: 'device'; value: string }

/** A silence as the runtime holds it: its window and what it covers. */
export interface SilenceSpec {
  id: string
  scope: Scope
  ruleId: string | null
  startsAt: number | null
  endsAt: number | null
  cron: string | null
  durationMs: number | null
  timezone: string | null
}

/** A device as scopes see it. */
export interface ScopedDevice {
  id: string
  tags: readonly string[]
}

export function inScope(scope: Scope, device: ScopedDevice): boolean {
  switch (scope.type) {
    case 'all':
      return true
    case 'device':
      return scope.value === device.id
    case 'tag':
      return device.tags.includes(scope.value)
  }
}

/** A recurring window's schedule, parsed once per silence. */
const schedules = new WeakMap<SilenceSpec, Cron | null>()

function schedule(s: SilenceSpec): Cron | null {
  let c = schedules.get(s)
  if (c === undefined) {
    try {
      c = s.cron ? new Cron(s.cron, { timezone: s.timezone ?? 'UTC', paused: true }) : null
    } catch {
      c = null
    }
    schedules.set(s, c)
  }
  return c
}

/**
 * Is the window open at `now`? One-off: starts_at ≤ now < ends_at (either end may be open).
 * Recurring: an occurrence of the cron pattern (in its time zone) began less than `duration`
 * ago, i.e. the first occurrence after now − duration is not after now.
 */
export function silenceActive(s: SilenceSpec, now: number): boolean {
  if (s.startsAt !== null && now < s.startsAt) return false
  if (s.endsAt !== null && now >= s.endsAt) return false
  if (!s.cron) return true
  const c = schedule(s)
  if (!c || !s.durationMs) return false
  // nextRun is strictly after its argument: an occurrence at exactly now − duration has ended
  const next = c.nextRun(new Date(now - s.durationMs))
  return next !== null && next.getTime() <= now
}

/** Whether a silence covers an alert of `ruleId` on `device` at `now`. */
export function silenced(silences: readonly SilenceSpec[], ruleId: string, device: ScopedDevice, now: number): SilenceSpec | null {
  for (const s of silences) {
    if (s.ruleId !== null && s.ruleId !== ruleId) continue
    if (!inScope(s.scope, device)) continue
    if (silenceActive(s, now)) return s
  }
  return null
}

/** Throws with a reason when the pattern or the time zone cannot be used. */
export function checkRecurrence(cron: string, timezone: string): void {
  new Cron(cron, { timezone, paused: true }).stop()
}

/** A valid IANA time zone name (or UTC)? */
export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz })
    return true
  } catch {
    return false
  }
}
