import { EmptyState, Time } from '../ui'
import { formatValue, unitOf } from './metrics'
import type { AlertContext as Ctx } from './types'

interface Proc {
  pid?: number
  name?: string
  cpu_percent?: number
  memory_percent?: number
}

/** Field names read better without their unit suffix: the unit goes on the value. */
const fieldLabel = (k: string) => {
  const s = k.replace(/_(percent|pct|c|mbps|ms|dbm)$/, '').replace(/_/g, ' ')
  return s.charAt(0).toUpperCase() + s.slice(1)
}

/** What the engine kept when the alert fired: the sample's figures and the busiest processes. */
export function AlertContextView({ context }: { context: Ctx | null }) {
  if (!context) return <EmptyState title="No context kept">This alert carries no sample (it was pending, or the rule has none to keep).</EmptyState>
  const sample = context.sample
  const top = context.top_processes as { cpu?: Proc[]; memory?: Proc[] } | undefined
  const extra = Object.entries(context).filter(([k, v]) => k !== 'sample' && k !== 'top_processes' && (typeof v === 'number' || typeof v === 'string'))
  const values = Object.entries(sample?.values ?? {})
    .filter(([, v]) => typeof v === 'number' || typeof v === 'boolean')
    .sort(([a], [b]) => a.localeCompare(b))
  return (
    <div class="alert-stack">
      {extra.length > 0 && (
        <dl class="context-grid">
          {extra.map(([k, v]) => (
            <div key={k}>
              <dt>{fieldLabel(k)}</dt>
              <dd>{typeof v === 'number' ? formatValue(v, unitOf(k)) : String(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      {sample && (
        <section aria-labelledby="ctx-sample">
          <h3 id="ctx-sample" class="section-heading">
            The {sample.kind ?? ''} sample that crossed, <Time iso={sample.recorded_at} />
          </h3>
          <dl class="context-grid">
            {values.map(([k, v]) => (
              <div key={k}>
                <dt>{fieldLabel(k)}</dt>
                <dd>{typeof v === 'boolean' ? (v ? 'yes' : 'no') : formatValue(v as number, unitOf(k))}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      {top && (top.cpu?.length || top.memory?.length) ? (
        <div class="two-col">
          <ProcTable title="Top processes by CPU" rows={top.cpu ?? []} />
          <ProcTable title="Top processes by memory" rows={top.memory ?? []} />
        </div>
      ) : null}
    </div>
  )
}

function ProcTable({ title, rows }: { title: string; rows: Proc[] }) {
  return (
    <div class="table-wrap">
      <table class="table">
        <caption class="table-caption">{title}</caption>
        <thead>
          <tr>
            <th scope="col">Process</th>
            <th scope="col" class="num">
              PID
            </th>
            <th scope="col" class="num">
              CPU
            </th>
            <th scope="col" class="num">
              Memory
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p, i) => (
            <tr key={`${p.pid ?? i}`}>
              <td class="mono">{p.name ?? '—'}</td>
              <td class="num">{p.pid ?? '—'}</td>
              <td class="num">{formatValue(p.cpu_percent ?? null, 'percent')}</td>
              <td class="num">{formatValue(p.memory_percent ?? null, 'percent')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
