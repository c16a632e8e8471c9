import type { CheckSettings } from './checks.model'
import type { Attempt } from './checks.attempt'
import type { CheckRow } from './checks.store.rows'

/** hosts whose latest attempt is older than this no longer count */
const ACTIVE_MS = 10 * 60_000
/** failures that began within this span of each other fell "at once" */
const AT_ONCE_MS = 60_000
/** fewer distinct hosts than this never make the hub blind: one or two down targets are news */
const MIN_HOSTS = 3
/** distinct hosts remembered at most (the oldest go first) */
const MAX_HOSTS = 10_000

interface HostState {
  lastTs: number
  ok: boolean
  /** when its current run of failures began */
  failingSince: number | null
}

/** The host an http or tcp check connects to, or null for the other kinds. */
export function targetHost(check: Pick<CheckRow, 'kind' | 'settings'>): string | null {
  if (check.kind !== 'http' && check.kind !== 'tcp') return null
  const s = JSON.parse(check.settings) as CheckSettings
  if (check.kind === 'tcp') return s.host?.toLowerCase() ?? null
  try {
    return new URL(s.url!).hostname.toLowerCase()
  } catch {
    return null
  }
}

/**
 * Whether the hub itself has lost its network, judged from its own http and tcp checks (every
 * account's: the uplink is the hub's): at least 3 distinct hosts checked in the last 10 minutes,
 * most of them failing, their failures begun within one minute of each other, and none of them
 * answered since. While that holds, the hub-run checks' notices are held, as device offline
 * alerts are while the hub hears no device: otherwise each check would send one. Agents'
 * results are not judged by it.
 */
export function createUplinkWatch() {
  const hosts = new Map<string, HostState>()
  return {
    /** an attempt the hub made (agent-run places and other kinds are not fed here) */
    attempt(host: string, a: Pick<Attempt, 'ts' | 'ok'>) {
      const old = hosts.get(host)
      if (old && old.lastTs > a.ts) return
      hosts.delete(host)
      if (hosts.size >= MAX_HOSTS) hosts.delete(hosts.keys().next().value!)
      hosts.set(host, { lastTs: a.ts, ok: a.ok, failingSince: a.ok ? null : (old?.failingSince ?? a.ts) })
    },
    blind(now: number): boolean {
      let active = 0
      let failing = 0
      let first = Number.POSITIVE_INFINITY
      let last = Number.NEGATIVE_INFINITY
      let lastOk = Number.NEGATIVE_INFINITY
      for (const h of hosts.values()) {
        if (now - h.lastTs > ACTIVE_MS) continue
        active++
        if (h.failingSince === null) {
          lastOk = Math.max(lastOk, h.lastTs)
          continue
        }
        failing++
        first = Math.min(first, h.failingSince)
        last = Math.max(last, h.failingSince)
      }
      return active >= MIN_HOSTS && failing * 2 > active && last - first <= AT_ONCE_MS && lastOk < first
    },
  }
}
