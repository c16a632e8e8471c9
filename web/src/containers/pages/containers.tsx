import '../../devices/monitor.css'
import '../containers.css'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { api } from '../../lib/api'
import { onLive } from '../../lib/live'
import { setSearch, useSearch } from '../../lib/router'
import { useLoad } from '../../lib/use-load'
import { Pager } from '../../settings/Pager'
import { Button, ButtonLink, EmptyState, LoadError, PageHeader, Skeleton } from '../../ui'
import { CommandBlock } from '../../devices/CommandBlock'
import type { DeviceRef } from '../../devices/device-types'
import { HEALTH_WORDS, STATE_WORDS } from '../containers'
import { ContainerTable } from '../ContainerTable'
import {
  columnOf,
  COLUMN_SORTS,
  fleetQuery,
  HEALTHS,
  IMAGE_MAX,
  isFiltered,
  NAME_MAX,
  nextSort,
  PAGE_SIZE,
  parseFleet,
  SORT_LABELS,
  SORTS,
  STATES,
} from '../fleet-query'
import type { ContainerPage } from '../types'

/** the list is read again at most this often while collectors send blocks */
const REFRESH_MS = 15_000
/** typing in a search waits this long before asking the hub */
const TYPING_MS = 250

/** The value, changed only once it has stood still for `ms` (the first one at once). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(t)
  }, [value, ms])
  return settled
}

/**
 * /containers — every container of the account on every device: those needing attention first
 * (unhealthy, exited non-zero, restarting, OOM-killed), searchable by name and image, filtered by
 * state, health and device, sorted by any column; everything in the URL.
 */
