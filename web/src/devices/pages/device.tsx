import { useEffect, useMemo, useState } from 'preact/hooks'
import '../monitor.css'
import { DEFAULT_RANGE, parseRange, parseZoom, RANGE_KEYS, RANGE_LABELS, type RangeKey } from '../../charts/range'
import { DeviceCharts } from '../DeviceCharts'
import { DeviceContainers } from '../DeviceContainers'
import { DeviceDisks } from '../DeviceDisks'
import { DeviceHeader, type Device, type HardwareFacts } from '../DeviceHeader'
import { DeviceRecommendations } from '../DeviceRecommendations'
import type { Page as AlertPage, AlertView } from '../../alerts/types'
import type { SeriesResponse } from '../../charts/series'
import type { DeviceFacts } from '../DeviceHeader'
import type { DeletedEvent, SampleEvent, StatusEvent } from '../live-types'
import { RangePicker } from '../../charts/RangePicker'
import { chartThresholds, deviceThresholds, type ThresholdLine } from '../../lib/alerts'
import { ApiError, api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { onLive } from '../../lib/live'
import { navigate, useSearch } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { Banner, ButtonLink, EmptyState, PageHeader, Skeleton } from '../../ui'

export default function Page({ params }: { params: Record<string, string> }) {
  const deviceId = params.id ?? ''
  const search = useSearch()
  const range = parseRange(search.get('range'))
  const zoom = parseZoom(search.get('from'), search.get('to'))
  const [device, setDevice] = useState<Device | null>(null)
  const [hardware, setHardware] = useState<HardwareFacts | null>(null)
  const [facts, setFacts] = useState<DeviceFacts | null>(null)
  const [error, setError] = useState<unknown>(null)
  // the alert rules watching this device, drawn as lines on the charts of their series
  const [lines, setLines] = useState<ThresholdLine[]>([])
  const tagKey = device?.tags.join(',') ?? null
  useEffect(() => {
    if (!device) return
    let live = true
    deviceThresholds({ id: device.device_id, tags: device.tags }).then(
      (l) => live && setLines(l),
      () => live && setLines([]),
    )
    return () => {
      live = false
    }
  }, [device?.device_id, tagKey])
  const thresholds = useMemo(() => (lines.length ? chartThresholds(lines) : undefined), [lines])

  useEffect(() => {
    let live = true
    const id = encodeURIComponent(deviceId)
    setDevice(null)
    setError(null)
    api
      .get<Device>(`/v1/clients/me/devices/${id}`)
      .then((d) => live && setDevice(d))
      .catch((err) => live && setError(err))
    api
      .get<HardwareFacts>(`/v1/metrics/hardware/${id}/latest`)
      .then((h) => live && setHardware(h))
      .catch(() => live && setHardware(null))
    // this device's own figures, not the whole fleet's: its reporting interval (the raw series'
    // step is the median gap of its recent samples, as the dashboard measures it) and its alerts firing
    const loadInterval = () =>
      api
        .get<SeriesResponse>(`/v1/metrics/series/${id}`, {
          kind: 'hardware',
          fields: 'cpu_percent',
          resolution: 'raw',
          start: new Date(Date.now() - 60_000).toISOString(),
        })
        .then((r) => live && setFacts((f) => ({ alerts_firing: f?.alerts_firing ?? 0, interval_seconds: r.step_seconds > 0 ? r.step_seconds : null })))
        .catch(() => undefined)
    const loadAlerts = () =>
      api
        .get<AlertPage<AlertView>>('/v1/alerts', { device_id: deviceId, state: 'firing', limit: 1 })
        .then((p) => live && setFacts((f) => ({ interval_seconds: f?.interval_seconds ?? null, alerts_firing: p.total })))
        .catch(() => undefined)
    void loadInterval()
    void loadAlerts()
    const offs = [
      onLive<StatusEvent>('device.status', ({ data }) => {
        if (data.device_id !== deviceId) return
        setDevice((d) => d && { ...d, last_seen_at: data.last_seen_at ?? d.last_seen_at })
        // back from a silence: its interval may be measured now
      }),
      onLive<StatusEvent>('device.status', ({ data }) => {
        if (data.device_id === deviceId && data.status === 'online') void loadInterval()
      }),
      ...['alert.firing', 'alert.resolved', 'reset'].map((type) => onLive(type, () => void loadAlerts())),
      onLive<SampleEvent>('sample', ({ data }) => {
        if (data.device_id !== deviceId) return
        setDevice((d) => d && { ...d, last_seen_at: data.recorded_at })
        if (data.kind === 'hardware' && typeof data.values.cpu_brand === 'string') setHardware((h) => ({ ...h, ...(data.values as HardwareFacts) }))
      }),
      onLive<DeletedEvent>('device.deleted', ({ data }) => {
        if (data.device_id === deviceId) navigate('/dashboard', { replace: true })
      }),
    ]
    return () => {
      live = false
      for (const off of offs) off()
    }
  }, [deviceId])

  if (error) {
    const gone = error instanceof ApiError && error.status === 404
    return (
      <>
        <PageHeader title={gone ? 'Device not found' : 'Device'} />
        {gone ? (
          <EmptyState title="This device does not exist" action={<ButtonLink href="/dashboard">Back to the dashboard</ButtonLink>}>
            It may have been deleted, or it belongs to another account.
          </EmptyState>
        ) : (
          <Banner tone="error">{describeError(error)}</Banner>
        )}
      </>
    )
  }

  return (
    <div class="vg-device-page">
      {device ? (
        <DeviceHeader device={device} hardware={hardware} facts={facts} canEdit={canAdmin.value} onChange={setDevice} />
      ) : (
        <div class="vg-device-header-skeleton">
          <Skeleton height={36} width="40%" label="Loading the device" />
          <Skeleton height={56} />
        </div>
      )}
      <RangePicker
        range={range}
        zoom={zoom}
        keys={RANGE_KEYS}
        fallback={DEFAULT_RANGE}
        titleOf={(k) => `The last ${RANGE_LABELS[k as RangeKey]}`}
        charts="a chart"
      />
      <DeviceCharts deviceId={deviceId} range={range} zoom={zoom} thresholds={thresholds} />
      <DeviceContainers deviceId={deviceId} range={range} zoom={zoom} selected={search.get('container')} />
      <DeviceDisks deviceId={deviceId} />
      <DeviceRecommendations deviceId={deviceId} canGenerate={canAdmin.value} />
    </div>
  )
}
