import { dateTime } from '../lib/format'
import { setSearch } from '../lib/router'
import { Button } from '../ui'

export interface RangePickerProps {
  /** the range in the URL (`?range=`) */
  range: string
  /** the window a drag made (`?from=&to=`), when there is one */
  zoom: [number, number] | null
  /** the ranges offered, shortest first */
  keys: readonly string[]
  /** the range a URL without `?range=` shows: choosing it drops the parameter */
  fallback: string
  /** each button's title */
  titleOf: (key: string) => string
  /** "a chart" where the page shows several, "the chart" where it shows one */
  charts: 'a chart' | 'the chart'
}

/**
 * The window of a page's charts: a range ending now, as a group of toggle buttons, and the
 * zoom (when a drag made one) with the way back. A range change goes into the back button's history.
 */
export function RangePicker({ range, zoom, keys, fallback, titleOf, charts }: RangePickerProps) {
  return (
    <div class="vg-range">
      <fieldset class="vg-range-buttons">
        <legend class="visually-hidden">Time range</legend>
        {keys.map((k) => (
          <button
            key={k}
            type="button"
            class={`vg-range-btn${k === range && !zoom ? ' vg-range-current' : ''}`}
            aria-pressed={k === range && !zoom}
            title={titleOf(k)}
            onClick={() => setSearch({ range: k === fallback ? null : k, from: null, to: null }, { replace: false })}
          >
            {k}
          </button>
        ))}
      </fieldset>
      {zoom ? (
        <p class="vg-zoom-note">
          Zoomed to {dateTime(new Date(zoom[0] * 1000).toISOString())} – {dateTime(new Date(zoom[1] * 1000).toISOString())}{' '}
          <Button small onClick={() => setSearch({ from: null, to: null })}>
            Reset zoom
          </Button>
        </p>
      ) : (
        <p class="vg-zoom-note vg-muted">Drag across {charts} to zoom; double-click to zoom out.</p>
      )}
    </div>
  )
}
