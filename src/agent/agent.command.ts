import { writeSync } from 'node:fs'
import { systemClock } from '../lib/clock'
import { createLogger } from '../lib/logger'
import { systemTimers } from '../lib/timers'
import { AgentConfigError, loadAgentConfig, type AgentConfig } from './agent.config'
import { startAgent } from './agent.main'
import { startCheckRunner } from './checks/agent.checks'
import { importSqliteQueue } from './agent.queue-import'
import { hubFetch } from './agent.tls'
import { createSampler } from './agent.sample'
import { type NvidiaPoller, systemNvidiaPoller } from './readers/nvidia'
import { measureLatency } from './readers/latency'
import { createContainersPoller, type ContainersPoller } from './readers/containers/containers.poller'
import type { Logger } from '../lib/logger'
import { createSmartPoller, type SmartPoller, systemSmartRun } from './readers/smart/smart.poller'
import { UPDATE_RESTART_CODE } from './agent.update'
import { startUpdates } from './agent.update-start'

export const UNSUPPORTED = 'vigil agent supports Linux only (x64, arm64) for now'

/** How long --once waits between its two readings, so its percentages and rates mean something. */
const ONCE_WINDOW_MS = 250

/** host and port of the hub, for the latency probe */
function hubAddress(hub: string): { host: string; port: number } {
  const url = new URL(hub)
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port }
}

function samplerFor(config: AgentConfig, nvidia: NvidiaPoller | null, containers: ContainersPoller, smart: SmartPoller | null) {
  const target = config.hub ? hubAddress(config.hub) : null
  return createSampler({
    root: config.root,
    clock: systemClock,
    latency: target ? () => measureLatency(target.host, target.port) : undefined,
    nvidia,
    containers,
    smart,
  })
}

/** The containers reader: the engine's socket from DOCKER_HOST or the usual places. */
function containersFor(config: AgentConfig, env: Record<string, string | undefined>, log: Logger): ContainersPoller {
  return createContainersPoller({
    env,
    root: config.root,
    log,
    now: () => performance.now(),
    exclude: config.excludeContainers,
    labels: config.containerLabels,
    // a block missing two refreshes in a row is the engine's silence, not the containers' state
    staleAfterMs: Math.max(3 * config.intervalMs, 30_000),
  })
}

/** `vigil agent`: the collector. Returns the exit code. */
export async function agentCommand(
  args: string[],
  env: Record<string, string | undefined> = process.env,
  platform = { os: process.platform as string, arch: process.arch as string },
): Promise<number> {
  if (platform.os !== 'linux' || (platform.arch !== 'x64' && platform.arch !== 'arm64')) {
    console.error(UNSUPPORTED)
    return 2
  }
  if (args[0] === 'enrol' || args[0] === 'install' || args[0] === 'uninstall') return (await import('./agent.setup')).setupCommand(args[0], args.slice(1), env)
  let config: AgentConfig
  try {
    config = loadAgentConfig(env, args)
  } catch (err) {
    if (!(err instanceof AgentConfigError)) throw err
    console.error(`vigil: ${err.message}`)
    return 2
  }
  // logs go to stderr: journald keeps them, stdout stays free for --once. Written straight to
  // the descriptor: process.stderr is a Node stream whose machinery cost the collector ~0.5 MB.
  const log = createLogger({ level: config.logLevel, format: 'pretty', write: (line) => writeSync(2, `${line}\n`) })
  // --once says what it could not read in the sample itself (unavailable_reason): only warnings go to stderr
  const onceLog = createLogger({ level: config.logLevel === 'error' ? 'error' : 'warn', format: 'pretty', write: (line) => writeSync(2, `${line}\n`) })
  const nvidia = config.root === '/' ? systemNvidiaPoller() : null
  const containers = containersFor(config, env, config.once ? onceLog : log)
  // disk health is read on this machine only, and not for --once (a run per disk, needing root)
  const smart = config.root === '/' && !config.once ? createSmartPoller({ run: systemSmartRun(), now: () => performance.now(), log }) : null
  const sampler = samplerFor(config, nvidia, containers, smart)
  if (config.once) {
    sampler.prime()
    await Promise.all([Bun.sleep(ONCE_WINDOW_MS), nvidia?.settled(), containers.settled()])
    process.stdout.write(`${JSON.stringify(await sampler.sample())}\n`)
    return 0
  }
  let stopFor: ((why: string) => void) | null = null
  let exitCode = 0
  // one for the samples, the checks and the updates: with a pinned hub, its certificate read and its TLS options made once
  const toHub = hubFetch(config.stateDir)
  const updates = startUpdates(config, log, toHub, () => {
    exitCode = UPDATE_RESTART_CODE
    stopFor?.('update')
  })
  if (updates.rolledBack) return UPDATE_RESTART_CODE
  await importSqliteQueue(config.stateDir, { clock: systemClock, log })
  const agent = startAgent(
    { hub: config.hub!, key: config.key!, intervalMs: config.intervalMs, stateDir: config.stateDir },
    { sampler, clock: systemClock, timers: systemTimers, fetch: toHub, log, checkResults: () => checks.drain() },
  )
  // the service checks the hub assigns to this device
  const checks = startCheckRunner(
    { hub: config.hub!, key: config.key! },
    { clock: systemClock, timers: systemTimers, fetch: toHub, log, deviceId: agent.deviceId },
  )
  log.info('agent: started', { hub: config.hub, interval_s: config.intervalMs / 1000, state_dir: config.stateDir })
  // the loop's timers are unref'd; this one holds the process until a signal
  const keepAlive = setInterval(() => {}, 1 << 30)
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info('agent: stopping', { signal })
      checks.stop()
      agent.stop().then(resolve, resolve)
    }
    stopFor = stop
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  })
  updates.stop()
  clearInterval(keepAlive)
  return exitCode
}
