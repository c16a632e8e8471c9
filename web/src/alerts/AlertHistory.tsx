import { duration } from '../lib/format'
import { Link, setSearch } from '../lib/router'
import { Button, DataTable, EmptyState, Skeleton, StatusBadge, Time, type Column } from '../ui'
import { alertSeconds, alertSince } from './alert-list'
import { LoadError } from '../ui/LoadError'
import { alertSubject, valueVsThreshold } from './metrics'
import type { AlertView, Page } from './types'
import type { Loaded } from '../lib/use-load'

/** The alerts of the filters, newest first, a page at a time (the page number is in the URL). */
export function AlertHistory({ history, pageSize, page }: { history: Loaded<Page<AlertView>>; pageSize: number; page: number }) {
  const now = Date.now()
  const columns: Column<AlertView>[] = [
    {
      key: 'since',
      label: 'Since',
      render: (a) => {
        const since = alertSince(a)
        return (
          <span class="alert-since">
            <span class="muted small">{since.label}</span> <Time iso={since.iso} />
          </span>
        )
      },
    },
    { key: 'severity', label: 'Severity', render: (a) => <StatusBadge status={a.rule.severity} /> },
    {
      key: 'rule',
      label: 'Alert',
      render: (a) => (
        <div>
          <Link href={`/alerts/${encodeURIComponent(a.id)}`}>{a.rule.name}</Link>
          <div class="muted small">{alertSubject(a)}</div>
        </div>
      ),
    },
    { key: 'device', label: 'Device', render: (a) => <Link href={`/devices/${encodeURIComponent(a.device.id)}`}>{a.device.name}</Link> },
    {
      key: 'value',
      label: 'Value',
      numeric: true,
      render: (a) => {
        const v = valueVsThreshold(a)
        return (
          <span title={`threshold ${v.threshold}`}>
            {v.value} <span class="muted small">/ {v.threshold}</span>
          </span>
        )
      },
    },
    {
      key: 'state',
      label: 'State',
      render: (a) => <StatusBadge status={a.acknowledged && a.state === 'firing' ? 'acknowledged' : a.state} />,
    },
    { key: 'lasted', label: 'Lasted', numeric: true, render: (a) => (a.state === 'pending' ? '—' : duration(alertSeconds(a, now))) },
  ]
  if (history.error) return <LoadError error={history.error} retry={() => void history.reload()} />
  if (!history.data) return <Skeleton lines={5} height={32} label="Loading the history" />
  const { items, total } = history.data
  const pages = Math.max(1, Math.ceil(total / pageSize))
  return (
    <>
      <DataTable
        caption="Alert history"
        columns={columns}
        rows={items}
        rowKey={(a) => a.id}
        empty={<EmptyState title="No alerts here">No alert matches these filters in this time range. Widen the range or clear a filter.</EmptyState>}
      />
      {total > pageSize && (
        <nav class="pager" aria-label="History pages">
          <Button small disabled={page <= 1} onClick={() => setSearch({ page: page - 1 > 1 ? page - 1 : null }, { replace: false })}>
            Newer
          </Button>
          <span class="muted">
            Page {page} of {pages} · {total} alerts
          </span>
          <Button small disabled={page >= pages} onClick={() => setSearch({ page: page + 1 }, { replace: false })}>
            Older
          </Button>
        </nav>
      )}
    </>
  )
}
