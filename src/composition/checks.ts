import type { AppContext } from '../context'
import type { Job } from '../jobs/scheduler'
import { AppError } from '../http/errors'
import { memoryRateLimiter } from '../http/rate-limiter'
import type { OutboundPolicy } from '../lib/outbound/outbound.policy'
import { refusedHostText } from '../lib/outbound/outbound.words'
import { systemTimers, type Timers } from '../lib/timers'
import { findDevice } from '../modules/devices/devices.service'
import { sweepHeartbeats } from '../modules/checks/checks.heartbeat'
import { packRawHours } from '../modules/checks/checks.jobs'
import { createIncidentsStore } from '../modules/checks/checks.incidents'
import { createStatusReads } from '../modules/checks/checks.status-reads'
import type { CheckKind } from '../modules/checks/checks.model'
import { hubProbeDeps } from '../modules/checks/checks.outbound'
import { HUB_PLACE, recordAttempt, type CheckChange, type RecordDeps } from '../modules/checks/checks.record'
import { createCheckScheduler, type Scheduled } from '../modules/checks/checks.scheduler'
import { placesOf, statusChecksPort, type ChecksDeps } from '../modules/checks/checks.service'
import { createChecksStore, type CheckRow } from '../modules/checks/checks.store'
import { openSettings, sealPlainSecrets } from '../modules/checks/checks.secrets'
import { createResultsStore, DAY_MS } from '../modules/checks/checks.summaries'
import { TEST_NOW_PER_MINUTE } from '../modules/checks/checks.routes'
import { runProbe } from '../modules/checks/probes/probe.run'
import type { FleetModules } from './fleet'
import type { Hooks } from './hooks'
import { ingestCheckResults } from '../modules/checks/checks.agent'
import type { AlertingModules, AlertSubjects } from './alerting'
import type { LiveModules } from './live'
import { forgetSubject } from '../modules/alerts/alerts.instances.service'
import { checkObservation, checkSelectors } from '../modules/checks/checks.alerts'
import { createUplinkWatch, targetHost } from '../modules/checks/checks.uplink'
import type { IdentityModules } from './identity'

/** What a test or the bench may set for the check scheduler. */
export interface CheckOverrides {
  timers?: Timers
  random?: () => number
  /** hears every state-moving attempt after its commit (the alert source is wired on it) */
  onChange?: (change: CheckChange) => void
}

/** checks one account may have */
const MAX_CHECKS = 1000
/**
 * Attempts in flight: 256 in all, 32 per account. An account whose targets all hang holds its
 * 32 slots for their timeouts; every other account's checks start beside it.
 */
const CHECK_CAPS = { total: 256, perAccount: 32 }

const scheduledOf = (row: CheckRow): Scheduled | null =>
  row.paused || !row.run_on_hub || row.kind === 'heartbeat'
    ? null
    : { id: row.id, clientId: row.client_id, intervalMs: row.interval_s * 1000, timeoutMs: row.timeout_ms }

/**
 * Service checks: the stores, the hub's scheduler (started by `serve`, not here: tests and
 * tools build the app without probing anything) and the status pages' port.
 */
