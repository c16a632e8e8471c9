import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import './charts.css'
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks'
import { toAligned, type ChartSpec } from './series'
import { chartTheme, useThemeVersion, withAlpha, type ChartTheme } from './theme'
import { formatTicks, formatUnit } from './units'
import { ChartTable } from './ChartTable'

/** A line across a chart at a value an alert rule watches. */
export interface Threshold {
  value: number
  label: string
  severity?: 'warning' | 'critical'
}

export interface ChartProps {
  chart: ChartSpec
  /** the window in unix seconds, the same for every chart of a device */
  x: [number, number]
  /** charts with the same key share the cursor (one device's page) */
  sync: string
  /** a drag selected this window; null: a double-click asked for the whole range */
  onZoom?: (zoom: [number, number] | null) => void
  thresholds?: Threshold[]
  /** called once, after the first draw (the page measures how long its charts took) */
  onDrawn?: () => void
  height?: number
}

export const CHART_HEIGHT = 180
const NO_THRESHOLDS: Threshold[] = []
const Y_AXIS_MIN = 84

/** The last value of a column that is not null (the legend shows it while no cursor is on the chart). */
function lastValue(col: ArrayLike<number | null | undefined>): number | null {
  for (let i = col.length - 1; i >= 0; i--) {
    const v = col[i]
    if (v != null) return v
  }
  return null
}

const creations: (() => void)[] = []
/**
 * Runs `create` after every chart rendered in this pass has measured its box: all the reads
 * first, then all the writes, so adding ten charts lays the page out once, not ten times.
 */
function afterReads(create: () => void): void {
  if (creations.push(create) === 1)
    queueMicrotask(() => {
      for (const f of creations.splice(0)) f()
    })
}

/** Structure that needs a new plot when it changes (uPlot's series are fixed at creation). */
const shapeOf = (c: ChartSpec) => `${c.unit}|${c.lines.map((l) => `${l.name}${l.min ? '±' : ''}`).join(',')}`

function yRange(chart: ChartSpec, thresholds: () => Threshold[]): uPlot.Scale.Range {
  if (chart.y) {
    const [lo, hi] = chart.y
    return (_u, _min, max) => [lo, Math.max(hi, max ?? hi)]
  }
  return (_u, min, max) => {
    const limits = thresholds().map((t) => t.value)
    let lo = Math.min(min ?? 0, ...limits)
    let hi = Math.max(max ?? 1, ...limits)
    if (chart.zero) lo = Math.min(0, lo)
    if (hi === lo) hi = lo + 1
    return uPlot.rangeNum(lo, hi, 0.1, true) as [number, number]
  }
}

function thresholdPlugin(thresholds: () => Threshold[], theme: ChartTheme): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const list = thresholds()
        if (list.length === 0) return
        const { ctx, bbox } = u
        ctx.save()
        ctx.setLineDash([6, 4])
        ctx.lineWidth = Math.max(1, devicePixelRatio)
        ctx.font = theme.font.replace(/^\d+px/, `${Math.round(11 * devicePixelRatio)}px`)
        ctx.textAlign = 'right'
        ctx.textBaseline = 'bottom'
        for (const t of list) {
          const y = Math.round(u.valToPos(t.value, 'y', true))
          if (y < bbox.top || y > bbox.top + bbox.height) continue
          const color = t.severity === 'critical' ? theme.threshold.critical : theme.threshold.warning
          ctx.strokeStyle = color
          ctx.fillStyle = color
          ctx.beginPath()
          ctx.moveTo(bbox.left, y)
          ctx.lineTo(bbox.left + bbox.width, y)
          ctx.stroke()
          ctx.fillText(t.label, bbox.left + bbox.width - 4, y - 2)
        }
        ctx.restore()
      },
    },
  }
}

