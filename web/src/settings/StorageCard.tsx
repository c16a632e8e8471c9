import type { StorageReport } from '../../../src/modules/storage/storage.model'
import { bytes, number } from '../lib/format'
import type { Loaded } from '../lib/use-load'
import { Banner, Card, DataTable, Skeleton, Time, type Column } from '../ui'
import { LoadError } from '../ui/LoadError'

type Part = { key: string; label: string; detail?: string; bytes: number; oldest_at: string | null }

const TIER_WORDS: Record<StorageReport['tiers'][number]['tier'], string> = {
  raw: 'Raw samples',
  '1m': '1-minute rollups',
  '10m': '10-minute rollups',
  '1h': 'Hourly rollups',
  '1d': 'Daily rollups',
}

const share = (r: number) => `${Math.round(r * 100)} %`

const days = (d: number) => (d >= 10 ? `${number(Math.round(d))} days` : `${d.toFixed(1)} days`)

/** The space the data uses per tier, the disk budget and the data dir's disk (GET /v1/admin/storage). */
export function StorageCard({ storage }: { storage: Loaded<StorageReport> }) {
  const s = storage.data
  const parts: Part[] = s
    ? [
        ...s.tiers.map((t) => ({ key: t.tier, label: TIER_WORDS[t.tier], bytes: t.bytes, oldest_at: t.oldest_at })),
        { key: 'rest', label: 'Everything else', detail: 'accounts, devices, alerts, deliveries…', bytes: s.rest_bytes, oldest_at: null },
      ]
    : []
  const total = parts.reduce((a, p) => a + p.bytes, 0)
  const columns: Column<Part>[] = [
    {
      key: 'label',
      label: 'Part',
      render: (p) => (
        <div>
          <div>{p.label}</div>
          {p.detail && <div class="muted small">{p.detail}</div>}
        </div>
      ),
    },
    { key: 'bytes', label: 'Size', numeric: true, render: (p) => bytes(p.bytes) },
    { key: 'share', label: 'Share', numeric: true, render: (p) => (total ? share(p.bytes / total) : '—') },
    { key: 'oldest', label: 'Oldest', render: (p) => (p.key === 'rest' ? '' : <Time iso={p.oldest_at} relative />) },
  ]
  return (
    <Card title="Storage">
      {storage.error ? <LoadError error={storage.error} retry={storage.reload} /> : null}
      {!s ? (
        storage.error ? null : (
          <Skeleton lines={6} label="Loading storage" />
        )
      ) : (
        <>
          {s.warning && (
            <>
              <Banner tone="warning">Storage: {s.warning}</Banner>
              <div class="stack-gap" />
            </>
          )}
          <dl class="facts">
            <dt>Database</dt>
            <dd>
              {bytes(s.database_bytes)}
              {s.budget && (
                <>
                  {' '}
                  of a {bytes(s.budget.bytes)} budget ({share(s.budget.used_ratio)}, <code class="mono">VIGIL_STORAGE_BUDGET={s.budget.setting}</code>)
                </>
              )}
            </dd>
            <dt>Raw samples kept</dt>
            <dd>
              {!s.budget ? (
                <>
                  For <code class="mono">VIGIL_RETENTION_RAW</code>: no budget is set
                </>
              ) : s.budget.raw_days_held === null ? (
                'Not known yet: an hour of raw samples gives the rate'
              ) : (
                `The budget holds about ${days(s.budget.raw_days_held)} at the current rate`
              )}
            </dd>
            <dt>Disk</dt>
            <dd>
              {share(s.disk.used_ratio)} used, {bytes(s.disk.available_bytes)} free of {bytes(s.disk.total_bytes)}
              <span class="muted"> — warns from {Number((s.disk.warn_ratio * 100).toFixed(2))} %</span>
            </dd>
            {s.last_prune && (
              <>
                <dt>Last pruning</dt>
                <dd>
                  <Time iso={s.last_prune.at} />: {number(s.last_prune.deleted_rows)} rows from{' '}
                  {s.last_prune.tiers.map((t) => TIER_WORDS[t].toLowerCase()).join(', ')}
                </dd>
              </>
            )}
          </dl>
          <div class="stack-gap" />
          <DataTable caption="Space each part of the database uses" columns={columns} rows={parts} rowKey={(p) => p.key} />
          <p class="hint">
            {s.measured_at ? (
              <>
                Measured <Time iso={s.measured_at} relative />: hourly, since measuring reads the whole database.
              </>
            ) : (
              'Not measured yet: the first measure comes within a minute of the start.'
            )}{' '}
            Past the budget the oldest raw samples go first, then the finer rollups.
          </p>
        </>
      )}
    </Card>
  )
}
