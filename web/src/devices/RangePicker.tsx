import { RANGE_KEYS, RANGE_LABELS, type RangeKey } from '../charts/range'
import { dateTime } from '../lib/format'
import { setSearch } from '../lib/router'
import { Button } from '../ui'

/**
 * The window of the device's charts: a range ending now, as a group of toggle buttons, and the
 * zoom (when a drag made one) with the way back. A range change goes into the back button's history.
 */
export function RangePicker({ range, zoom }: { range: RangeKey; zoom: [number, number] | null }) {
  return (
    <div class="vg-range">
      <fieldset class="vg-range-buttons">
        <legend class="visually-hidden">Time range</legend>
        {RANGE_KEYS.map((k) => (
          <button
            key={k}
            type="button"
            class={`vg-range-btn${k === range && !zoom ? ' vg-range-current' : ''}`}
            aria-pressed={k === range && !zoom}
            title={`The last ${RANGE_LABELS[k]}`}
            onClick={() => setSearch({ range: k === '1h' ? null : k, from: null, to: null }, { replace: false })}
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
        <p class="vg-zoom-note vg-muted">Drag across a chart to zoom; double-click to zoom out.</p>
      )}
    </div>
  )
}
