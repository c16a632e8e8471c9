import '../containers/containers.css'
import { useEffect, useMemo, useState } from 'preact/hooks'
import type { RangeKey } from '../charts/range'
import { deviceOrder, engineAdvice } from '../containers/containers'
import { ContainerTable } from '../containers/ContainerTable'
import type { DeviceContainers as DeviceContainersAnswer } from '../containers/types'
import { api } from '../lib/api'
import { onLive } from '../lib/live'
import { setSearch } from '../lib/router'
import { Banner, Card, LoadError, Skeleton, Time } from '../ui'
import { ContainerDetail } from './ContainerDetail'
import type { SampleEvent } from './live-types'

/** the list is read again at most this often while the device sends blocks */
const REFRESH_MS = 15_000

const ENGINE_NAMES = { docker: 'Docker', podman: 'Podman', cgroup: 'cgroup files' } as const

/**
 * The device's containers: what its collector last said of the engine (or why it sees none and
 * what to do), each container's state, health, uptime and figures, and a click opens its charts
 * (?container= in the URL) under the device's, in the same window.
 */
export function DeviceContainers({
  deviceId,
  range,
  zoom,
  selected,
}: {
  deviceId: string
  range: RangeKey
  zoom: [number, number] | null
  selected: string | null
}) {
  const [data, setData] = useState<DeviceContainersAnswer | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [version, setVersion] = useState(0)
  const id = encodeURIComponent(deviceId)

  useEffect(() => {
    let live = true
    api
      .get<DeviceContainersAnswer>(`/v1/devices/${id}/containers`)
      .then((d) => {
        if (!live) return
        setData(d)
        setError(null)
      })
      .catch((err) => live && setError(err))
    return () => {
      live = false
    }
  }, [deviceId, version])

  // the collector sends its containers with its samples: a sample is when the list may have changed
  useEffect(() => {
    let last = Date.now()
    const offs = [
      onLive<SampleEvent>('sample', ({ data: s }) => {
        if (s.device_id !== deviceId || Date.now() - last < REFRESH_MS) return
        last = Date.now()
        setVersion((v) => v + 1)
      }),
      onLive('reset', () => setVersion((v) => v + 1)),
    ]
    return () => {
      for (const off of offs) off()
    }
  }, [deviceId])

  const rows = useMemo(() => (data ? deviceOrder(data.items) : null), [data])
  const open = rows?.find((c) => c.container_id === selected) ?? null
  const engine = data?.engine ?? null
  const accounted = engine?.memory_accounting ?? true
  const attention = rows?.filter((c) => c.needs_attention).length ?? 0

  const title = (
    <>
      Containers
      {rows && rows.length > 0 && (
        <span class="vg-ct-count">
          {' '}
          · {rows.filter((c) => c.state === 'running').length} of {rows.length} running
          {attention > 0 && ` · ${attention} ${attention === 1 ? 'needs' : 'need'} attention`}
        </span>
      )}
    </>
  )

  return (
    <Card title={title} class="vg-device-containers">
      {error !== null && <LoadError error={error} retry={() => setVersion((v) => v + 1)} />}
      {!data && error === null && <Skeleton lines={3} label="Loading the containers" />}
      {data && !engine && (
        <p class="vg-muted">
          This device has sent no containers. A collector of this hub’s version sends the Docker or Podman containers it can see with each sample (collectors
          update themselves from the hub); a machine without either has none to send.
        </p>
      )}
      {engine && (
        <p class="vg-ct-engine vg-muted">
          {engine.kind ? (
            <>
              {ENGINE_NAMES[engine.kind]} {engine.version}
              {engine.api_version ? ` (API ${engine.api_version})` : ''}
            </>
          ) : (
            'No container engine'
          )}{' '}
          · as of <Time iso={engine.recorded_at} relative />
        </p>
      )}
      {engine && !engine.kind && (
        <Banner tone="warning">
          The collector sees no containers: {engine.unavailable_reason ?? 'it found no container engine'}. {engineAdvice(engine.unavailable_reason)}
        </Banner>
      )}
      {engine?.kind && !accounted && (
        <Banner tone="info">
          Memory is not accounted on this machine: its kernel keeps no cgroup memory accounting (Raspberry Pi OS by default), so containers’ memory is not
          measured. Add <code>cgroup_enable=memory</code> to <code>/boot/firmware/cmdline.txt</code> and reboot to measure it.
        </Banner>
      )}
      {engine?.kind && rows && rows.length === 0 && <p class="vg-muted">The engine answers, and lists no container.</p>}
      {rows && rows.length > 0 && (
        <ContainerTable
          rows={rows}
          caption={`Containers of this device${open ? `; charts of ${open.name} open below` : ''}`}
          memoryAccounted={accounted}
          open={open?.container_id ?? null}
          onOpen={(c) => setSearch({ container: open?.container_id === c.container_id ? null : c.container_id }, { replace: false })}
          sparks={data?.cpu_spark ?? {}}
        />
      )}
      {open && <ContainerDetail key={open.container_id} deviceId={deviceId} container={open} range={range} zoom={zoom} memoryAccounted={accounted} />}
      {data && selected && !open && <Banner tone="info">The container in this link is no longer listed on this device.</Banner>}
    </Card>
  )
}