export default function Page(_props: { params: Record<string, string> }) {
  const search = useSearch()
  const filters = parseFleet(search)
  const query = useSettled(JSON.stringify(fleetQuery(filters)), TYPING_MS)
  const [version, setVersion] = useState(0)
  const list = useLoad(() => api.get<ContainerPage>('/v1/containers', JSON.parse(query)), [query, version])
  const devices = useLoad(() => api.get<DeviceRef[]>('/v1/clients/me/devices'))

  useEffect(() => {
    let last = Date.now()
    const offs = [
      onLive('sample', () => {
        if (Date.now() - last < REFRESH_MS) return
        last = Date.now()
        setVersion((v) => v + 1)
      }),
      ...['reset', 'device.deleted'].map((type) => onLive(type, () => setVersion((v) => v + 1))),
    ]
    return () => {
      for (const off of offs) off()
    }
  }, [])

  const data = list.data
  const counts = data?.counts
  const subtitle = counts
    ? `${counts.containers} ${counts.containers === 1 ? 'container' : 'containers'} · ${counts.running} running${
        counts.needs_attention ? ` · ${counts.needs_attention} ${counts.needs_attention === 1 ? 'needs' : 'need'} attention` : ''
      }`
    : 'Loading containers…'
  const set = (patch: Record<string, string | null>, replace = false) => setSearch({ ...patch, page: null }, { replace })
  const deviceOptions = useMemo(
    () => (devices.data ?? []).map((d) => ({ value: d.device_id, label: d.name || d.hostname || d.device_id })).sort((a, b) => a.label.localeCompare(b.label)),
    [devices.data],
  )
  const pages = data ? Math.max(1, Math.ceil(data.total / PAGE_SIZE)) : 1

  return (
    <>
      <PageHeader title="Containers" subtitle={subtitle} />
      {list.error !== null && <LoadError error={list.error} retry={() => void list.reload()} />}
      {counts && counts.containers === 0 ? (
        <EmptyState title="No containers yet" icon="server" action={<ButtonLink href="/devices/new">Add a device</ButtonLink>}>
          <p>
            A collector sends the Docker or Podman containers of its machine with each sample. It needs this hub’s version (collectors update themselves from
            the hub within hours of its upgrade, or install one again from Add a device) and read access to the engine’s socket:
          </p>
          <CommandBlock command="sudo usermod -aG docker vigil-agent && sudo systemctl restart vigil-agent" label="Give the collector access to Docker" />
          <p>
            With Podman, enable its socket (<code>sudo systemctl enable --now podman.socket</code>): the collector looks at <code>/run/podman/podman.sock</code>
            . A socket elsewhere: set <code>DOCKER_HOST=unix:///path/to/socket</code> in the collector’s environment. Each device’s page says what its collector
            found.
          </p>
        </EmptyState>
      ) : (
        <>
          <div class="vg-toolbar">
            <div class="vg-toolbar-field">
              <label for="ct-name">Name</label>
              <input
                id="ct-name"
                type="search"
                value={filters.name}
                maxLength={NAME_MAX}
                placeholder="Part of a name"
                autocomplete="off"
                onInput={(e) => set({ name: e.currentTarget.value }, true)}
              />
            </div>
            <div class="vg-toolbar-field">
              <label for="ct-image">Image</label>
              <input
                id="ct-image"
                type="search"
                value={filters.image}
                maxLength={IMAGE_MAX}
                placeholder="nginx, postgres:16…"
                autocomplete="off"
                onInput={(e) => set({ image: e.currentTarget.value }, true)}
              />
            </div>
            <div class="vg-toolbar-field">
              <label for="ct-state">State</label>
              <select id="ct-state" value={filters.state ?? ''} onChange={(e) => set({ state: e.currentTarget.value })}>
                <option value="">Every state</option>
                {STATES.map((s) => (
                  <option key={s} value={s}>
                    {STATE_WORDS[s]}
                  </option>
                ))}
              </select>
            </div>
            <div class="vg-toolbar-field">
              <label for="ct-health">Health</label>
              <select id="ct-health" value={filters.health ?? ''} onChange={(e) => set({ health: e.currentTarget.value })}>
                <option value="">Any health</option>
                {HEALTHS.map((h) => (
                  <option key={h} value={h}>
                    {HEALTH_WORDS[h]}
                  </option>
                ))}
              </select>
            </div>
            <div class="vg-toolbar-field">
              <label for="ct-device">Device</label>
              <select id="ct-device" value={filters.device ?? ''} onChange={(e) => set({ device: e.currentTarget.value })}>
                <option value="">Every device</option>
                {deviceOptions.map((d) => (
                  <option key={d.value} value={d.value}>
                    {d.label}
                  </option>
                ))}
              </select>
            </div>
            <label class="vg-ct-check" for="ct-attention">
              <input id="ct-attention" type="checkbox" checked={filters.attention} onChange={(e) => set({ attention: e.currentTarget.checked ? '1' : null })} />
              Only those needing attention
            </label>
            <div class="vg-toolbar-field">
              <label for="ct-sort">Sort by</label>
              <select id="ct-sort" value={filters.sort} onChange={(e) => set({ sort: e.currentTarget.value === 'attention' ? null : e.currentTarget.value })}>
                {SORTS.map((s) => (
                  <option key={s} value={s}>
                    {SORT_LABELS[s]}
                  </option>
                ))}
              </select>
            </div>
            {isFiltered(filters) && (
              <Button
                small
                onClick={() => setSearch({ name: null, image: null, state: null, health: null, device: null, attention: null, page: null }, { replace: false })}
              >
                Clear the filters
              </Button>
            )}
            {data && (
              <p class="vg-toolbar-count" aria-live="polite">
                {isFiltered(filters) ? `${data.total} of ${counts!.containers} shown` : ''}
              </p>
            )}
          </div>
          {!data && list.error === null && <Skeleton lines={6} label="Loading containers" />}
          {data && data.items.length === 0 && (
            <EmptyState title="No container matches these filters">Search looks for a part of the name or of the image, in any case.</EmptyState>
          )}
          {data && data.items.length > 0 && (
            <>
              <ContainerTable
                rows={data.items}
                caption="Containers on every device"
                fleet
                sort={columnOf(filters.sort)}
                sortable={Object.keys(COLUMN_SORTS)}
                onSort={(key) => set({ sort: nextSort(filters.sort, key) })}
              />
              {pages > 1 && <Pager page={filters.page} pages={pages} total={data.total} label="Pages of containers" />}
            </>
          )}
        </>
      )}
    </>
  )
}
