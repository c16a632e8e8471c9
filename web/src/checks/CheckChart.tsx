import { useMemo } from 'preact/hooks'
import { Chart } from '../charts/Chart'
import { RangePicker } from '../charts/RangePicker'
import { parseZoom, zoomParams } from '../charts/range'
import { api } from '../lib/api'
import { describeError } from '../lib/errors'
import { setSearch, useSearch } from '../lib/router'
import { useLoad } from '../lib/use-load'
import { Banner, Card, Skeleton } from '../ui'
import { CHECK_RANGES, checkWindow, parseCheckRange, responseChart, DEFAULT_CHECK_RANGE } from './check-chart'
import type { CheckSeries } from './types'

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
      <RangePicker range={range} zoom={zoom} keys={CHECK_RANGES} fallback={DEFAULT_CHECK_RANGE} titleOf={(k) => `The last ${k}`} charts="the chart" />
      {series.error ? <Banner tone="error">{describeError(series.error)}</Banner> : null}
      {chart ? (
        <Chart chart={chart} x={x} sync={`check-${checkId}`} onZoom={(z) => setSearch(zoomParams(z))} />
      ) : (
        <Skeleton height={180} label="Loading the chart" />
      )}
    </Card>
  )
}
