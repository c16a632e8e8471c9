import { accessSync, constants } from 'node:fs'
import { dirname } from 'node:path'
import type { Clock } from '../lib/clock'
import { toIso } from '../lib/clock'
import type { Logger } from '../lib/logger'
import type { Timers } from '../lib/timers'
import { compareSemver } from '../modules/versions/versions.semver'
import type { Fetch } from './agent.sender'
import {
  clearMarker,
  download,
  type InstallOptions,
  type Offer,
  readMarker,
  refusedVersions,
  refuseVersion,
  restorePrevious,
  selfCheck,
  swap,
  UpdateError,
  writeMarker,
} from './agent.update-install'

/** The exit code after an update or a rollback: systemd's Restart= starts the executable now at the path. */
export const UPDATE_RESTART_CODE = 75

/** GET /v1/versions/{platform}, the fields the agent uses */
export interface PublishedVersion {
  version: string
  download_url: string | null
  sha256: string | null
  is_mandatory: boolean
}

export interface Decision {
  offer: Offer
  mandatory: boolean
}

/**
 * Whether a published version is one to install: newer than the running one by semantic-version
 * order, with a location and a checksum (an unverifiable executable is never installed), and
 * not one this machine already tried and refused.
 */
export function decide(current: string, published: PublishedVersion | null, refused: Set<string>): Decision | null {
  if (!published?.download_url || !published.sha256) return null
  if (compareSemver(published.version, current) <= 0 || refused.has(published.version)) return null
  return { offer: { version: published.version, url: published.download_url, sha256: published.sha256 }, mandatory: published.is_mandatory }
}

export const platformOf = (arch: string) => `linux-${arch}`

/** The latest published version of the platform, or null (none published, or the hub unreachable: a later check tries again). */
export async function fetchPublished(hub: string, key: string, platform: string, deps: { fetch: Fetch; log: Logger }): Promise<PublishedVersion | null> {
  try {
    const res = await deps.fetch(`${hub}/v1/versions/${platform}`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(30_000) })
    if (res.status === 404) return null
    if (!res.ok) {
      deps.log.debug('agent: version check answered', { status: res.status })
      return null
    }
    return (await res.json()) as PublishedVersion
  } catch (err) {
    deps.log.debug('agent: version check failed', { error: (err as Error).message })
    return null
  }
}

export interface UpdaterOptions {
  hub: string
  key: string
  platform: string
  currentVersion: string
  execPath: string
  stateDir: string
  /** between checks, ±25% jitter; default 4 h */
  checkEveryMs?: number
  /** a version that is not mandatory is installed after a random delay up to this; default 6 h */
  windowMs?: number
  /** the first check, after start; default 30 s (the first samples go first) */
  firstCheckMs?: number
}

export interface UpdaterDeps {
  fetch: Fetch
  timers: Timers
  clock: Clock
  log: Logger
  random?: () => number
  /** download, verify, self-check, swap; tests replace it to look at the schedule alone */
  install?: (offer: Offer) => Promise<void>
  /** the new executable is in place: stop and exit so the supervisor starts it */
  onUpdated: (version: string) => void
  installOptions?: Partial<InstallOptions>
}

const HOUR = 3_600_000

/**
 * Checks the hub for a newer collector at start and every few hours. A mandatory version is
 * installed at once; any other after a random delay within the window, so a fleet does not
 * download and restart in one go. A failed install is logged and the agent carries on with
 * the version it runs; one that fails its self-check is not tried again.
 */
