import type { ComponentChildren } from 'preact'
import { Sparkline } from '../charts/Sparkline'
import { bytesPerSecond, duration, percent } from '../lib/format'
import { Link } from '../lib/router'
import { Icon, Time } from '../ui'
import { attentionReasons, healthBadge, memoryText, stateBadge } from './containers'
import { ToneBadge } from './ToneBadge'
import type { Container } from './types'

interface Col {
  key: string
  label: string
  numeric?: boolean
  cell: (c: Container) => ComponentChildren
}

export interface ContainerTableProps {
  rows: Container[]
  caption: string
  /** the fleet's page: a device column, names linking to the device page's charts */
  fleet?: boolean
  /** the device's engine has cgroup memory accounting (the fleet's rows carry their own `memory_accounting`) */
  memoryAccounted?: boolean
  /** the device page: the container whose charts are open, and how to open one */
  open?: string | null
  onOpen?: (c: Container) => void
  /** CPU over the last hour by container_id (the device page) */
  sparks?: Record<string, (number | null)[]>
  /** the sorted column, for the fleet's headers */
  sort?: { key: string; desc: boolean } | null
  onSort?: (key: string) => void
  sortable?: string[]
}

function Since({ c }: { c: Container }) {
  if (c.state === 'running' || c.state === 'paused' || c.state === 'restarting') return <span class="vg-num">{duration(c.uptime_seconds)}</span>
  if (c.state === 'gone')
    return (
      <span class="vg-muted">
        gone <Time iso={c.gone_at} relative />
      </span>
    )
  if (c.finished_at)
    return (
      <span class="vg-muted">
        stopped <Time iso={c.finished_at} relative />
      </span>
    )
  return <span class="vg-muted">not running</span>
}

function NameCell({ c, fleet, open, onOpen }: { c: Container; fleet?: boolean; open?: string | null; onOpen?: (c: Container) => void }) {
  const href = `/devices/${encodeURIComponent(c.device_id)}?container=${encodeURIComponent(c.container_id)}`
  return (
    <div class="vg-ct-name">
      {onOpen ? (
        <button type="button" class="vg-ct-open" aria-expanded={open === c.container_id} onClick={() => onOpen(c)}>
          <Icon name={open === c.container_id ? 'chevron-down' : 'chevron-right'} size={14} />
          {c.name}
        </button>
      ) : fleet ? (
        <Link href={href}>{c.name}</Link>
      ) : (
        <span>{c.name}</span>
      )}
      <span class="vg-ct-image" title={c.image}>
        {c.image}
      </span>
    </div>
  )
}

/**
 * Containers as rows: state and health (words and icons), why one needs attention, uptime and the
 * newest figures. On a phone each row becomes a block, each figure under its name.
 */
export function ContainerTable({ rows, caption, fleet, memoryAccounted = true, open, onOpen, sparks, sort, onSort, sortable = [] }: ContainerTableProps) {
  const cols: Col[] = [
    { key: 'name', label: 'Container', cell: (c) => <NameCell c={c} fleet={fleet} open={open} onOpen={onOpen} /> },
    ...(fleet
      ? [{ key: 'device', label: 'Device', cell: (c: Container) => <Link href={`/devices/${encodeURIComponent(c.device_id)}`}>{c.device_name}</Link> }]
      : []),
    {
      key: 'state',
      label: 'State',
      cell: (c) => {
        const why = attentionReasons(c)
        return (
          <div class="vg-ct-state">
            <ToneBadge badge={stateBadge(c)} />
            {why.length > 0 && (
              <span class="vg-ct-why">
                <Icon name="warning" size={12} /> Needs attention: {why.join(', ')}
              </span>
            )}
          </div>
        )
      },
    },
    {
      key: 'health',
      label: 'Health',
      cell: (c) => {
        const b = healthBadge(c.health)
        return b ? <ToneBadge badge={b} /> : <span class="vg-muted">no check</span>
      },
    },
    { key: 'started_at', label: 'Uptime', cell: (c) => <Since c={c} /> },
    { key: 'cpu', label: 'CPU', numeric: true, cell: (c) => <span class="vg-num">{percent(c.cpu_percent)}</span> },
    {
      key: 'memory',
      label: 'Memory',
      numeric: true,
      cell: (c) => {
        const accounted = memoryAccounted && c.memory_accounting
        return <span class={accounted ? 'vg-num' : 'vg-muted vg-ct-note'}>{memoryText(c, accounted)}</span>
      },
    },
    {
      key: 'network',
      label: 'Network',
      numeric: true,
      cell: (c) => (
        <span class="vg-num vg-ct-net">
          <span>
            <span aria-hidden="true">↓ </span>
            <span class="visually-hidden">received </span>
            {bytesPerSecond(c.net_rx_bytes_per_sec)}
          </span>
          <span>
            <span aria-hidden="true">↑ </span>
            <span class="visually-hidden">sent </span>
            {bytesPerSecond(c.net_tx_bytes_per_sec)}
          </span>
        </span>
      ),
    },
  ]
  if (sparks) {
    cols.push({
      key: 'spark',
      label: 'CPU, last hour',
      cell: (c) => {
        const values = sparks[c.container_id] ?? []
        const peak = Math.max(100, ...values.filter((v): v is number => v != null))
        return <Sparkline values={values} max={peak} label={`${c.name} CPU over the last hour, percent`} width={120} height={24} />
      },
    })
  }
  return (
    <div class="table-wrap">
      <table class="table vg-ct-table">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {cols.map((col) => {
              const active = sort?.key === col.key
              return (
                <th
                  key={col.key}
                  scope="col"
                  class={col.numeric ? 'num' : undefined}
                  aria-sort={active ? (sort!.desc ? 'descending' : 'ascending') : undefined}
                >
                  {onSort && sortable.includes(col.key) ? (
                    <button type="button" class="th-sort" onClick={() => onSort(col.key)}>
                      {col.label}
                      <Icon name="chevron-down" size={12} class={active ? (sort!.desc ? '' : 'flip') : 'dim'} />
                    </button>
                  ) : (
                    col.label
                  )}
                </th>
              )
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.container_id} class={`${c.needs_attention ? 'vg-ct-attention' : ''}${open === c.container_id ? ' vg-ct-current' : ''}`}>
              {cols.map((col) => (
                <td key={col.key} class={col.numeric ? 'num' : undefined} data-label={col.label}>
                  {col.cell(c)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
