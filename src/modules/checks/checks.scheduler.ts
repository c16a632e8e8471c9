import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import type { Timers } from '../../lib/timers'
import { rotate } from '../deliveries/deliveries.slots'
import type { Attempt } from './checks.attempt'

/** What the scheduler needs of a check: who owns it, how often, how long an attempt may take. */
export interface Scheduled {
  id: string
  clientId: string
  intervalMs: number
  timeoutMs: number
}

export interface SchedulerCaps {
  /** attempts in flight at once, all accounts together */
  total: number
  /** in flight for one account: its slow endpoints hold at most these, never the others' */
  perAccount: number
}

export interface SchedulerDeps {
  clock: Clock
  timers: Timers
  logger: Logger
  caps: SchedulerCaps
  /** [0, 1): where in its first interval a check first runs (the spread) */
  random: () => number
  /** one attempt; resolves with its result (probes never throw) */
  run: (checkId: string) => Promise<Attempt>
  /** stores an attempt (the hub's place) */
  record: (checkId: string, attempt: Attempt) => void | Promise<void>
  /** the hub-run checks at start */
  initial: () => Scheduled[] | Promise<Scheduled[]>
  /**
   * With several hubs: takes the check's run due at `now` for this hub, moving its next run
   * across hubs to `nextAt` (checks.claims.pg.ts). `won` false: another hub has it, due next at
   * `nextAt`. Without it (one hub) every due check runs here.
   */
  claim?: (checkId: string, now: number, nextAt: number) => Promise<{ won: boolean; nextAt: number | null }>
  /** how far apart ticks are while checks are waiting (ms) */
  tickMs?: number
  /** each attempt's lateness, planned time to start (for /metrics and the bench) */
  onLateness?: (ms: number) => void
}

/** an attempt that has not settled this long after its timeout is recorded as a timeout, its slot freed */
const GUARD_MS = 1000
/** how soon the checks are read again when they could not be read at start */
const RETRY_MS = 5000
/** a hub that lost a claim tries again at most this long after the winner's next run was due */
const TAKEOVER_MS = 5000

interface Entry {
  check: Scheduled
  nextAt: number
  running: boolean
  /** bumped on every change, so an attempt of an older definition is not recorded */
  version: number
}

/**
 * Runs each hub check on its interval. A check's first run falls at a random point of its first
 * interval, so a thousand checks created together do not all fire in the same second; after
 * that it keeps its phase. Attempts of one check never overlap: a check still running when it
 * is due again waits for the next tick after it ends. Slots are capped in total and per account,
 * and accounts are served in turn, so one account's slow targets never delay another's checks.
 * With several hubs each plans every check and `claim`s a run before it starts: one hub runs it.
 */
