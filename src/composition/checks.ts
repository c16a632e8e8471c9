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
import { createIncidentsStorePg } from '../modules/checks/checks.incidents.pg'
import { createStatusReads } from '../modules/checks/checks.status-reads'
import { createStatusReadsPg } from '../modules/checks/checks.status-reads.pg'
import { checkClaimsPg } from '../modules/checks/checks.claims.pg'
import type { CheckRows } from '../modules/checks/checks.metrics'
import { type CheckRowsSource, snapshotRows, sqliteRows } from '../modules/checks/checks.rows'
import { createResultsStorePg } from '../modules/checks/checks.results.pg'
import { createChecksStorePg } from '../modules/checks/checks.store.pg'
import type { PeerLink } from '../lib/peer-link'
import { hostname } from 'node:os'
import { onEngine } from './engine'
import type { CheckKind } from '../modules/checks/checks.model'
import { hubProbeDeps } from '../modules/checks/checks.outbound'
import { recordAttempt, type RecordDeps } from '../modules/checks/checks.record'
import { HUB_PLACE, type CheckChange } from '../modules/checks/checks.attempt'
import { createCheckScheduler, type Scheduled } from '../modules/checks/checks.scheduler'
import { placesOf, type ChecksDeps } from '../modules/checks/checks.service'
import { statusChecksPort } from '../modules/checks/checks.status-port'
import { createChecksStore, sqliteChecks } from '../modules/checks/checks.store'
import type { CheckRow } from '../modules/checks/checks.store.rows'
import { openSettings, sealPlainSecrets } from '../modules/checks/checks.secrets'
import { DAY_MS, HOUR_MS, resultsStoreOf } from '../modules/checks/checks.summaries'
import { TEST_NOW_PER_MINUTE } from '../modules/checks/checks.routes'
import { runProbe } from '../modules/checks/probes/probe.run'
import type { FleetModules } from './fleet'
import type { Hooks } from './hooks'
import { ingestCheckResults } from '../modules/checks/checks.agent'
import type { AlertingModules, AlertSubjects } from './alerting'
import type { LiveModules } from './live'
import { forgetSubject } from '../modules/alerts/alerts.instances.service'
import { checkObservation, checkSelectors, missedHeartbeat } from '../modules/checks/checks.alerts'
import { createUplinkWatch, targetHost } from '../modules/checks/checks.uplink'
import type { IdentityModules } from './identity'

/** What a test or the bench may set for the check scheduler, and the other hubs' link. */
export interface CheckOverrides {
  timers?: Timers
  random?: () => number
  /** hears every state-moving attempt after its commit (the alert source is wired on it) */
  onChange?: (change: CheckChange) => void
  /** the other hubs on the same PostgreSQL: their checks' changes replan this hub's scheduler */
  peers?: PeerLink
}

