import type { CheckKind, CheckListItem, CheckResponse, CheckState } from './types'

/** "Needs attention" first: down, then degraded, then pending, then up; paused last (nobody is waiting on it). */
const RANK: Record<CheckState, number> = { down: 0, degraded: 1, pending: 2, up: 3, paused: 4 }
export const stateRank = (s: CheckState) => RANK[s] ?? 5

/** A check state as the portal's status badge shows it: always a word and an icon beside the colour. */
const BADGES: Record<CheckState, { status: string; label: string }> = {
  up: { status: 'online', label: 'Up' },
  down: { status: 'offline', label: 'Down' },
  degraded: { status: 'warning', label: 'Degraded' },
  pending: { status: 'pending', label: 'Pending' },
  paused: { status: 'revoked', label: 'Paused' },
}
export const stateBadge = (s: CheckState) => BADGES[s] ?? { status: s, label: s }

export const KIND_LABELS: Record<CheckKind, string> = {
  http: 'HTTP(S)',
  tcp: 'TCP port',
  ping: 'Ping',
  dns: 'DNS',
  tls: 'TLS certificate',
  heartbeat: 'Heartbeat',
}

/** What a check watches, in one line ("https://example.com", "db.lan:5432", "example.com AAAA"). */
export function targetOf(c: Pick<CheckResponse, 'kind' | 'settings'>): string {
  const s = c.settings
  switch (c.kind) {
    case 'http':
      return `${s.method && s.method !== 'GET' ? `${s.method} ` : ''}${s.url ?? ''}`
    case 'tcp':
      return `${s.host ?? ''}:${s.port ?? ''}`
    case 'ping':
      return s.host ?? ''
    case 'dns':
      return `${s.name ?? ''} ${s.record_type ?? 'A'}`
    case 'tls':
      return `${s.host ?? ''}:${s.port ?? 443}`
    case 'heartbeat':
      return `expected every ${period(s.period_s ?? 0)}`
  }
}

/** A period in the largest whole unit ("90 s", "5 min", "1 h", "1 d"). */
export function period(seconds: number): string {
  if (seconds >= 86400 && seconds % 86400 === 0) return `${seconds / 86400} d`
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`
  return `${seconds} s`
}

/** Uptime with two decimals, never rounded up to 100 % while a single attempt failed. */
export function uptime(pct: number | null | undefined): string {
  if (pct == null || !Number.isFinite(pct)) return '—'
  if (pct >= 100) return '100 %'
  return `${(Math.floor(pct * 100) / 100).toFixed(2)} %`
}

/** Search over the name, the kind, the state and the target. */
export function matches(c: CheckListItem, query: string): boolean {
  const q = query.trim().toLowerCase()
  if (!q) return true
  return [c.name, c.kind, KIND_LABELS[c.kind], c.state, targetOf(c)].some((v) => v.toLowerCase().includes(q))
}

/** Needs attention first, then by name; the order is stable between polls. */
export function sortChecks<T extends Pick<CheckListItem, 'state' | 'name'>>(list: T[]): T[] {
  return [...list].sort((a, b) => stateRank(a.state) - stateRank(b.state) || a.name.localeCompare(b.name))
}

/** How many checks are down now (everywhere they run; degraded ones are counted apart). */
export const countState = (list: Pick<CheckListItem, 'state'>[], state: CheckState) => list.filter((c) => c.state === state).length
