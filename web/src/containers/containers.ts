/**
 * What the containers' pages say about a container: its state and health as words, why it needs
 * attention, its memory (never a 0 the kernel did not measure), its history as sentences. Pure:
 * the same container gives the same words in a test and in the browser.
 */
import { bytes, percent } from '../lib/format'
import type { Container, ContainerEvent, Health, ShownState } from './types'

export type Tone = 'ok' | 'warn' | 'bad' | 'muted' | 'info'
export type BadgeIcon = 'check-circle' | 'x-circle' | 'warning' | 'clock' | 'minus-circle' | 'info'
export interface Badge {
  tone: Tone
  icon: BadgeIcon
  word: string
}

export const STATE_WORDS: Record<ShownState, string> = {
  created: 'Created',
  running: 'Running',
  paused: 'Paused',
  restarting: 'Restarting',
  removing: 'Removing',
  exited: 'Exited',
  dead: 'Dead',
  gone: 'Gone',
}

export const HEALTH_WORDS: Record<Health, string> = { healthy: 'Healthy', unhealthy: 'Unhealthy', starting: 'Starting', none: 'No health check' }

/** The state badge: a stop with a non-zero code is an error, a clean stop is not. */
export function stateBadge(c: Pick<Container, 'state' | 'exit_code'>): Badge {
  switch (c.state) {
    case 'running':
      return { tone: 'ok', icon: 'check-circle', word: 'Running' }
    case 'restarting':
      return { tone: 'warn', icon: 'clock', word: 'Restarting' }
    case 'paused':
      return { tone: 'warn', icon: 'minus-circle', word: 'Paused' }
    case 'exited':
    case 'dead': {
      const failed = c.exit_code !== null && c.exit_code !== 0
      const code = c.exit_code === null ? '' : ` (${c.exit_code})`
      return { tone: failed ? 'bad' : 'muted', icon: failed ? 'x-circle' : 'minus-circle', word: `${STATE_WORDS[c.state]}${code}` }
    }
    default:
      return { tone: 'muted', icon: 'minus-circle', word: STATE_WORDS[c.state] }
  }
}

/** The health badge; null for a container without a health check (nothing to say). */
export function healthBadge(h: Health): Badge | null {
  if (h === 'healthy') return { tone: 'ok', icon: 'check-circle', word: 'Healthy' }
  if (h === 'unhealthy') return { tone: 'bad', icon: 'x-circle', word: 'Unhealthy' }
  if (h === 'starting') return { tone: 'warn', icon: 'clock', word: 'Starting' }
  return null
}

/** Why a container needs a person, in the hub's own terms (unhealthy, exited non-zero, restarting, OOM-killed). */
export function attentionReasons(c: Pick<Container, 'state' | 'health' | 'exit_code' | 'oom_killed'>): string[] {
  const out: string[] = []
  if (c.health === 'unhealthy') out.push('unhealthy')
  if ((c.state === 'exited' || c.state === 'dead') && c.exit_code !== null && c.exit_code !== 0) out.push(`exited with code ${c.exit_code}`)
  if (c.state === 'restarting') out.push('restarting')
  if (c.oom_killed) out.push('killed for want of memory (OOM)')
  return out
}

export const NOT_ACCOUNTED = 'memory not accounted on this machine'

/**
 * The memory figure: used, of the limit when there is one. Without cgroup memory accounting the
 * kernel measures nothing, and that is what it says (a 0 would read as an idle container).
 */
export function memoryText(c: Pick<Container, 'memory_used_bytes' | 'memory_limit_bytes' | 'memory_percent'>, accounting: boolean): string {
  if (!accounting) return NOT_ACCOUNTED
  if (c.memory_used_bytes === null) return '—'
  const used = bytes(c.memory_used_bytes)
  if (c.memory_limit_bytes === null) return used
  return `${used} of ${bytes(c.memory_limit_bytes)}${c.memory_percent === null ? '' : ` (${percent(c.memory_percent)})`}`
}

const SHOWN_ORDER: Record<ShownState, number> = { running: 0, restarting: 1, paused: 2, created: 3, removing: 4, exited: 5, dead: 6, gone: 7 }

/** A device's containers as its page lists them: those needing attention first, then running ones, gone ones last; by name within. */
export function deviceOrder(list: Container[]): Container[] {
  const rank = (c: Container) => (c.state === 'gone' ? 100 : c.needs_attention ? 0 : 1 + SHOWN_ORDER[c.state])
  return [...list].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name))
}

/** One line of a container's state history. */
export function eventText(e: Pick<ContainerEvent, 'kind' | 'exit_code' | 'restart_count'>): string {
  switch (e.kind) {
    case 'created':
      return 'Created (first seen, or re-created under this name)'
    case 'started':
      return 'Started'
    case 'stopped':
      return e.exit_code === null ? 'Stopped' : `Stopped with exit code ${e.exit_code}`
    case 'unhealthy':
      return 'Turned unhealthy'
    case 'healthy':
      return 'Healthy again'
    case 'restarted':
      return e.restart_count === null ? 'Restarted' : `Restarted (restart count ${e.restart_count})`
    case 'oom_killed':
      return 'Killed for want of memory (OOM)'
    case 'gone':
      return 'Gone: the engine no longer lists it'
  }
}

export const eventTone = (kind: ContainerEvent['kind'], exitCode: number | null): Tone =>
  kind === 'oom_killed' || kind === 'unhealthy' || (kind === 'stopped' && exitCode !== null && exitCode !== 0)
    ? 'bad'
    : kind === 'restarted'
      ? 'warn'
      : kind === 'started' || kind === 'healthy'
        ? 'ok'
        : 'muted'

/** What to do when the collector sees no engine, beside the collector's own reason. */
export function engineAdvice(reason: string | null): string {
  if (reason && /permission denied/i.test(reason))
    return 'The collector found the socket but may not open it: give its user access as the reason says, then restart the collector.'
  return 'If Docker or Podman runs on this machine, point the collector at its socket: set DOCKER_HOST=unix:///path/to/docker.sock in the collector’s environment (systemctl edit vigil-agent), then restart it.'
}
