import { useMemo } from 'preact/hooks'
import { Chart } from '../charts/Chart'
import { parseZoom, zoomParams } from '../charts/range'
import { api } from '../lib/api'
import { dateTime } from '../lib/format'
import { describeError } from '../lib/errors'
import { setSearch, useSearch } from '../lib/router'
import { useLoad } from '../lib/use-load'
import { Banner, Button, Card, Skeleton } from '../ui'
import { CHECK_RANGES, checkWindow, parseCheckRange, responseChart, DEFAULT_CHECK_RANGE } from './check-chart'
import type { CheckSeries } from './types'

/** The range buttons (`?range=`, kept in the back button's history) and the way out of a zoom. */
function CheckRangePicker({ range, zoom }: { range: string; zoom: [number, number] | null }) {
  return (
    <div class="vg-range">
      <fieldset class="vg-range-buttons">
        <legend class="visually-hidden">Time range</legend>
        {CHECK_RANGES.map((k) => (
          <button
            key={k}
            type="button"
            class={`vg-range-btn${k === range && !zoom ? ' vg-range-current' : ''}`}
            aria-pressed={k === range && !zoom}
            title={`The last ${k}`}
            onClick={() => setSearch({ range: k === DEFAULT_CHECK_RANGE ? null : k, from: null, to: null }, { replace: false })}
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
        <p class="vg-zoom-note vg-muted">Drag across the chart to zoom; double-click to zoom out.</p>
      )}
    </div>
  )
}

/** Response times over the range in the URL, at the resolution the API fits to it; gaps where nothing answered. */
export function CheckChart({ checkId, version }: { checkId: string; version: number }) {
  const search = useSearch()
  const range = parseCheckRange(search.get('range'))
  const zoom = parseZoom(search.get('from'), search.get('to'))
  const series = useLoad(() => api.get<CheckSeries>(`/v1/checks/${encodeURIComponent(checkId)}/series`, { range }), [checkId, range, version])
  const chart = useMemo(() => (series.data ? responseChart(series.data) : null), [series.data])
  const x = zoom ?? checkWindow(range, Date.now())
  return (
    <Card title="Response time">
      <CheckRangePicker range={range} zoom={zoom} />
      {series.error ? <Banner tone="error">{describeError(series.error)}</Banner> : null}
      {chart ? (
        <Chart chart={chart} x={x} sync={`check-${checkId}`} onZoom={(z) => setSearch(zoomParams(z))} />
      ) : (
        <Skeleton height={180} label="Loading the chart" />
      )}
    </Card>
  )
}