export function startUpdater(opts: UpdaterOptions, deps: UpdaterDeps) {
  const { log, timers } = deps
  const random = deps.random ?? Math.random
  const checkEveryMs = opts.checkEveryMs ?? 4 * HOUR
  const windowMs = opts.windowMs ?? 6 * HOUR
  const installOpts: InstallOptions = { execPath: opts.execPath, hub: opts.hub, key: opts.key, fetch: deps.fetch, ...deps.installOptions }
  const install =
    deps.install ??
    (async (offer: Offer) => {
      const staged = await download(offer, installOpts)
      await selfCheck(staged, offer.version, installOpts)
      writeMarker(opts.stateDir, { version: offer.version, from: opts.currentVersion, exec_path: opts.execPath, starts: 0, at: toIso(deps.clock.now()) })
      try {
        swap(staged, opts.execPath)
      } catch (err) {
        clearMarker(opts.stateDir)
        throw err
      }
    })
  let stopped = false
  let cancelCheck: (() => void) | null = null
  let planned: { version: string; cancel: () => void } | null = null
  let installing: Promise<void> | null = null

  async function apply(decision: Decision): Promise<void> {
    planned = null
    const { version } = decision.offer
    log.info('agent: installing a new version', { from: opts.currentVersion, to: version, mandatory: decision.mandatory })
    try {
      await install(decision.offer)
    } catch (err) {
      if (!(err instanceof UpdateError)) throw err
      // a self-check failure is this build on this machine: trying again would fail again
      if (err.reason === 'self_check') refuseVersion(opts.stateDir, version)
      log.error('agent: update not installed; carrying on with the running version', { version, reason: err.reason, error: err.message })
      return
    }
    if (stopped) return
    log.info('agent: new version in place; restarting into it', { version })
    deps.onUpdated(version)
  }

  async function check(): Promise<void> {
    const published = await fetchPublished(opts.hub, opts.key, opts.platform, deps)
    const decision = decide(opts.currentVersion, published, refusedVersions(opts.stateDir))
    if (!decision || stopped || installing) return
    if (decision.mandatory) {
      planned?.cancel()
      installing = apply(decision).finally(() => {
        installing = null
      })
      return installing
    }
    if (planned?.version === decision.offer.version) return
    planned?.cancel()
    const delay = Math.floor(random() * windowMs)
    log.info('agent: a new version is published; installing it within the window', { version: decision.offer.version, in_s: Math.round(delay / 1000) })
    planned = {
      version: decision.offer.version,
      cancel: timers.after(delay, () => {
        installing = apply(decision).finally(() => {
          installing = null
        })
      }),
    }
  }

  function schedule(ms: number) {
    cancelCheck = timers.after(ms, () => {
      cancelCheck = null
      check()
        .catch((err: Error) => log.error('agent: update check failed', { error: err.message }))
        .finally(() => {
          if (!stopped) schedule(Math.round(checkEveryMs * (0.75 + random() * 0.5)))
        })
    })
  }

  schedule(opts.firstCheckMs ?? 30_000)
  return {
    /** one check now, as the timer runs it */
    check,
    /** the version waiting for its moment in the window, if any */
    planned: () => planned?.version ?? null,
    /** resolves when an install under way is done */
    settled: () => installing ?? Promise.resolve(),
    stop() {
      stopped = true
      cancelCheck?.()
      planned?.cancel()
    },
  }
}

export type Updater = ReturnType<typeof startUpdater>

/**
 * Why updates cannot run here, or null when they can: only the compiled executable updates
 * (under `bun src/main.ts` the "executable" is Bun), and only when its directory is writable.
 */
export function updateBlocker(execPath: string, compiled: boolean): string | null {
  if (!compiled) return 'not running as the compiled executable'
  try {
    accessSync(dirname(execPath), constants.W_OK)
    return null
  } catch {
    return `${dirname(execPath)} is not writable by this user`
  }
}

/** What the start found of an earlier update. */
export type StartState = 'none' | 'confirming' | 'rolled_back'

/**
 * At start, before anything else: an update marker for this version means this is its first
 * start (count it, and confirm later with `confirmUpdate`), or, counted already, that the start
 * before died before confirming: put `.previous` back, refuse the version, and exit to restart.
 */
export function checkUpdateMarker(stateDir: string, currentVersion: string, log: Logger): StartState {
  const marker = readMarker(stateDir)
  if (!marker) return 'none'
  if (marker.version !== currentVersion) {
    clearMarker(stateDir) // not what runs: rolled back by hand, or replaced by the operator
    return 'none'
  }
  if (marker.starts < 1) {
    writeMarker(stateDir, { ...marker, starts: marker.starts + 1 })
    return 'confirming'
  }
  const restored = restorePrevious(marker.exec_path)
  refuseVersion(stateDir, marker.version)
  clearMarker(stateDir)
  log.error('agent: the new version did not stay up after its update; back to the previous one', {
    version: marker.version,
    previous: marker.from,
    restored,
  })
  return restored ? 'rolled_back' : 'none'
}

/** The new version ran long enough: the update stands. */
export const confirmUpdate = (stateDir: string) => clearMarker(stateDir)

/** A clean stop (systemctl stop, a reboot) during the confirmation is no crash: the next start confirms again. */
export function uncountStart(stateDir: string): void {
  const marker = readMarker(stateDir)
  if (marker) writeMarker(stateDir, { ...marker, starts: 0 })
}
