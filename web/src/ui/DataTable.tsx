import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { Icon } from './Icon'

export interface Column<T> {
  key: string
  label: ComponentChildren
  /** the cell; defaults to row[key] */
  render?: (row: T) => ComponentChildren
  /** makes the column sortable by this value (null sorts last) */
  sortValue?: (row: T) => string | number | null
  align?: 'left' | 'right'
  /** figures: tabular numerals, right-aligned */
  numeric?: boolean
}

interface DataTableProps<T> {
  columns: Column<T>[]
  rows: T[]
  rowKey: (row: T) => string
  /** names the table for screen readers */
  caption: string
  /** shown instead of an empty body */
  empty?: ComponentChildren
  /** controlled sort (e.g. from the URL); otherwise the table keeps its own */
  sort?: { key: string; desc: boolean } | null
  onSort?: (sort: { key: string; desc: boolean }) => void
}

/** A table that scrolls sideways on a phone rather than squeezing; sortable headers are buttons. */
export function DataTable<T>({ columns, rows, rowKey, caption, empty, sort: controlled, onSort }: DataTableProps<T>) {
  const [own, setOwn] = useState<{ key: string; desc: boolean } | null>(null)
  const sort = controlled === undefined ? own : controlled
  const setSort = (key: string) => {
    const next = { key, desc: sort?.key === key ? !sort.desc : false }
    if (onSort) onSort(next)
    else setOwn(next)
  }
  const col = sort ? columns.find((c) => c.key === sort.key) : undefined
  const sorted = col?.sortValue ? [...rows].sort(compareBy(col.sortValue, sort!.desc)) : rows
  if (!rows.length && empty) return <>{empty}</>
  return (
    <div class="table-wrap">
      <table class="table">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => {
              const active = sort?.key === c.key
              const cls = c.numeric || c.align === 'right' ? 'num' : undefined
              return (
                <th key={c.key} scope="col" class={cls} aria-sort={active ? (sort!.desc ? 'descending' : 'ascending') : undefined}>
                  {c.sortValue ? (
                    <button type="button" class="th-sort" onClick={() => setSort(c.key)}>
                      {c.label}
                      <Icon name="chevron-down" size={12} class={active ? (sort!.desc ? '' : 'flip') : 'dim'} />
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              )
            })}
          </tr>
        </thead>
        <tbody>
          {sorted.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.key} class={c.numeric || c.align === 'right' ? 'num' : undefined} data-label={typeof c.label === 'string' ? c.label : undefined}>
                  {c.render ? c.render(row) : String((row as Record<string, unknown>)[c.key] ?? '—')}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function compareBy<T>(value: (row: T) => string | number | null, desc: boolean) {
  return (a: T, b: T) => {
    const x = value(a)
    const y = value(b)
    if (x === y) return 0
    if (x === null) return 1
    if (y === null) return -1
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))
    return desc ? -c : c
  }
}
