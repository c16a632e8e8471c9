/**
 * The state machines, pure. Each place that runs a check keeps its own: a new check is pending
 * until its first result (a success makes it up at once, so a new check does not wait M
 * attempts to show green); it goes down after `downAfter` consecutive failures and up again
 * after `upAfter` consecutive successes.
 *
 * Places combine so that one flaky vantage point does not page anyone for an outage the others
 * do not see: down when every place that has a state is down, degraded when some are down and
 * others up, up when all are up, pending while none has a state yet.
 */
export type PlaceState = 'pending' | 'up' | 'down'
export type CombinedState = PlaceState | 'degraded'

export interface PlaceMachine {
  state: PlaceState
  fails: number
  successes: number
}

export function nextPlace(p: PlaceMachine, ok: boolean, downAfter: number, upAfter: number): PlaceMachine {
  if (ok) {
    const successes = p.successes + 1
    const up = p.state === 'pending' || (p.state === 'down' && successes >= upAfter) || p.state === 'up'
    return { state: up ? 'up' : p.state, fails: 0, successes }
  }
  const fails = p.fails + 1
  return { state: fails >= downAfter ? 'down' : p.state, fails, successes: 0 }
}

export function combine(states: PlaceState[]): CombinedState {
  const known = states.filter((s) => s !== 'pending')
  if (!known.length) return 'pending'
  const down = known.filter((s) => s === 'down').length
  if (down === 0) return 'up'
  return down === known.length ? 'down' : 'degraded'
}

/** "Needs attention" first: down, degraded, pending, up, paused. */
export const ATTENTION: Record<string, number> = { down: 0, degraded: 1, pending: 2, up: 3, paused: 4 }
