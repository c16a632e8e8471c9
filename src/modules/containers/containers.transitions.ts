import type { ContainerIn, EventKind } from './containers.model'

/** What the hub held of a container before a block: the fields its transitions compare. */
export interface Previous {
  engineId: string
  state: string
  health: string
  exitCode: number | null
  oomKilled: boolean
  restartCount: number
  startedAt: number | null
}

export interface Transition {
  kind: EventKind
  exitCode: number | null
  restartCount: number | null
}

const STOPPED = new Set(['exited', 'dead'])

/**
 * The state changes between what the hub held of a container and a newer block's view of it.
 * Only ever called with a block newer than the one `prev` came from: a replay of an older
 * block never reaches here, so it cannot invent a transition.
 */
export function transitions(prev: Previous | null, next: ContainerIn, startedAt: number | null): Transition[] {
  const out: Transition[] = []
  const add = (kind: EventKind, exitCode: number | null = null, restartCount: number | null = null) => out.push({ kind, exitCode, restartCount })
  const running = next.state === 'running'
  // first seen, or the name now belongs to a new container (re-created by compose, for one)
  if (!prev || prev.engineId !== next.id) {
    add('created')
    if (running) add('started')
    else if (STOPPED.has(next.state)) add('stopped', next.exit_code)
    if (next.oom_killed) add('oom_killed', next.exit_code)
    if (next.health === 'unhealthy') add('unhealthy')
    return out
  }
  const wasRunning = prev.state === 'running'
  if (running && !wasRunning && prev.state !== 'paused') add('started')
  if (STOPPED.has(next.state) && !STOPPED.has(prev.state)) add('stopped', next.exit_code)
  if (next.oom_killed && !prev.oomKilled) add('oom_killed', next.exit_code)
  if (next.restart_count > prev.restartCount) add('restarted', null, next.restart_count)
  // restarted by hand between two blocks: running both times, but started again
  else if (running && wasRunning && startedAt !== null && prev.startedAt !== null && startedAt > prev.startedAt) add('restarted', null, next.restart_count)
  if (next.health === 'unhealthy' && prev.health !== 'unhealthy') add('unhealthy')
  if (next.health === 'healthy' && prev.health === 'unhealthy') add('healthy')
  return out
}

/** Needs a person: unhealthy, exited non-zero, restarting, or killed for want of memory. */
export function needsAttention(c: Pick<ContainerIn, 'state' | 'health' | 'exit_code' | 'oom_killed'>): boolean {
  return c.health === 'unhealthy' || c.state === 'restarting' || c.oom_killed || (STOPPED.has(c.state) && c.exit_code !== null && c.exit_code !== 0)
}