export function wireChecks(ctx: AppContext, identity: IdentityModules, fleet: FleetModules, hooks: Hooks, overrides: CheckOverrides = {}) {
  const sqlite = ctx.db.sqlite
  const checks = createChecksStore(sqlite)
  const results = createResultsStore(sqlite)
  const incidents = createIncidentsStore(sqlite)
  // checks saved before their credentials were encrypted at rest are sealed now
  const sealed = sealPlainSecrets(checks, ctx.secretKey)
  if (sealed) ctx.logger.info('check secrets encrypted at rest', { checks: sealed })
  const inTransaction = sqlite.transaction((fn: () => unknown) => fn())
  const transaction = <T>(fn: () => T) => inTransaction(fn) as T
  const { allowPrivate, allowLocal = false } = ctx.config.outbound
  // asked on every attempt: whether a client is the operator's changes rarely, so it is read once a minute
  const operatorClient = new Map<string, { value: boolean; at: number }>()
  const isOperator = (clientId: string) => {
    const now = ctx.clock.now()
    let hit = operatorClient.get(clientId)
    if (!hit || now - hit.at > 60_000) operatorClient.set(clientId, (hit = { value: identity.directory.isOperatorClient(clientId), at: now }))
    return hit.value
  }
  const policyFor = (clientId: string): OutboundPolicy => ({ allowPrivate: allowPrivate || isOperator(clientId), allowLocal })
  const refusalWords = (clientId: string) => {
    const audience = isOperator(clientId) ? 'operator' : 'tenant'
    return (r: Parameters<typeof refusedHostText>[0]) => refusedHostText(r, audience)
  }
  const deviceSeq = (clientId: string, deviceId: string) => findDevice(fleet.devices, clientId, deviceId)?.seq ?? null
  const probeDeps = (clientId: string) => hubProbeDeps(ctx.outbound, policyFor(clientId), refusalWords(clientId), () => ctx.clock.now())
  const testLimit = memoryRateLimiter({ maxEntries: 100_000 })
  const listeners: ((change: CheckChange) => void)[] = overrides.onChange ? [overrides.onChange] : []
  const removedListeners: ((clientId: string, checkId: string) => void)[] = []

  const record: RecordDeps = { checks, results, incidents, transaction, placesOf: (row) => placesOf({ deviceSeq }, row) }
  const deps: ChecksDeps & RecordDeps = {
    ...record,
    clock: ctx.clock,
    logger: ctx.logger,
    deviceSeq,
    policyFor,
    selfAddresses: ctx.outbound.selfAddresses,
    refusalWords,
    probeDeps,
    testNow: (clientId) => {
      const r = testLimit.take(`checks:${clientId}`, TEST_NOW_PER_MINUTE, ctx.clock.now())
      if (r.allowed) return
      const retry = String(Math.max(1, Math.ceil(r.retryAfterMs / 1000)))
      throw new AppError('rate_limited', `At most ${TEST_NOW_PER_MINUTE} check tests per minute per account; retry in ${retry} s`, undefined, {
        'retry-after': retry,
      })
    },
    siteUrl: ctx.config.siteUrl,
    maxChecks: MAX_CHECKS,
    secretKey: ctx.secretKey,
    scheduleChanged: (id, row) => scheduler.changed(id, row ? scheduledOf(row) : null),
    stateChanged: (change) => {
      for (const fn of listeners) fn(change)
    },
    removed: (clientId, checkId) => {
      for (const fn of removedListeners) fn(clientId, checkId)
    },
  }
  const scheduler = createCheckScheduler({
    clock: ctx.clock,
    timers: overrides.timers ?? systemTimers,
    logger: ctx.logger,
    caps: CHECK_CAPS,
    random: overrides.random ?? Math.random,
    initial: () => checks.all().flatMap((r) => scheduledOf(r) ?? []),
    run: async (checkId) => {
      const row = checks.anyById(checkId)
      if (!row) return { ts: 0, ok: false, response_ms: null, status_code: null, error: 'check removed', cert_expires_at: null }
      const r = await runProbe(
        { kind: row.kind as CheckKind, settings: openSettings(ctx.secretKey, row.client_id, row.id, row.settings), timeout_ms: row.timeout_ms },
        probeDeps(row.client_id),
      )
      return { ...r, ts: 0, cert_expires_at: r.cert_expires_at === null ? null : Date.parse(r.cert_expires_at) }
    },
    record: (checkId, attempt) => {
      const change = recordAttempt(record, checkId, HUB_PLACE, attempt)
      if (change) deps.stateChanged(change)
    },
  })

  // results of agent-run checks arrive in the agents' batches; the write is synchronous and a
  // failure is thrown to the batch, which then answers its error: the agent keeps the batch
  // queued and replays it, so a result the hub acknowledged is one it stored
  hooks.checkResults.listen((clientId, deviceId, results) => void ingestCheckResults(deps, clientId, deviceId, results))

  // every stored attempt reaches the status pages' reads: a late one drops the past days they keep
  const statusChecks = statusChecksPort(deps, createStatusReads(sqlite))
  listeners.push((change) => statusChecks.stored(change.check.id, change.attempt.ts))

  return {
    checks: deps,
    checkScheduler: scheduler,
    /** the public status pages read checks through this (their module declares it) */
    statusChecks,
    /** more listeners of recorded attempts (the alert source) and of deleted checks */
    onCheckChange: (fn: (change: CheckChange) => void) => void listeners.push(fn),
    onCheckRemoved: (fn: (clientId: string, checkId: string) => void) => void removedListeners.push(fn),
    /** checks as alert subjects: rules on check:<field>, named and tagged for scopes and notices */
    alertSubjects: {
      selectors: checkSelectors,
      find(clientId: string, id: string) {
        const row = id.startsWith('chk_') ? checks.byId(clientId, id) : null
        return row ? { id: row.id, name: row.name, tags: ['check', `check:${row.kind}`], lastSeenAt: null, subject: 'check' as const } : null
      },
    } satisfies AlertSubjects,
  }
}

