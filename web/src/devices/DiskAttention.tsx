import { useEffect, useState } from 'preact/hooks'
import type { DisksAttention } from '../containers/types'
import { api } from '../lib/api'
import { Link } from '../lib/router'
import { Banner } from '../ui'

/** How many failing disks the hint names before "and N more". */
const NAMED = 3

/**
 * The dashboard's hint that a disk is failing (smartctl's verdict, or sectors it cannot read
 * back), each linking to its device's page. Nothing at all while every disk is well.
 */
export function DiskAttention() {
  const [data, setData] = useState<DisksAttention | null>(null)
  useEffect(() => {
    let live = true
    // a hint: when it cannot be read, the dashboard shows the rest as usual
    api
      .get<DisksAttention>('/v1/disks/attention')
      .then((d) => live && setData(d))
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [])
  if (!data || data.disks_failing === 0) return null
  const more = data.disks_failing - Math.min(NAMED, data.items.length)
  return (
    // a margin of its own: the dashboard's stylesheet is not this hint's to change
    <div style={{ marginBottom: 'var(--space-4)' }}>
      <Banner tone="error">
        {data.disks_failing === 1 ? 'A disk is failing' : `${data.disks_failing} disks are failing`}:{' '}
        {data.items.slice(0, NAMED).map((d, i) => (
          <span key={`${d.device_id}-${d.name}`}>
            {i > 0 && ', '}
            <Link href={`/devices/${encodeURIComponent(d.device_id)}`}>
              {d.name} on {d.device_name}
            </Link>
            {d.model ? ` (${d.model})` : ''}
          </span>
        ))}
        {more > 0 && ` and ${more} more`}. Copy what matters off {data.disks_failing === 1 ? 'it' : 'them'} and plan the replacement.
      </Banner>
    </div>
  )
}
