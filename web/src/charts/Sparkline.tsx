import { useMemo } from 'preact/hooks'
import { sparkPath } from './spark'

export interface SparklineProps {
  values: (number | null)[]
  /** the fixed y range (CPU: 0..100), so two devices' lines compare */
  min?: number
  max?: number
  /** what the line shows, for screen readers ("CPU over the last hour") */
  label: string
  width?: number
  height?: number
}

/** A one-line SVG trend (the dashboard's CPU hour); its colour is the text colour around it. */
export function Sparkline({ values, min = 0, max = 100, label, width = 120, height = 28 }: SparklineProps) {
  const d = useMemo(() => sparkPath(values, width, height - 2, min, max), [values, width, height, min, max])
  const known = values.filter((v): v is number => v != null)
  const summary = known.length ? `${label}: lowest ${Math.round(Math.min(...known))}, highest ${Math.round(Math.max(...known))}` : `${label}: no data`
  return (
    <svg class="vg-spark" width={width} height={height} viewBox={`0 -1 ${width} ${height}`} role="img" aria-label={summary} preserveAspectRatio="none">
      <line class="vg-spark-base" x1="0" x2={width} y1={height - 1.5} y2={height - 1.5} />
      {d && (
        <path d={d} fill="none" stroke="currentColor" stroke-width="1.5" vector-effect="non-scaling-stroke" stroke-linejoin="round" stroke-linecap="round" />
      )}
    </svg>
  )
}
