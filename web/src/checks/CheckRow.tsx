import { Sparkline } from '../charts/Sparkline'
import { ms } from '../lib/format'
import { Link } from '../lib/router'
import { StatusBadge, Time, type Column } from '../ui'
import { KIND_LABELS, stateBadge, targetOf, uptime } from './check-list'
import type { CheckListItem, CheckState } from './types'

export function CheckStateBadge({ state }: { state: CheckState }) {
  const b = stateBadge(state)
  return <StatusBadge status={b.status} label={b.label} />
}

/** The latency sparkline of the last 24 h, scaled to its own highest half hour. */
export function LatencySpark({ values, name }: { values: (number | null)[]; name: string }) {
  const known = values.filter((v): v is number => v != null)
  const max = known.length ? Math.max(...known) * 1.1 : 1
  return <Sparkline values={values} min={0} max={max} label={`Response time of ${name} over 24 hours, in ms`} width={120} height={28} />
}

/** The list's columns: state first, then what and where, then the figures. */
export const CHECK_COLUMNS: Column<CheckListItem>[] = [
  { key: 'state', label: 'State', render: (c) => <CheckStateBadge state={c.state} /> },
  {
    key: 'name',
    label: 'Check',
    render: (c) => (
      <div class="ck-name">
        <Link href={`/checks/${encodeURIComponent(c.id)}`}>{c.name}</Link>
        <span class="ck-target vg-muted">
          {KIND_LABELS[c.kind]} · {targetOf(c)}
        </span>
      </div>
    ),
  },
  { key: 'uptime', label: 'Uptime 24 h', numeric: true, render: (c) => uptime(c.uptime_24h) },
  {
    key: 'latency',
    label: 'Response time',
    render: (c) =>
      c.kind === 'heartbeat' ? (
        <span class="vg-muted">—</span>
      ) : (
        <div class="ck-latency">
          <LatencySpark values={c.sparkline} name={c.name} />
          <span class="vg-num">{ms(c.last_response_ms)}</span>
        </div>
      ),
  },
  { key: 'checked', label: 'Last checked', render: (c) => <Time iso={c.last_checked_at} relative /> },
]
