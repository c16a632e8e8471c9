import { useMemo } from 'preact/hooks'
import { summarize, type ChartSpec } from './series'
import { formatUnit } from './units'

const when = (s: number) => new Date(s * 1000).toLocaleString()

/**
 * The text alternative of a chart: per line, the latest value and the low, average and high over
 * the window shown, visually hidden (screen readers read it; the canvas is hidden from them).
 */
export function ChartTable({ chart, x }: { chart: ChartSpec; x: [number, number] }) {
  const rows = useMemo(() => {
    let from = 0
    while (from < chart.t.length && chart.t[from]! < x[0]) from++
    let to = chart.t.length
    while (to > from && chart.t[to - 1]! > x[1]) to--
    return chart.lines.map((l) => {
      const s = summarize(l.values.slice(from, to))
      // on rollups the band holds each bucket's extremes: the lowest and highest actually seen
      if (l.min && l.max) return { ...s, label: l.label, min: summarize(l.min.slice(from, to)).min, max: summarize(l.max.slice(from, to)).max }
      return { ...s, label: l.label }
    })
  }, [chart, x[0], x[1]])
  const f = (v: number | null) => formatUnit(chart.unit, v)
  return (
    // the wrapper hides: a table ignores a 1 px width and would widen a phone's page
    <div class="visually-hidden">
      <table>
        <caption>
          {chart.title}, {when(x[0])} to {when(x[1])}
        </caption>
        <thead>
          <tr>
            <th scope="col">Series</th>
            <th scope="col">Latest</th>
            <th scope="col">Lowest</th>
            <th scope="col">Average</th>
            <th scope="col">Highest</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.label}>
              <th scope="row">{r.label}</th>
              <td>{r.count ? f(r.last) : 'no data'}</td>
              <td>{f(r.min)}</td>
              <td>{f(r.avg)}</td>
              <td>{f(r.max)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
