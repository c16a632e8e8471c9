import { api } from '../lib/api'
import { duration, ms } from '../lib/format'
import { describeError } from '../lib/errors'
import { useLoad } from '../lib/use-load'
import { Banner, Card, DataTable, StatusBadge, Time } from '../ui'
import type { IncidentsPage, ResultsPage } from './types'

/** Down periods, newest first, each with the error that began it. */
export function IncidentsCard({ checkId, version }: { checkId: string; version: number }) {
  const page = useLoad(() => api.get<IncidentsPage>(`/v1/checks/${encodeURIComponent(checkId)}/incidents`, { limit: 20 }), [checkId, version])
  return (
    <Card title="Incidents">
      {page.error ? <Banner tone="error">{describeError(page.error)}</Banner> : null}
      {page.data && (
        <DataTable
          caption="Incidents, newest first"
          rows={page.data.items}
          rowKey={(i) => i.id}
          empty={<p class="vg-muted">No incidents: the check has not been down.</p>}
          columns={[
            { key: 'started', label: 'Began', render: (i) => <Time iso={i.started_at} /> },
            { key: 'ended', label: 'Ended', render: (i) => (i.ended_at ? <Time iso={i.ended_at} /> : <StatusBadge status="offline" label="Ongoing" />) },
            { key: 'duration', label: 'Lasted', numeric: true, render: (i) => duration(i.duration_s) },
            { key: 'cause', label: 'Cause', render: (i) => i.cause ?? '—' },
          ]}
        />
      )}
    </Card>
  )
}

/** The latest raw attempts (kept 48 hours), each with where it ran. */
export function ResultsCard({ checkId, version, placeName }: { checkId: string; version: number; placeName: (place: string) => string }) {
  const page = useLoad(() => api.get<ResultsPage>(`/v1/checks/${encodeURIComponent(checkId)}/results`, { limit: 20 }), [checkId, version])
  return (
    <Card title="Recent results">
      {page.error ? <Banner tone="error">{describeError(page.error)}</Banner> : null}
      {page.data && (
        <DataTable
          caption="Recent results, newest first"
          rows={page.data.items}
          rowKey={(r) => `${r.ts}-${r.place}`}
          empty={<p class="vg-muted">No results yet: the first attempt comes within one interval.</p>}
          columns={[
            { key: 'ts', label: 'When', render: (r) => <Time iso={r.ts} /> },
            { key: 'place', label: 'From', render: (r) => placeName(r.place) },
            { key: 'ok', label: 'Result', render: (r) => <StatusBadge status={r.ok ? 'online' : 'offline'} label={r.ok ? 'Up' : 'Down'} /> },
            { key: 'ms', label: 'Response', numeric: true, render: (r) => ms(r.response_ms) },
            { key: 'code', label: 'Status', numeric: true, render: (r) => (r.status_code === null ? '—' : String(r.status_code)) },
            { key: 'error', label: 'Error', render: (r) => r.error ?? '—' },
          ]}
        />
      )}
    </Card>
  )
}
