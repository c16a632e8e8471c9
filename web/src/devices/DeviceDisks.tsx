import '../containers/containers.css'
import { useEffect, useState } from 'preact/hooks'
import { diskBadge, diskConcerns, powerOn, smartAdvice, wear } from '../containers/disks'
import { ToneBadge } from '../containers/ToneBadge'
import type { DeviceDisks as DeviceDisksAnswer, Disk } from '../containers/types'
import { api } from '../lib/api'
import { bytes, celsius, number } from '../lib/format'
import { Banner, Card, LoadError, Skeleton, Time } from '../ui'

function Sectors({ d }: { d: Disk }) {
  if (d.kind === 'nvme') return <span class="vg-muted">—</span>
  const growth = d.reallocated_growth_7d ?? 0
  return (
    <span class="vg-num vg-disk-sectors">
      <span>{number(d.reallocated_sectors)} reallocated</span>
      {growth > 0 && <span class="vg-disk-growth">+{number(growth)} in 7 days</span>}
      <span>{number(d.pending_sectors)} pending</span>
    </span>
  )
}

/** One disk: what it is, its verdict and the readings behind it. */
function DiskRow({ d }: { d: Disk }) {
  const concerns = diskConcerns(d)
  return (
    <tr class={d.failing ? 'vg-ct-attention' : undefined}>
      <td data-label="Disk">
        <div class="vg-ct-name">
          <span>{d.name}</span>
          <span class="vg-ct-image">{[d.model, d.capacity_bytes === null ? null : bytes(d.capacity_bytes)].filter(Boolean).join(' · ') || d.kind}</span>
        </div>
      </td>
      <td data-label="Health">
        <div class="vg-ct-state">
          <ToneBadge badge={diskBadge(d)} />
          {concerns.length > 0 && <span class={d.failing ? 'vg-ct-why' : 'vg-muted'}>{concerns.join('; ')}</span>}
        </div>
      </td>
      <td data-label="Temperature" class="num">
        <span class="vg-num">{celsius(d.temperature_c)}</span>
      </td>
      <td data-label="Power-on" class="num">
        <span class="vg-num">{powerOn(d.power_on_hours)}</span>
      </td>
      <td data-label="Sectors" class="num">
        <Sectors d={d} />
      </td>
      <td data-label="NVMe wear" class="num">
        <span class="vg-num">{d.kind === 'nvme' ? wear(d) : '—'}</span>
      </td>
    </tr>
  )
}

/**
 * The device's disks as smartctl last read them (at most every 30 minutes), or why it could not
 * and what to do. Failing disks read first.
 */
export function DeviceDisks({ deviceId }: { deviceId: string }) {
  const [data, setData] = useState<DeviceDisksAnswer | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [version, setVersion] = useState(0)

  useEffect(() => {
    let live = true
    api
      .get<DeviceDisksAnswer>(`/v1/devices/${encodeURIComponent(deviceId)}/disks`)
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

  const disks = data ? [...data.items].sort((a, b) => Number(b.failing) - Number(a.failing) || a.name.localeCompare(b.name)) : null
  const failing = disks?.filter((d) => d.failing).length ?? 0

  return (
    <Card title="Disk health" class="vg-device-disks">
      {error !== null && <LoadError error={error} retry={() => setVersion((v) => v + 1)} />}
      {!data && error === null && <Skeleton lines={2} label="Loading disk health" />}
      {data && data.available === null && (
        <p class="vg-muted">
          No S.M.A.R.T. report yet. Where smartmontools is installed, the collector reads its disks’ health at most every 30 minutes and sends it here.
        </p>
      )}
      {data?.available === false && (
        <Banner tone="warning">
          The collector cannot read disk health: {data.unavailable_reason ?? 'smartctl did not run'}. {smartAdvice(data.unavailable_reason)}
        </Banner>
      )}
      {failing > 0 && (
        <Banner tone="error">
          {failing === 1 ? 'A disk is failing' : `${failing} disks are failing`}: copy what matters off {failing === 1 ? 'it' : 'them'} and plan the
          replacement.
        </Banner>
      )}
      {data?.available && disks && disks.length === 0 && <p class="vg-muted">smartctl ran and found no disk that answers S.M.A.R.T.</p>}
      {disks && disks.length > 0 && (
        <>
          <div class="table-wrap">
            <table class="table vg-ct-table">
              <caption class="visually-hidden">S.M.A.R.T. health of this device’s disks</caption>
              <thead>
                <tr>
                  <th scope="col">Disk</th>
                  <th scope="col">Health</th>
                  <th scope="col" class="num">
                    Temperature
                  </th>
                  <th scope="col" class="num">
                    Power-on
                  </th>
                  <th scope="col" class="num">
                    Sectors
                  </th>
                  <th scope="col" class="num">
                    NVMe wear
                  </th>
                </tr>
              </thead>
              <tbody>
                {disks.map((d) => (
                  <DiskRow key={d.name} d={d} />
                ))}
              </tbody>
            </table>
          </div>
          {data?.collected_at && (
            <p class="vg-muted vg-ct-engine">
              Read by smartctl <Time iso={data.collected_at} relative />; it reads again at most every 30 minutes.
            </p>
          )}
        </>
      )}
    </Card>
  )
}
