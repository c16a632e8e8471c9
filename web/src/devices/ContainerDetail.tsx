import { useEffect, useMemo, useState } from 'preact/hooks'
import { Chart, CHART_HEIGHT } from '../charts/Chart'
import { RANGE_LABELS, windowFor, windowQuery, zoomParams, type RangeKey } from '../charts/range'
import type { ChartSpec } from '../charts/series'
import { containerCharts } from '../containers/container-charts'
import { eventText, eventTone, NOT_ACCOUNTED } from '../containers/containers'
import type { Container, ContainerEvent, ContainerEvents, ContainerSeries } from '../containers/types'
import { api } from '../lib/api'
import { describeError } from '../lib/errors'
import { onLive } from '../lib/live'
import { setSearch } from '../lib/router'
import { Banner, Button, Panel, Skeleton, Time } from '../ui'
import type { SampleEvent } from './live-types'

const EVENTS_PAGE = 20
/** a window that ends now is read again at most this often while the device sends blocks */
const REFRESH_MS = 30_000

export interface ContainerDetailProps {
  deviceId: string
  container: Container
  range: RangeKey
  zoom: [number, number] | null
  memoryAccounted: boolean
}

/**
 * One container's charts under the device's: the same window (range or zoom from the URL) and the
 * same cursor (sync key: the device), so a spike lines up with the device's own; then its state
 * history, newest first.
 */
export function ContainerDetail({ deviceId, container, range, zoom, memoryAccounted }: ContainerDetailProps) {
  const [series, setSeries] = useState<ContainerSeries | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [version, setVersion] = useState(0)
  const [win, setWin] = useState(() => windowFor(range, zoom, Date.now()))
  const base = `/v1/devices/${encodeURIComponent(deviceId)}/containers/${encodeURIComponent(container.container_id)}`
  const zoomKey = zoom ? `${zoom[0]}-${zoom[1]}` : ''

  useEffect(() => {
    const ctrl = new AbortController()
    const w = windowFor(range, zoom, Date.now())
    setWin(w)
    api
      .get<ContainerSeries>(`${base}/series`, windowQuery(w), { signal: ctrl.signal })
      .then((s) => {
        setSeries(s)
        setError(null)
      })
      .catch((err) => !ctrl.signal.aborted && setError(describeError(err)))
    return () => ctrl.abort()
  }, [base, range, zoomKey, version])

  // a window that ends now follows the device's blocks, read again at most every REFRESH_MS
  useEffect(() => {
    if (zoom) return
    let last = Date.now()
    return onLive<SampleEvent>('sample', ({ data }) => {
      if (data.device_id !== deviceId || Date.now() - last < REFRESH_MS) return
      last = Date.now()
      setVersion((v) => v + 1)
    })
  }, [deviceId, zoomKey])

  const charts: ChartSpec[] | null = useMemo(
    () => (series ? containerCharts(container.container_id, series, memoryAccounted) : null),
    [series, memoryAccounted],
  )
  const x: [number, number] = useMemo(() => [win.start, win.end], [win.start, win.end])
  const onZoom = (z: [number, number] | null) => setSearch(zoomParams(z))

  return (
    <Panel label={`Container ${container.name}`}>
      <div class="vg-ct-detail">
        <div class="vg-ct-detail-head">
          <h3 class="vg-ct-detail-title">{container.name}</h3>
          <Button small onClick={() => setSearch({ container: null }, { replace: false })}>
            Close
          </Button>
        </div>
        <p class="vg-muted vg-ct-meta">
          {container.image} · engine id <code>{container.engine_id.slice(0, 12)}</code> · restarts {container.restart_count}
          {container.pids !== null && <> · {container.pids} processes</>}
        </p>
        {Object.keys(container.labels).length > 0 && (
          <ul class="vg-tags" aria-label="Labels">
            {Object.entries(container.labels).map(([k, v]) => (
              <li key={k} class="vg-tag">
                {k}={v}
              </li>
            ))}
          </ul>
        )}
        {!memoryAccounted && <p class="vg-muted">No memory chart: {NOT_ACCOUNTED} (the kernel keeps no cgroup memory accounting).</p>}
        {error && <Banner tone="error">The container’s charts could not be loaded: {error}</Banner>}
        {!charts && !error && <Skeleton height={CHART_HEIGHT + 32} label="Loading the container’s charts" />}
        {charts && charts.length === 0 && (
          <p class="vg-muted">
            {zoom
              ? 'No figures in this part of the range.'
              : `No figures in the last ${RANGE_LABELS[range]}: the container did not run, or the collector sent none.`}
          </p>
        )}
        {charts && charts.length > 0 && (
          <div class="vg-charts vg-ct-charts">
            {charts.map((c) => (
              <Chart key={c.id} chart={c} x={x} sync={deviceId} onZoom={onZoom} height={140} />
            ))}
          </div>
        )}
        <ContainerHistory base={base} name={container.name} />
      </div>
    </Panel>
  )
}

function ContainerHistory({ base, name }: { base: string; name: string }) {
  const [items, setItems] = useState<ContainerEvent[] | null>(null)
  const [total, setTotal] = useState(0)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const load = async (offset: number) => {
    setBusy(true)
    try {
      const page = await api.get<ContainerEvents>(`${base}/events`, { limit: EVENTS_PAGE, offset })
      setItems((old) => (offset === 0 ? page.items : [...(old ?? []), ...page.items]))
      setTotal(page.total)
      setError(null)
    } catch (err) {
      setError(describeError(err))
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => {
    setItems(null)
    void load(0)
  }, [base])

  return (
    <section class="vg-ct-history" aria-label={`State history of ${name}`}>
      <h4 class="vg-ct-history-title">State history</h4>
      {error && <Banner tone="error">The state history could not be loaded: {error}</Banner>}
      {!items && !error && <Skeleton lines={3} label="Loading the state history" />}
      {items && items.length === 0 && <p class="vg-muted">No change of state recorded yet.</p>}
      {items && items.length > 0 && (
        <ol class="vg-ct-events">
          {items.map((e, i) => (
            <li key={`${e.at}-${e.kind}-${i}`} class={`vg-ct-event vg-ct-event-${eventTone(e.kind, e.exit_code)}`}>
              <Time iso={e.at} />
              <span>{eventText(e)}</span>
            </li>
          ))}
        </ol>
      )}
      {items && items.length < total && (
        <Button small loading={busy} onClick={() => void load(items.length)}>
          Show older ({total - items.length} more)
        </Button>
      )}
    </section>
  )
}