/**
 * Checks raise alerts through the alert runtime: each recorded attempt is an observation of the
 * check (source `check`), unless the device it depends on is late or offline, whose own offline
 * alert is then the one notice. A deleted check's alerts go with it.
 */
export function alertOnChecks(checks: CheckModules, alerting: AlertingModules, live: LiveModules) {
  const unreachable = (_clientId: string, deviceId: string) => {
    const status = live.presence.status(deviceId)
    return status === 'stale' || status === 'offline'
  }
  const uplink = createUplinkWatch()
  let blind = false
  checks.onCheckChange((change) => {
    const now = checks.checks.clock.now()
    if (change.place === HUB_PLACE && change.check.kind !== 'heartbeat') {
      const host = targetHost(change.check)
      if (host) uplink.attempt(host, change.attempt)
      const was = blind
      blind = uplink.blind(now)
      if (blind !== was)
        checks.checks.logger.warn(
          blind ? "the hub's checks cannot reach their hosts: its own uplink looks down; their notices are held" : "the hub's checks reach their hosts again",
        )
      // the hub's own network is down: its checks' notices are held (agents' results still count)
      if (blind) return
    }
    const o = checkObservation(change, now, unreachable, checks.checks.results.lastOk)
    if (!o) return
    alerting.alerts.runtime.observe(o)?.catch((err) => {
      checks.checks.logger.error('alert evaluation of a check failed', { check_id: change.check.id, error: (err as Error).message })
    })
  })
  checks.onCheckRemoved((clientId, checkId) => void forgetSubject(alerting.alerts, clientId, checkId))
}

export type CheckModules = ReturnType<typeof wireChecks>

/**
 * Late heartbeats every 15 s; finished hours of raw attempts packed every 10 min (the first run
 * also converts a database from before packing); summaries and incidents past their keep once a day.
 */
export const checkJobs = (modules: CheckModules): Job[] => [
  { name: 'checks.heartbeats', cron: '*/15 * * * * *', run: () => void sweepHeartbeats(modules.checks) },
  {
    name: 'checks.pack',
    cron: '7 */10 * * * *',
    run: () => packRawHours({ ...modules.checks, pause: () => new Promise((resolve) => setTimeout(resolve, 0)) }).then(() => undefined),
  },
  {
    name: 'checks.prune',
    cron: '0 27 3 * * *',
    run: () => {
      const now = modules.checks.clock.now()
      modules.checks.results.prune(now)
      modules.checks.incidents.prune(now - 400 * DAY_MS)
    },
  },
]
