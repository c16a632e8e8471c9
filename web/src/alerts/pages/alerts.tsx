import '../alerts.css'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { AlertItem } from '../AlertItem'
import { applyAlertEvent, historyQuery, RANGES, sortOpen } from '../alert-list'
import { AlertsTabs } from '../AlertsTabs'
import { AlertHistory } from '../AlertHistory'
import { LoadError } from '../../ui/LoadError'
import { Select } from '../../ui/Select'
import type { AlertView, DeviceRef, Page, Rule } from '../types'
import { useLoad } from '../../lib/use-load'
import { useTick } from '../useTick'
import { api } from '../../lib/api'
import { onLive } from '../../lib/live'
import { ButtonLink, Card, EmptyState, Field, PageHeader, Skeleton } from '../../ui'
import { setSearch, useSearch } from '../../lib/router'

const PAGE_SIZE = 50

/**
 * /alerts — what is wrong now (firing and pending, most urgent first, acknowledged in place),
 * then the history with its filters in the URL (?state=&device=&rule=&range=&page=). Both follow
 * the live stream's alert events.
 */
export default function Alerts(_props: { params: Record<string, string> }) {
  useTick()
  const q = useSearch()
  const search = q.toString()
  const open = useLoad(async () => {
    const pages = await Promise.all((['firing', 'pending'] as const).map((state) => api.get<Page<AlertView>>('/v1/alerts', { state, limit: 200 })))
    return sortOpen(pages.flatMap((p) => p.items))
  })
  const devices = useLoad(() => api.get<DeviceRef[]>('/v1/clients/me/devices'))
  const rules = useLoad(() => api.get<{ items: Rule[] }>('/v1/alerts/rules'))
  const [historyVersion, setHistoryVersion] = useState(0)
  const [fresh, setFresh] = useState<Set<string>>(new Set())
  const historyParams = useMemo(() => historyQuery(q, Date.now(), PAGE_SIZE), [search, historyVersion])
  const history = useLoad(() => api.get<Page<AlertView>>('/v1/alerts', historyParams), [historyParams])

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null
    const onAlert = (type: string, alert: AlertView) => {
      open.set((list) => applyAlertEvent(list ?? [], type, alert))
      if (type === 'alert.firing') setFresh((s) => new Set(s).add(alert.id))
      // the history's page is read again, once for a burst
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => setHistoryVersion((v) => v + 1), 500)
    }
    const offs = ['alert.firing', 'alert.resolved', 'alert.acknowledged'].map((type) =>
      onLive<{ alert: AlertView }>(type, (e) => e.data?.alert && onAlert(type, e.data.alert)),
    )
    offs.push(
      onLive('reset', () => {
        void open.reload()
        setHistoryVersion((v) => v + 1)
      }),
    )
    return () => {
      if (timer) clearTimeout(timer)
      for (const off of offs) off()
    }
  }, [])

  // the device and rule filters narrow what is open now too (the dashboard links here with ?device=)
  const onlyDevice = q.get('device')
  const onlyRule = q.get('rule')
  const list = (open.data ?? []).filter((a) => (!onlyDevice || a.device.id === onlyDevice) && (!onlyRule || a.rule.id === onlyRule))
  const firing = list.filter((a) => a.state === 'firing').length
  const replace = (a: AlertView) => {
    open.set((l) => applyAlertEvent(l ?? [], 'alert.acknowledged', a))
    setHistoryVersion((v) => v + 1)
  }
  const deviceOptions = [
    { value: '', label: 'Every device' },
    ...(devices.data ?? []).map((d) => ({ value: d.device_id, label: d.name ?? d.hostname ?? d.device_id })).sort((a, b) => a.label.localeCompare(b.label)),
  ]
  const ruleOptions = [{ value: '', label: 'Every rule' }, ...(rules.data?.items ?? []).map((r) => ({ value: r.id, label: r.name }))]
  const filter = (name: string) => (e: Event) => setSearch({ [name]: (e.target as HTMLSelectElement).value, page: null }, { replace: false })

  return (
    <>
      <PageHeader
        title="Alerts"
        subtitle={open.data ? (list.length ? `${firing} firing, ${list.length - firing} pending` : 'Nothing needs attention right now.') : undefined}
        actions={
          <ButtonLink href="/alerts/rules/new" variant="secondary">
            New rule
          </ButtonLink>
        }
      />
      <AlertsTabs />
      <div class="alert-stack">
        <section aria-labelledby="now-heading">
          <h2 id="now-heading" class="section-heading">
            Now
          </h2>
          {open.error ? <LoadError error={open.error} retry={() => void open.reload()} /> : null}
          {!open.data && !open.error && <Skeleton lines={2} height={64} label="Loading the open alerts" />}
          {open.data && !list.length && (
            <EmptyState title="All clear" icon="check-circle">
              No alert is firing or pending. Rules watch every sample as it arrives; new alerts appear here at once.
            </EmptyState>
          )}
          {list.length > 0 && (
            <ul class="alert-list" aria-label="Open alerts" aria-live="polite">
              {list.map((a) => (
                <AlertItem key={a.id} alert={a} fresh={fresh.has(a.id)} onChange={replace} />
              ))}
            </ul>
          )}
        </section>
        <Card title="History">
          <fieldset class="filters plain-fieldset">
            <legend class="visually-hidden">Filter the history</legend>
            <Field
              name="state"
              label="State"
              control={(p) => (
                <Select
                  {...p}
                  selected={q.get('state') ?? ''}
                  onChange={filter('state')}
                  options={[
                    { value: '', label: 'Any state' },
                    { value: 'firing', label: 'Firing' },
                    { value: 'pending', label: 'Pending' },
                    { value: 'resolved', label: 'Resolved' },
                  ]}
                />
              )}
            />
            <Field
              name="device"
              label="Device"
              control={(p) => <Select {...p} selected={q.get('device') ?? ''} onChange={filter('device')} options={deviceOptions} />}
            />
            <Field name="rule" label="Rule" control={(p) => <Select {...p} selected={q.get('rule') ?? ''} onChange={filter('rule')} options={ruleOptions} />} />
            <Field
              name="range"
              label="Active within"
              control={(p) => (
                <Select {...p} selected={q.get('range') ?? '7d'} onChange={filter('range')} options={RANGES.map((r) => ({ value: r.value, label: r.label }))} />
              )}
            />
          </fieldset>
          <AlertHistory history={history} pageSize={PAGE_SIZE} page={Math.max(1, Number(q.get('page')) || 1)} />
        </Card>
      </div>
    </>
  )
}
