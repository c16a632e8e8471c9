import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import type { Timers } from '../../lib/timers'
import { directProbeDeps } from '../../modules/checks/probes/probe.direct'
import type { CheckDefinition, CheckResultIn } from '../../modules/checks/checks.model'
import { runProbe } from '../../modules/checks/probes/probe.run'
import type { ProbeDeps } from '../../modules/checks/probes/probe.types'
import { MAX_CHECK_RESULTS } from '../../modules/checks/checks.wire'
import type { Fetch, HubTarget } from '../agent.sender'

/** how often the list of checks is asked for (the hub answers 304 while it is unchanged) */
export const POLL_MS = 60_000
/** how often the runner looks again while it cannot ask yet (no device id, a list request under way) */
const TICK_MS = 1000

export interface CheckRunnerDeps {
  clock: Clock
  timers: Timers
  fetch: Fetch
  log: Logger
  /** the device this agent reports as; null until it is registered */
  deviceId: () => string | null
  random?: () => number
  /** the probes' network; default: this machine's own (no outbound policy: the agent's network is its own) */
  probes?: ProbeDeps
}

interface Planned {
  def: CheckDefinition
  nextAt: number
  running: boolean
}

/**
 * The agent's check runner: polls the hub for the checks assigned to this device, runs each on
 * its own interval (its first run spread over the interval; attempts of a check never overlap),
 * and keeps the results until the next sample takes them (`drain`), so they travel in the same
 * batch, through the same store-and-forward queue, each with the time it was taken. It sleeps
 * until the next check is due or the list is to be asked for again, so an agent without checks
 * wakes once a minute rather than every second.
 */
export function startCheckRunner(target: HubTarget, deps: CheckRunnerDeps) {
  const random = deps.random ?? Math.random
  const probes = deps.probes ?? directProbeDeps(() => deps.clock.now())
  const planned = new Map<string, Planned>()
  let results: CheckResultIn[] = []
  let etag: string | null = null
  let lastPoll = -Infinity
  let polling = false
  let stopped = false
  let cancel: (() => void) | null = null
  let wakeAt = Infinity
  let dropped = 0

  async function poll(now: number) {
    const deviceId = deps.deviceId()
    if (polling || !deviceId || now - lastPoll < POLL_MS) return
    polling = true
    lastPoll = now
    try {
      const headers: Record<string, string> = { 'x-api-key': target.key }
      if (etag) headers['if-none-match'] = etag
      const res = await deps.fetch(`${target.hub.replace(/\/$/, '')}/v1/agent/checks?device_id=${encodeURIComponent(deviceId)}`, { headers })
      if (res.status === 304) return
      if (!res.ok) {
        deps.log.warn('agent: the check list was not available', { status: res.status })
        await res.body?.cancel()
        return
      }
      const body = (await res.json()) as { checks: CheckDefinition[]; etag: string }
      etag = body.etag
      apply(body.checks, deps.clock.now())
    } catch (err) {
      deps.log.warn('agent: could not ask the hub for checks', { error: (err as Error).message })
    } finally {
      polling = false
      if (!stopped) schedule(deps.clock.now(), true)
    }
  }

  function apply(defs: CheckDefinition[], now: number) {
    const ids = new Set(defs.map((d) => d.id))
    for (const id of planned.keys()) if (!ids.has(id)) planned.delete(id)
    for (const def of defs) {
      const old = planned.get(def.id)
      if (old && old.def.interval_s === def.interval_s) old.def = def
      else planned.set(def.id, { def, nextAt: now + Math.floor(random() * def.interval_s * 1000), running: old?.running ?? false })
    }
    deps.log.info('agent: checks to run', { count: defs.length })
  }

  function run(p: Planned, now: number) {
    p.running = true
    p.nextAt = Math.max(p.nextAt + p.def.interval_s * 1000, now + 1)
    const def = p.def
    runProbe({ kind: def.kind, settings: def.settings, timeout_ms: def.timeout_ms }, probes).then((r) => {
      p.running = false
      if (stopped) return
      schedule(deps.clock.now())
      if (results.length >= MAX_CHECK_RESULTS) {
        results.shift()
        dropped++
      }
      results.push({
        check_id: def.id,
        ts: new Date(now).toISOString(),
        ok: r.ok,
        response_ms: r.response_ms,
        status_code: r.status_code,
        error: r.error,
        cert_expires_at: r.cert_expires_at,
      })
    })
  }

  /**
   * The next wake-up: the earliest check due (one running is looked at when it ends) or the next
   * poll, at least a second on, so checks due within a second run in one wake-up. A wake-up set
   * for then or earlier is kept (`force`: not the one set while the list was being asked for).
   */
  function schedule(now: number, force = false) {
    let at = polling || !deps.deviceId() ? now + TICK_MS : lastPoll + POLL_MS
    for (const p of planned.values()) if (!p.running && p.nextAt < at) at = p.nextAt
    at = Math.max(at, now + TICK_MS)
    if (cancel && at >= wakeAt && !force) return
    cancel?.()
    wakeAt = at
    cancel = deps.timers.after(at - now, tick)
  }

  function tick() {
    cancel = null
    wakeAt = Infinity
    if (stopped) return
    const now = deps.clock.now()
    void poll(now)
    for (const p of planned.values()) if (!p.running && p.nextAt <= now) run(p, now)
    schedule(now)
  }

  cancel = deps.timers.after(0, tick)

  return {
    /** the results since the last call, oldest first (null when there are none), for the next batch */
    drain(): CheckResultIn[] | null {
      if (dropped) {
        deps.log.warn('agent: check results were dropped: more than one batch can carry came in between', { dropped })
        dropped = 0
      }
      if (!results.length) return null
      const out = results
      results = []
      return out
    },
    stop() {
      stopped = true
      cancel?.()
    },
    /** for tests: the checks planned now */
    planned: () => [...planned.values()].map((p) => ({ id: p.def.id, nextAt: p.nextAt, running: p.running })),
  }
}

export type CheckRunner = ReturnType<typeof startCheckRunner>

/** The sample with the check results beside its hardware and network (unchanged when there are none). */
export function withCheckResults<S extends object>(sample: S, results: CheckResultIn[] | null): S | (S & { check_results: CheckResultIn[] }) {
  return results ? { ...sample, check_results: results } : sample
}