/** a check was created, changed or removed on a hub: the others replan it */
const CHANGED_TOPIC = 'checks.changed'
/** an attempt was stored in a span status pages keep (a late one): the others read that span again */
const SETTLED_TOPIC = 'checks.settled'
/** how often a hub on PostgreSQL re-reads the checks GET /metrics and the dashboard count show */
export const ROWS_REFRESH_CRON = '*/15 * * * * *'

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
  const checks = onEngine(ctx, createChecksStore, createChecksStorePg)
  const results = onEngine(ctx, (sqlite) => resultsStoreOf(sqliteChecks(sqlite).results), createResultsStorePg)
  const incidents = onEngine(ctx, createIncidentsStore, createIncidentsStorePg)
  const statusReads = onEngine(ctx, createStatusReads, createStatusReadsPg)
  const rows = onEngine(
    ctx,
    (sqlite): CheckRowsSource => sqliteRows(sqliteChecks(sqlite)),
    () => snapshotRows(checks),
  )
  const { peers } = overrides
  // on PostgreSQL the synchronous readers' copy is filled at once, then every 15 s (the checks.rows job)
  const rowsReady = rows.refresh().catch((err) => ctx.logger.error('checks: reading the checks failed', { error: String(err) }))
  const failed = (what: string) => (err: unknown) => ctx.logger.error(`checks: ${what} failed`, { error: String(err) })
  // checks saved before their credentials were encrypted at rest are sealed now
  void sealPlainSecrets(checks, ctx.secretKey).then((sealed) => {
    if (sealed) ctx.logger.info('check secrets encrypted at rest', { checks: sealed })
  }, failed('sealing stored secrets'))
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
  const deviceSeq = async (clientId: string, deviceId: string) => (await findDevice(fleet.devices, clientId, deviceId))?.seq ?? null
  const probeDeps = (clientId: string) => hubProbeDeps(ctx.outbound, policyFor(clientId), refusalWords(clientId), () => ctx.clock.now())
  const testLimit = memoryRateLimiter({ maxEntries: 100_000 })
  const listeners: ((change: CheckChange) => void)[] = overrides.onChange ? [overrides.onChange] : []
  const removedListeners: ((clientId: string, checkId: string) => Promise<void> | void)[] = []
  const claims = ctx.pg ? checkClaimsPg(ctx.pg, peers?.origin ?? `${hostname()}:${process.pid}`) : null
  /** replans under way, per check: one at a time, so an older read never lands after a newer one */
  const replanning = new Map<string, Promise<void>>()
  /** the scheduler replans a check as the database holds it now */
  const replan = (id: string) => {
    const next = (replanning.get(id) ?? Promise.resolve()).then(async () => {
      const row = await checks.anyById(id)
      scheduler.changed(id, row ? scheduledOf(row) : null)
      rows.put(id, row)
    })
    const settled = next.finally(() => {
      if (replanning.get(id) === settled) replanning.delete(id)
    })
    replanning.set(id, settled)
    return next
  }

  const record: RecordDeps = { checks, placesOf: (row) => placesOf({ deviceSeq }, row) }
  const deps: ChecksDeps & RecordDeps = {
    ...record,
    checks,
    results,
    incidents,
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
    scheduleChanged: (id, row) => {
      scheduler.changed(id, row ? scheduledOf(row) : null)
      rows.put(id, row)
      peers?.send(CHANGED_TOPIC, row?.client_id ?? '', JSON.stringify({ id }))
      // a new interval or a resumed check: whichever hub finds it due first runs it
      claims?.reset(id).catch(failed('resetting a check run'))
    },
    stateChanged: (change) => {
      for (const fn of listeners) fn(change)
    },
    removed: async (clientId, checkId) => {
      for (const fn of removedListeners) await fn(clientId, checkId)
    },
  }
  const scheduler = createCheckScheduler({
    clock: ctx.clock,
    timers: overrides.timers ?? systemTimers,
    logger: ctx.logger,
    caps: CHECK_CAPS,
    random: overrides.random ?? Math.random,
    initial: async () => (await checks.all()).flatMap((r) => scheduledOf(r) ?? []),
    claim: claims?.claim,
    run: async (checkId) => {
      const row = await checks.anyById(checkId)
      if (!row) return { ts: 0, ok: false, response_ms: null, status_code: null, error: 'check removed', cert_expires_at: null }
      const r = await runProbe(
        { kind: row.kind as CheckKind, settings: openSettings(ctx.secretKey, row.client_id, row.id, row.settings), timeout_ms: row.timeout_ms },
        probeDeps(row.client_id),
      )
      return { ...r, ts: 0, cert_expires_at: r.cert_expires_at === null ? null : Date.parse(r.cert_expires_at) }
    },
    record: async (checkId, attempt) => {
      const change = await recordAttempt(record, checkId, HUB_PLACE, attempt)
      if (change) deps.stateChanged(change)
    },
  })
  // another hub changed a check: this hub's scheduler follows; a hub that missed messages re-reads them all
  peers?.on(CHANGED_TOPIC, (body) => void replan((body as { id: string }).id).catch(failed('replanning a check')))
  peers?.onMissed(
    () =>
      void checks
        .all()
        .then((all) => {
          scheduler.sync(all.flatMap((r) => scheduledOf(r) ?? []))
          rows.reset(all)
        })
        .catch(failed('re-reading the checks')),
  )

  // results of agent-run checks arrive in the agents' batches; the batch is answered once they
  // are stored, and a failure is thrown to it, which then answers its error: the agent keeps the
  // batch queued and replays it, so a result the hub acknowledged is one it stored
  hooks.checkResults.listen((clientId, deviceId, results) => ingestCheckResults(deps, clientId, deviceId, results))

  // every stored attempt reaches the status pages' reads: a late one drops the past days they
  // keep, on every hub (the current hour's and day's are read on every build anyway)
  const statusChecks = statusChecksPort(deps, statusReads)
  listeners.push((change) => {
    statusChecks.stored(change.check.id, change.attempt.ts)
    rows.put(change.check.id, change.check)
    const now = ctx.clock.now()
    if (change.attempt.ts < now - (now % HOUR_MS))
      peers?.send(SETTLED_TOPIC, change.check.client_id, JSON.stringify({ id: change.check.id, ts: change.attempt.ts }))
  })
  peers?.on(SETTLED_TOPIC, (body) => {
    const { id, ts } = body as { id: string; ts: number }
    statusChecks.stored(id, ts)
  })
  peers?.onMissed(() => statusChecks.forget())

  return {
    checks: deps,
    checkScheduler: scheduler,
    /** the checks as GET /metrics and the dashboard's count read them, synchronously */
    checkRows: rows as CheckRows & { downCount(clientId: string): number },
    /** resolves once the replans of what other hubs changed, heard so far, are done */
    replans: () => Promise.all([...replanning.values()]).then(() => undefined),
    /** resolves once the rows above are first read */
    rowsReady,
    /** re-reads the rows above (on PostgreSQL; a SQLite hub reads them as asked) */
    refreshRows: () => rows.refresh(),
    /** the public status pages read checks through this (their module declares it) */
    statusChecks,
    /** more listeners of recorded attempts (the alert source) and of deleted checks */
    onCheckChange: (fn: (change: CheckChange) => void) => void listeners.push(fn),
    onCheckRemoved: (fn: (clientId: string, checkId: string) => Promise<void> | void) => void removedListeners.push(fn),
    /** checks as alert subjects: rules on check:<field>, named and tagged for scopes and notices */
    alertSubjects: {
      selectors: checkSelectors,
      find(clientId: string, id: string) {
        const row = id.startsWith('chk_') ? rows.list(clientId).find((r) => r.id === id) : null
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
  const observe = (change: CheckChange, lastCall: number | null) => {
    const o = checkObservation(change, checks.checks.clock.now(), unreachable, lastCall)
    if (!o) return
    alerting.alerts.runtime.observe(o)?.catch((err) => {
      checks.checks.logger.error('alert evaluation of a check failed', { check_id: change.check.id, error: (err as Error).message })
    })
  }
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
    if (!missedHeartbeat(change)) return observe(change, null)
    // a missed heartbeat's notice says when the last call came: read from its results first
    checks.checks.results.lastOk(change.check.seq).then(
      (last) => observe(change, last),
      () => observe(change, null),
    )
  })
  checks.onCheckRemoved((clientId, checkId) => void forgetSubject(alerting.alerts, clientId, checkId))
}

export type CheckModules = ReturnType<typeof wireChecks>

/**
 * Late heartbeats every 15 s; finished hours of raw attempts packed every 10 min (the first run
 * also converts a database from before packing); summaries and incidents past their keep once a day.
 */
export const checkJobs = (modules: CheckModules): Job[] => [
  { name: 'checks.heartbeats', cron: '*/15 * * * * *', run: () => sweepHeartbeats(modules.checks).then(() => undefined) },
  { name: 'checks.rows', cron: ROWS_REFRESH_CRON, everyHub: true, run: () => modules.refreshRows() },
  {
    name: 'checks.pack',
    cron: '7 */10 * * * *',
    run: () => packRawHours({ ...modules.checks, pause: () => new Promise((resolve) => setTimeout(resolve, 0)) }).then(() => undefined),
  },
  {
    name: 'checks.prune',
    cron: '0 27 3 * * *',
    run: async () => {
      const now = modules.checks.clock.now()
      await modules.checks.results.prune(now)
      await modules.checks.incidents.prune(now - 400 * DAY_MS)
    },
  },
]
