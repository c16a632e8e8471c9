import { systemClock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import { systemTimers } from '../lib/timers'
import { VERSION } from '../version'
import type { AgentConfig } from './agent.config'
import type { Fetch } from './agent.sender'
import { checkUpdateMarker, confirmUpdate, platformOf, startUpdater, uncountStart, updateBlocker, type Updater } from './agent.update'

/** How long a new version must run before its update stands (and a crash no longer rolls it back). */
const CONFIRM_AFTER_MS = 120_000

/** `bun build --compile` serves the entry point from this virtual filesystem */
const isCompiled = () => Bun.main.startsWith('/$bunfs/')

/**
 * The fetch the updater uses: the hub's own (pinned to its certificate when enrolment kept one)
 * for the hub's origin, the platform's trust store for a download_url elsewhere (a file server, a
 * CDN), whose certificate the hub's pin would refuse.
 */
export function updateFetch(hub: string, toHub: Fetch, elsewhere: Fetch = (url, init) => fetch(url, init)): Fetch {
  const origin = new URL(hub).origin
  return (url, init) => (new URL(url).origin === origin ? toHub(url, init) : elsewhere(url, init))
}

/**
 * The agent command's update side: first the marker of an earlier update (its confirmation, or
 * its rollback: then `rolledBack` and the command exits to restart), then, unless turned off,
 * the checks against the hub, through `toHub` (agent.tls.ts). `onUpdated` runs once a new
 * executable is in place.
 */
export function startUpdates(config: AgentConfig, log: Logger, toHub: Fetch, onUpdated: (version: string) => void) {
  const state = checkUpdateMarker(config.stateDir, VERSION, log)
  if (state === 'rolled_back') return { rolledBack: true, stop() {} }
  let confirmed = state !== 'confirming'
  const cancelConfirm = confirmed
    ? () => {}
    : systemTimers.after(Math.max(CONFIRM_AFTER_MS, 3 * config.intervalMs), () => {
        confirmed = true
        confirmUpdate(config.stateDir)
        log.info('agent: the update stands', { version: VERSION })
      })
  let updater: Updater | null = null
  const blocker = config.update ? updateBlocker(process.execPath, isCompiled()) : 'turned off'
  if (blocker) log.info('agent: updates off', { why: blocker })
  else
    updater = startUpdater(
      {
        hub: config.hub!,
        key: config.key!,
        platform: platformOf(process.arch),
        currentVersion: VERSION,
        execPath: process.execPath,
        stateDir: config.stateDir,
      },
      { fetch: updateFetch(config.hub!, toHub), timers: systemTimers, clock: systemClock, log, onUpdated },
    )
  return {
    rolledBack: false,
    stop() {
      updater?.stop()
      cancelConfirm()
      if (!confirmed) uncountStart(config.stateDir)
    },
  }
}
