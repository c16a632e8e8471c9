import { duration, ms } from '../lib/format'
import { Card, DataTable, Time } from '../ui'
import { uptime } from './check-list'
import { CheckStateBadge } from './CheckRow'
import type { CheckDetail } from './types'

type Place = CheckDetail['places'][number]

const PERIODS = [
  ['24h', '24 hours'],
  ['7d', '7 days'],
  ['30d', '30 days'],
  ['365d', '365 days'],
] as const

/** Uptime over each period and the response-time percentiles, as figures. */
export function UptimeCard({ check }: { check: CheckDetail }) {
  const p24 = check.response_time['24h']
  const p30 = check.response_time['30d']
  return (
    <Card title="Uptime">
      <dl class="ck-figures">
        {PERIODS.map(([key, label]) => (
          <div key={key} class="ck-figure">
            <dt>{label}</dt>
            <dd class="vg-num">{uptime(check.uptime[key])}</dd>
          </div>
        ))}
      </dl>
      {check.kind !== 'heartbeat' && (
        <p class="vg-muted vg-num">
          Response time over 24 hours: median {ms(p24.p50)}, 95th percentile {ms(p24.p95)}, 99th {ms(p24.p99)}. Over 30 days: median {ms(p30.p50)}, 95th
          percentile {ms(p30.p95)}.
        </p>
      )}
    </Card>
  )
}

/** Each place that runs the check (the hub, agents) with its own state and latest attempt. */
export function PlacesCard({ places, placeName }: { places: Place[]; placeName: (place: string) => string }) {
  return (
    <Card title="Where it runs">
      <DataTable
        caption="Places that run the check"
        rows={places}
        rowKey={(p) => p.place}
        empty={<p class="vg-muted">Nowhere: a heartbeat waits for its calls.</p>}
        columns={[
          { key: 'place', label: 'Place', render: (p) => placeName(p.place) },
          { key: 'state', label: 'State', render: (p) => <CheckStateBadge state={p.state} /> },
          { key: 'checked', label: 'Last checked', render: (p) => <Time iso={p.last_checked_at} relative /> },
          { key: 'ms', label: 'Response', numeric: true, render: (p) => ms(p.response_ms) },
          { key: 'error', label: 'Error', render: (p) => p.error ?? '—' },
        ]}
      />
    </Card>
  )
}

/** "Up for 3 h", "Down for 12 min": how long the current state has lasted. */
export function since(iso: string | null, now = Date.now()): string | null {
  if (!iso) return null
  return duration(Math.max(0, Math.round((now - Date.parse(iso)) / 1000)))
}
