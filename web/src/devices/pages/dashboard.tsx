import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import '../monitor.css'
import { DeviceCard, DeviceCardSkeleton } from '../DeviceCard'
import { applySample, attentionRank, matches, parseSort, sortDevices, SORT_LABELS, SORTS, type Fleet, type FleetDevice } from '../fleet'
import type { DeletedEvent, SampleEvent, StatusEvent } from '../live-types'
import { DiskAttention } from '../DiskAttention'
import { InstallHint } from '../InstallHint'
import { ChecksDownNote } from '../../checks/ChecksDownNote'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { onLive } from '../../lib/live'
import { setSearch, useSearch } from '../../lib/router'
import { Banner, Button, ButtonLink, EmptyState, PageHeader } from '../../ui'

/** Samples arrive per device every few seconds: patches are applied together, at most this often. */
const FLUSH_MS = 500
/** Events that change what the fleet endpoint answers beyond a sample: reload, coalesced. */
const RELOAD_EVENTS = ['device.registered', 'reset', 'alert.firing', 'alert.resolved', 'alert.acknowledged']

/** The fleet from GET /v1/clients/me/fleet, kept current by the live stream without refetching. */
function useFleet() {
  const [devices, setDevices] = useState<FleetDevice[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const pending = useRef<((list: FleetDevice[]) => FleetDevice[])[]>([])
  const timers = useRef<{ flush?: ReturnType<typeof setTimeout>; reload?: ReturnType<typeof setTimeout> }>({})

  useEffect(() => {
    let live = true
    const load = async () => {
      try {
        const fleet = await api.get<Fleet>('/v1/clients/me/fleet')
        if (!live) return
        pending.current = []
        setDevices(fleet.devices)
        setError(null)
      } catch (err) {
        if (live) setError(describeError(err))
      }
    }
    const reloadSoon = () => {
      clearTimeout(timers.current.reload)
      timers.current.reload = setTimeout(load, 300)
    }
    const patch = (fn: (list: FleetDevice[]) => FleetDevice[]) => {
      pending.current.push(fn)
      timers.current.flush ??= setTimeout(() => {
        timers.current.flush = undefined
        const fns = pending.current
        pending.current = []
        setDevices((list) => (list ? fns.reduce((acc, f) => f(acc), list) : list))
      }, FLUSH_MS)
    }
    void load()
    const offs = [
      onLive<SampleEvent>('sample', ({ data }) =>
        patch((list) => {
          if (!list.some((d) => d.id === data.device_id)) {
            reloadSoon()
            return list
          }
          return list.map((d) => (d.id === data.device_id ? applySample(d, data.kind, data.recorded_at, data.values) : d))
        }),
      ),
      onLive<StatusEvent>('device.status', ({ data }) =>
        patch((list) => list.map((d) => (d.id === data.device_id ? { ...d, status: data.status, last_seen_at: data.last_seen_at ?? d.last_seen_at } : d))),
      ),
      onLive<DeletedEvent>('device.deleted', ({ data }) => patch((list) => list.filter((d) => d.id !== data.device_id))),
      ...RELOAD_EVENTS.map((type) => onLive(type, reloadSoon)),
    ]
    return () => {
      live = false
      for (const off of offs) off()
      clearTimeout(timers.current.flush)
      clearTimeout(timers.current.reload)
      timers.current = {}
    }
  }, [])

  return { devices, error }
}

/** The moment the fleet is first on screen, for the bench (performance.getEntriesByName). */
export const MARK_DEVICES = 'vigil:dashboard:devices'
function useFirstCardsMark(loaded: boolean) {
  useEffect(() => {
    if (!loaded) return
    // after the frame that paints the cards
    requestAnimationFrame(() => setTimeout(() => performance.mark(MARK_DEVICES), 0))
  }, [loaded])
}

export default function Page(_props: { params: Record<string, string> }) {
  const search = useSearch()
  const query = search.get('q') ?? ''
  const sort = parseSort(search.get('sort'))
  const { devices, error } = useFleet()

  useFirstCardsMark(devices !== null)
  const shown = useMemo(
    () =>
      devices
        ? sortDevices(
            devices.filter((d) => matches(d, query)),
            sort,
          )
        : null,
    [devices, query, sort],
  )
  const attention = devices?.filter((d) => attentionRank(d) < 4).length ?? 0
  const subtitle = devices
    ? `${devices.length} ${devices.length === 1 ? 'device' : 'devices'}${attention ? ` · ${attention} ${attention === 1 ? 'needs' : 'need'} attention` : ''}`
    : 'Loading devices…'

  return (
    <>
      <PageHeader
        title="Dashboard"
        subtitle={
          <>
            {subtitle}
            {devices && <ChecksDownNote />}
          </>
        }
        actions={
          <ButtonLink href="/devices/new" variant="primary">
            Add a device
          </ButtonLink>
        }
      />
      {error && <Banner tone="error">{error}</Banner>}
      <DiskAttention />
      {devices && devices.length === 0 ? (
        <EmptyState
          title="No devices yet"
          icon="monitor"
          action={
            <ButtonLink href="/devices/new" variant="primary">
              Add a device
            </ButtonLink>
          }
        >
          <p>Install the collector on a machine and it appears here within seconds. Add a device gives you its one-line install command:</p>
          <InstallHint />
        </EmptyState>
      ) : (
        <>
          <div class="vg-toolbar">
            <div class="vg-toolbar-field">
              <label for="fleet-search">Search</label>
              <input
                id="fleet-search"
                type="search"
                value={query}
                placeholder="Name, OS, tag…"
                autocomplete="off"
                onInput={(e) => setSearch({ q: e.currentTarget.value })}
              />
            </div>
            <div class="vg-toolbar-field">
              <label for="fleet-sort">Sort by</label>
              <select id="fleet-sort" value={sort} onChange={(e) => setSearch({ sort: e.currentTarget.value === 'attention' ? null : e.currentTarget.value })}>
                {SORTS.map((s) => (
                  <option key={s} value={s}>
                    {SORT_LABELS[s]}
                  </option>
                ))}
              </select>
            </div>
            {shown && (
              <p class="vg-toolbar-count" aria-live="polite">
                {query ? `${shown.length} of ${devices!.length} shown` : ''}
              </p>
            )}
          </div>
          {shown && shown.length === 0 ? (
            <EmptyState title={`No device matches “${query}”`} action={<Button onClick={() => setSearch({ q: null })}>Clear the search</Button>}>
              Search looks in names, host names, operating systems, architectures, statuses and tags.
            </EmptyState>
          ) : (
            <div class="vg-device-grid">
              {shown ? shown.map((d) => <DeviceCard key={d.id} device={d} />) : [1, 2, 3, 4, 5, 6].map((k) => <DeviceCardSkeleton key={k} />)}
            </div>
          )}
        </>
      )}
    </>
  )
}