export function createCheckScheduler(deps: SchedulerDeps) {
  const entries = new Map<string, Entry>()
  const byAccount = new Map<string, number>()
  let inFlight = 0
  let lastAccount: string | null = null
  let cancel: (() => void) | null = null
  let stopped = true
  const tickMs = deps.tickMs ?? 200

  const plan = (check: Scheduled, now: number): Entry => ({
    check,
    nextAt: now + Math.floor(deps.random() * check.intervalMs),
    running: false,
    version: 0,
  })

  function arm() {
    cancel?.()
    cancel = stopped ? null : deps.timers.after(tickMs, tick)
  }

  const release = (check: Scheduled) => {
    inFlight--
    const n = (byAccount.get(check.clientId) ?? 1) - 1
    if (n > 0) byAccount.set(check.clientId, n)
    else byAccount.delete(check.clientId)
    const current = entries.get(check.id)
    if (current) current.running = false
    return current
  }

  function start(entry: Entry, now: number) {
    const { check } = entry
    const planned = entry.nextAt
    entry.running = true
    // keep the phase; a check that fell more than an interval behind starts a new one from now
    entry.nextAt = Math.max(planned + check.intervalMs, now + 1)
    // the slot is held from here, through the claim, to the attempt's end
    inFlight++
    byAccount.set(check.clientId, (byAccount.get(check.clientId) ?? 0) + 1)
    if (!deps.claim) return attempt(entry, check, planned, now)
    const lost = (nextAt: number | null) => {
      const current = release(check)
      // another hub runs it: try again just after that hub's next run is due, so a hub that dies hands it over within seconds
      if (current && nextAt !== null && nextAt > now) current.nextAt = nextAt + Math.min(check.intervalMs / 4, TAKEOVER_MS)
    }
    deps.claim(check.id, now, now + check.intervalMs).then(
      (c) => (c.won && !stopped ? attempt(entry, check, planned, now) : lost(c.nextAt)),
      (err) => {
        deps.logger.error('check run not claimed', { check_id: check.id, error: String(err) })
        lost(null)
      },
    )
  }

  function attempt(entry: Entry, check: Scheduled, planned: number, now: number) {
    deps.onLateness?.(now - planned)
    const version = entry.version
    let settled = false
    const failed = (err: unknown) => deps.logger.error('check result not stored', { check_id: check.id, error: String(err) })
    const finish = (attempt: Attempt) => {
      if (settled) return
      settled = true
      cancelGuard()
      const current = release(check)
      if (!stopped && current && current.version === version) {
        try {
          const stored = deps.record(check.id, attempt)
          if (stored) stored.catch(failed)
        } catch (err) {
          failed(err)
        }
      }
    }
    const cancelGuard = deps.timers.after(check.timeoutMs + GUARD_MS, () =>
      finish({ ts: now, ok: false, response_ms: null, status_code: null, error: `timeout after ${check.timeoutMs} ms`, cert_expires_at: null }),
    )
    deps.run(check.id).then(
      (a) => finish({ ...a, ts: now }),
      (err) => finish({ ts: now, ok: false, response_ms: null, status_code: null, error: String(err).slice(0, 200), cert_expires_at: null }),
    )
  }

  function tick() {
    const now = deps.clock.now()
    const due = new Map<string, Entry[]>()
    for (const e of entries.values()) {
      if (e.running || e.nextAt > now) continue
      const list = due.get(e.check.clientId)
      if (list) list.push(e)
      else due.set(e.check.clientId, [e])
    }
    // one attempt per account per round, accounts in turn, until the slots or the due run out
    const accounts = rotate([...due.keys()], lastAccount)
    for (const list of due.values()) list.sort((a, b) => a.nextAt - b.nextAt)
    let progress = true
    while (progress && inFlight < deps.caps.total) {
      progress = false
      for (const account of accounts) {
        if (inFlight >= deps.caps.total) break
        const list = due.get(account)!
        if (!list.length || (byAccount.get(account) ?? 0) >= deps.caps.perAccount) continue
        start(list.shift()!, now)
        lastAccount = account
        progress = true
      }
    }
    arm()
  }

  return {
    /** plans the checks `initial` answers and starts ticking; resolves once they are planned */
    async start() {
      if (!stopped) return
      stopped = false
      const planAll = (list: Scheduled[]) => {
        if (stopped) return
        const now = deps.clock.now()
        // a check changed while the list was read is planned as it was changed
        for (const c of list) if (!entries.has(c.id)) entries.set(c.id, plan(c, now))
        arm()
      }
      const load = async (): Promise<void> => {
        const list = deps.initial()
        if (Array.isArray(list)) return planAll(list)
        try {
          planAll(await list)
        } catch (err) {
          // the checks could not be read (the database is away): read again shortly
          deps.logger.error('hub checks not planned; reading them again in 5 s', { error: String(err) })
          if (!stopped) cancel = deps.timers.after(RETRY_MS, () => void load())
        }
      }
      await load()
    },
    stop() {
      stopped = true
      cancel?.()
      cancel = null
    },
    /** a check was created or changed (null: removed, paused, or no longer run by the hub) */
    changed(id: string, check: Scheduled | null) {
      const old = entries.get(id)
      if (!check) {
        entries.delete(id)
        return
      }
      if (old && old.check.intervalMs === check.intervalMs) {
        old.check = check
        old.version++
        return
      }
      const next = plan(check, deps.clock.now())
      if (old) Object.assign(next, { running: old.running, version: old.version + 1 })
      entries.set(id, next)
    },
    /** the checks as the database holds them now (another hub's changes may have been missed): planned anew where changed, dropped where gone */
    sync(list: Scheduled[]) {
      const listed = new Set(list.map((c) => c.id))
      for (const id of [...entries.keys()]) if (!listed.has(id)) entries.delete(id)
      for (const c of list) {
        const old = entries.get(c.id)
        if (!old || old.check.intervalMs !== c.intervalMs || old.check.timeoutMs !== c.timeoutMs || old.check.clientId !== c.clientId) this.changed(c.id, c)
      }
    },
    /** runs what is due now (tests drive time through the clock and call this) */
    tick,
    inFlight: () => inFlight,
    size: () => entries.size,
    nextAt: (id: string) => entries.get(id)?.nextAt ?? null,
  }
}

export type CheckScheduler = ReturnType<typeof createCheckScheduler>
