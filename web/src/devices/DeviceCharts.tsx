import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { Chart, CHART_HEIGHT, type Threshold } from '../charts/Chart'
import { RANGE_LABELS, windowFor, windowQuery, zoomParams, type RangeKey, type Window } from '../charts/range'
import { appendPoint, buildCharts, flattenSample, HARDWARE_FIELDS, NETWORK_FIELDS, type ChartSpec, type SeriesResponse, type Section } from '../charts/series'
import { api } from '../lib/api'
import { describeError } from '../lib/errors'
import { onLive } from '../lib/live'
import { setSearch } from '../lib/router'
import { Banner, Button, EmptyState, Skeleton } from '../ui'
import type { SampleEvent } from './live-types'

const SECTIONS: Section[] = ['CPU', 'Memory', 'Disk', 'Sensors', 'GPU', 'Network']
/** How often a window that ends now slides along when no sample moves it. */
const SLIDE_MS = 15_000
/**
 * Live samples carry the hot fields only, and on a rollup level they are merged into the newest
 * bucket approximately: a quiet refetch this often, while samples keep coming, brings the nested
 * families (per core, partitions, sensors) and the exact buckets.
 */
const CATCH_UP_MS = 60_000

export interface DeviceChartsProps {
  deviceId: string
  range: RangeKey
  zoom: [number, number] | null
  /** alert thresholds by series name (cpu_percent, disk_partitions:/, …): drawn on the charts that show them */
  thresholds?: Record<string, Threshold[]> | ((series: string) => Threshold[])
}

/** Marks the page reads to time its charts (the bench prints the measure). */
export const MARK_DATA = 'vigil:charts:data'
export const MARK_DRAWN = 'vigil:charts:drawn'
export const MEASURE = 'vigil:charts'

function fetchSeries(deviceId: string, w: Window, signal: AbortSignal) {
  const get = (kind: 'hardware' | 'network', fields: string[]) =>
    api.get<SeriesResponse>(`/v1/metrics/series/${encodeURIComponent(deviceId)}`, { kind, fields: fields.join(','), ...windowQuery(w) }, { signal })
  return Promise.all([get('hardware', HARDWARE_FIELDS), get('network', NETWORK_FIELDS)])
}

/**
 * A device's charts in one column, grouped like Node Exporter Full. The window comes from the URL;
 * while it ends now, samples from the live stream join the charts (raw resolution) or bring the
 * next rollup bucket (coarser ones) without reloading the rest.
 */
export function DeviceCharts({ deviceId, range, zoom, thresholds }: DeviceChartsProps) {
  const [charts, setCharts] = useState<ChartSpec[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [win, setWin] = useState<Window>(() => windowFor(range, zoom, Date.now()))
  const [reloads, setReloads] = useState(0)
  const meta = useRef({ resolution: 'raw', step: 0 })
  const drawn = useRef(new Set<string>())

  const zoomKey = zoom ? `${zoom[0]}-${zoom[1]}` : ''
  useEffect(() => {
    const ctrl = new AbortController()
    const w = windowFor(range, zoom, Date.now())
    setWin(w)
    setError(null)
    fetchSeries(deviceId, w, ctrl.signal)
      .then(([hw, net]) => {
        performance.clearMarks(MARK_DATA)
        performance.clearMarks(MARK_DRAWN)
        performance.clearMeasures(MEASURE)
        performance.mark(MARK_DATA)
        drawn.current = new Set()
        meta.current = { resolution: hw.resolution, step: hw.step_seconds }
        setCharts(buildCharts(hw, net))
      })
      .catch((err) => {
        if (!ctrl.signal.aborted) setError(describeError(err))
      })
    return () => ctrl.abort()
  }, [deviceId, range, zoomKey, reloads])

  // live: only a window that ends now takes new points
  useEffect(() => {
    if (!win.live) return
    const seconds = win.end - win.start
    const slide = () => {
      const end = Math.floor(Date.now() / 1000)
      setWin({ start: end - seconds, end, live: true })
      return end
    }
    let sampled = false
    const off = onLive<SampleEvent>('sample', ({ data }) => {
      if (data.device_id !== deviceId) return
      // raw: the sample is a point; a rollup level: it joins the newest bucket until the
      // minute's catch-up reads the exact buckets again
      const { resolution, step } = meta.current
      const bucket = resolution === 'raw' ? 0 : step
      const end = slide()
      sampled = true
      const t = Math.floor(Date.parse(data.recorded_at) / 1000)
      const sample = flattenSample(data.values)
      setCharts((list) => {
        if (!list) return list
        let changed = false
        const next = list.map((c) => {
          const moved = appendPoint(c, t, sample, end - seconds, bucket)
          if (moved) changed = true
          return moved ?? c
        })
        return changed ? next : list
      })
    })
    // the stream could not replay what this page missed: read the window again
    const offReset = onLive('reset', () => setReloads((n) => n + 1))
    const timer = setInterval(slide, SLIDE_MS)
    const catchUp = setInterval(() => {
      if (!sampled) return
      sampled = false
      setReloads((n) => n + 1)
    }, CATCH_UP_MS)
    return () => {
      off()
      offReset()
      clearInterval(timer)
      clearInterval(catchUp)
    }
  }, [deviceId, win.live, win.end - win.start])

  const onZoom = (z: [number, number] | null) => setSearch(zoomParams(z))
  const x: [number, number] = useMemo(() => [win.start, win.end], [win.start, win.end])
  const onDrawn = (id: string) => {
    drawn.current.add(id)
    performance.mark(`vigil:chart:${id}`)
    if (charts && drawn.current.size === charts.length && performance.getEntriesByName(MARK_DRAWN).length === 0) {
      performance.mark(MARK_DRAWN)
      performance.measure(MEASURE, MARK_DATA, MARK_DRAWN)
    }
  }

  if (error) return <Banner tone="error">The charts could not be loaded: {error}</Banner>
  if (!charts) {
    return (
      <div class="vg-charts" aria-busy="true">
        {[1, 2, 3, 4].map((k) => (
          <div key={k} class="vg-chart">
            <Skeleton width="30%" height={18} label="Loading charts" />
            <Skeleton height={CHART_HEIGHT + 32} />
          </div>
        ))}
      </div>
    )
  }
  if (charts.length === 0) {
    return (
      <EmptyState
        title={zoom ? 'No data in this part of the range' : `No data in the last ${RANGE_LABELS[range]}`}
        action={zoom ? <Button onClick={() => onZoom(null)}>Show the whole range</Button> : undefined}
      >
        {zoom ? 'The device sent nothing between these times.' : 'Charts appear as soon as the device sends samples; a longer range may show older ones.'}
      </EmptyState>
    )
  }
  return (
    <div class="vg-charts">
      {SECTIONS.map((section) => {
        const inSection = charts.filter((c) => c.section === section)
        if (inSection.length === 0) return null
        return (
          <section key={section} class="vg-chart-section" aria-label={section}>
            <h2 class="vg-section-title">{section}</h2>
            {inSection.map((c) => (
              <Chart
                key={c.id}
                chart={c}
                x={x}
                sync={deviceId}
                onZoom={onZoom}
                onDrawn={() => onDrawn(c.id)}
                thresholds={
                  thresholds ? c.lines.flatMap((l) => (typeof thresholds === 'function' ? thresholds(l.name) : (thresholds[l.name] ?? []))) : undefined
                }
              />
            ))}
          </section>
        )
      })}
    </div>
  )
}