function options(
  chart: ChartSpec,
  width: number,
  height: number,
  theme: ChartTheme,
  sync: string,
  live: { x: () => [number, number]; thresholds: () => Threshold[]; zoom: (z: [number, number] | null) => void; drawn: () => void },
): uPlot.Options {
  const fmt = (v: number | null) => formatUnit(chart.unit, v)
  const legendValue = (u: uPlot, v: number | null, sidx: number, idx: number | null) => fmt(idx == null ? lastValue(u.data[sidx]!) : v)
  const colour = (i: number) => theme.series[i % theme.series.length]!
  const series: uPlot.Series[] = [
    { label: 'Time', value: (_u, v, _s, idx) => (idx == null || v == null ? 'latest values' : new Date(v * 1000).toLocaleString()) },
  ]
  chart.lines.forEach((l, i) => {
    // points: uPlot's default shows them only while they are sparse (a device that just started)
    series.push({ label: l.label, stroke: colour(i), width: 1.5, spanGaps: false, value: legendValue })
  })
  const bands: uPlot.Band[] = []
  chart.lines.forEach((l, i) => {
    if (!l.min || !l.max) return
    const band = { stroke: 'transparent', width: 0, spanGaps: false, points: { show: false }, value: legendValue, class: 'vg-band' }
    series.push({ ...band, label: `${l.label} max` }, { ...band, label: `${l.label} min` })
    bands.push({ series: [series.length - 2, series.length - 1], fill: withAlpha(colour(i), 0.18) })
  })
  let drawn = false
  const axis = { stroke: theme.axis, font: theme.font, grid: { stroke: theme.grid, width: 1 }, ticks: { stroke: theme.grid, width: 1 } }
  return {
    width,
    height,
    series,
    bands,
    legend: { live: true },
    cursor: {
      // the cursor is shared; a drag is not: each chart's plot width differs a little, so a mirrored
      // drag would report a slightly different window per chart. The page applies the one zoom to all.
      sync: { key: sync, filters: { pub: (type) => type !== 'mousedown' && type !== 'mouseup' && type !== 'dblclick' } },
      drag: { x: true, y: false, setScale: false },
      // double-click asks the page for the whole range instead of uPlot's fit-to-data
      bind: {
        dblclick: () => () => {
          live.zoom(null)
          return null
        },
      },
    },
    scales: {
      x: { time: true, range: () => live.x() },
      y: { range: yRange(chart, live.thresholds) },
    },
    axes: [
      { ...axis, space: 70 },
      {
        ...axis,
        // wide enough for the longest tick label ("12.5 Mbps"), measured in the axis font
        size: (u, values) => {
          if (!values?.length) return Y_AXIS_MIN
          // uPlot caches the canvas font it last set: measure inside save/restore to leave it as found
          u.ctx.save()
          u.ctx.font = theme.font
          const widest = Math.max(...values.map((v) => u.ctx.measureText(v ?? '').width))
          u.ctx.restore()
          // at least Y_AXIS_MIN, so the plots of one column line up unless a label needs more
          return Math.max(Y_AXIS_MIN, Math.ceil(widest) + 18)
        },
        values: (_u, splits) => formatTicks(chart.unit, splits),
      },
    ],
    plugins: [thresholdPlugin(live.thresholds, theme)],
    hooks: {
      setSelect: [
        (u) => {
          const { left, width: w } = u.select
          if (w < 4) return
          live.zoom([u.posToVal(left, 'x'), u.posToVal(left + w, 'x')])
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
        },
      ],
      draw: [
        () => {
          if (drawn) return
          drawn = true
          live.drawn()
        },
      ],
    },
  }
}

/**
 * A uPlot time-series chart: one of a device's column of charts. The page owns the window (range
 * or zoom, kept in the URL); the chart reports drags and double-clicks and follows the window.
 * Screen readers get the numbers behind it in a table instead of the canvas.
 */
export function Chart({ chart, x, sync, onZoom, thresholds = NO_THRESHOLDS, onDrawn, height = CHART_HEIGHT }: ChartProps) {
  const box = useRef<HTMLDivElement>(null)
  const plot = useRef<uPlot | null>(null)
  const shape = useRef('')
  const themeVersion = useThemeVersion()
  // uPlot keeps the closures it was made with: they read the newest props through this ref
  const latest = useRef({ x, thresholds, onZoom, onDrawn })
  latest.current = { x, thresholds, onZoom, onDrawn }

  // (re)create when the lines or the theme change; otherwise only the data moves
  useLayoutEffect(() => {
    const el = box.current!
    const next = shapeOf(chart)
    if (plot.current && shape.current === next) {
      plot.current.setData(toAligned(chart) as uPlot.AlignedData)
      return
    }
    plot.current?.destroy()
    plot.current = null
    shape.current = next
    const live = {
      x: () => latest.current.x,
      thresholds: () => latest.current.thresholds,
      zoom: (z: [number, number] | null) => latest.current.onZoom?.(z),
      drawn: () => latest.current.onDrawn?.(),
    }
    const width = el.clientWidth || 600
    const theme = chartTheme()
    let cancelled = false
    afterReads(() => {
      if (cancelled) return
      plot.current = new uPlot(options(chart, width, height, theme, sync, live), toAligned(chart) as uPlot.AlignedData, el)
    })
    return () => {
      cancelled = true
    }
  }, [chart, themeVersion, height, sync])

  useEffect(() => () => plot.current?.destroy(), [])

  useEffect(() => {
    plot.current?.setScale('x', { min: x[0], max: x[1] })
  }, [x[0], x[1]])

  useEffect(() => {
    plot.current?.redraw(false, false)
  }, [thresholds])

  useEffect(() => {
    const el = box.current!
    const observer = new ResizeObserver(() => {
      const w = el.clientWidth
      if (plot.current && w > 0 && w !== plot.current.width) plot.current.setSize({ width: w, height })
    })
    observer.observe(el)
    return () => observer.disconnect()
  }, [height])

  return (
    <figure class="vg-chart" aria-labelledby={`chart-${chart.id}`}>
      <figcaption id={`chart-${chart.id}`} class="vg-chart-title">
        {chart.title}
      </figcaption>
      <div ref={box} class="vg-chart-plot" aria-hidden="true" />
      <ChartTable chart={chart} x={x} />
    </figure>
  )
}
