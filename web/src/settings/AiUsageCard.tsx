import { number, ms } from '../lib/format'
import { Card, DataTable, EmptyState, Skeleton, StatusBadge, Time, type Column } from '../ui'
import { Pager } from './Pager'
import { LoadError } from '../ui/LoadError'
import type { AiUsage, AiUsageEntry } from './types'
import type { Loaded } from '../lib/use-load'

export const USAGE_PAGE = 10

const columns: Column<AiUsageEntry>[] = [
  { key: 'created_at', label: 'When', render: (u) => <Time iso={u.created_at} /> },
  { key: 'kind', label: 'Call', render: (u) => (u.kind === 'test' ? 'Test' : 'Recommendations') },
  { key: 'model', label: 'Model', render: (u) => `${u.provider}${u.model ? ` · ${u.model}` : ''}` },
  { key: 'tokens', label: 'Tokens in / out', numeric: true, render: (u) => `${number(u.tokens_in)} / ${number(u.tokens_out)}` },
  { key: 'latency', label: 'Time', numeric: true, render: (u) => ms(u.latency_ms) },
  {
    key: 'status',
    label: 'Result',
    render: (u) => (
      <span title={u.error ?? undefined}>
        <StatusBadge status={u.status === 'ok' ? 'active' : u.status === 'pending' ? 'pending' : 'critical'} label={u.status.replaceAll('_', ' ')} />
      </span>
    ),
  },
]

/** Today's calls against the daily budget, then the log. */
export function AiUsageCard({ usage, page }: { usage: Loaded<AiUsage>; page: number }) {
  const u = usage.data
  return (
    <Card title="Usage and budget">
      {usage.error ? <LoadError error={usage.error} retry={usage.reload} /> : null}
      {!u ? (
        usage.error ? null : (
          <Skeleton lines={4} label="Loading usage" />
        )
      ) : (
        <>
          <div class="budget">
            <label for="ai-budget">
              Today (UTC): <strong class="num-inline">{u.today.calls}</strong> of {u.today.budget} calls, {u.today.remaining} left
            </label>
            <meter
              id="ai-budget"
              min={0}
              max={Math.max(1, u.today.budget)}
              value={u.today.calls}
              low={u.today.budget * 0.7}
              high={u.today.budget * 0.9}
              optimum={0}
            />
            <p class="hint">The budget is the instance's (VIGIL_AI_DAILY_BUDGET); scheduled runs stop for the day when it is spent.</p>
          </div>
          <p class="muted">
            In all: {number(u.totals.calls)} calls, {number(u.totals.ok)} answered, {number(u.totals.failed)} failed; {number(u.totals.tokens_in)} tokens in,{' '}
            {number(u.totals.tokens_out)} out.
          </p>
          <DataTable
            caption="Language-model calls, newest first"
            columns={columns}
            rows={u.items}
            rowKey={(x) => x.id}
            empty={<EmptyState title="No calls yet">Calls to the model appear here: scheduled runs, “Generate now” on a device, and tests.</EmptyState>}
          />
          {u.total > USAGE_PAGE && <Pager page={page} pages={Math.ceil(u.total / USAGE_PAGE)} total={u.total} name="usage" label="Pages of the usage log" />}
        </>
      )}
    </Card>
  )
}
