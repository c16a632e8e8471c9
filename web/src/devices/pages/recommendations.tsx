import { useEffect, useMemo, useState } from 'preact/hooks'
import '../monitor.css'
import { displayName } from '../fleet'
import { RecommendationItem } from '../RecommendationItem'
import { generateSummary, newestFirst, SEVERITIES, type GenerateResult, type Recommendation, type RecommendationPage } from '../recommendation-types'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { setSearch, useSearch } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { Banner, Button, ButtonLink, EmptyState, PageHeader, Skeleton } from '../../ui'
import type { DeviceRef } from '../device-types'

/** Per device, the newest this many: enough for a page that reads newest first across devices. */
const PER_DEVICE = 50
/** Requests in flight at once while gathering every device's list. */
const PARALLEL = 6

async function gather(devices: DeviceRef[]): Promise<Recommendation[]> {
  const out: Recommendation[] = []
  let next = 0
  const worker = async () => {
    while (next < devices.length) {
      const d = devices[next++]!
      const page = await api.get<RecommendationPage>(`/v1/recommendations/${encodeURIComponent(d.device_id)}`, { limit: PER_DEVICE })
      out.push(...page.items)
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, devices.length) }, worker))
  return out.sort(newestFirst)
}

export default function Page(_props: { params: Record<string, string> }) {
  const search = useSearch()
  const severity = SEVERITIES.find((s) => s === search.get('severity')) ?? null
  const deviceFilter = search.get('device')
  const [devices, setDevices] = useState<DeviceRef[] | null>(null)
  const [items, setItems] = useState<Recommendation[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [reload, setReload] = useState(0)
  const [target, setTarget] = useState<string>('')
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<{ tone: 'info' | 'error'; text: string } | null>(null)

  useEffect(() => {
    api
      .get<DeviceRef[]>('/v1/clients/me/devices')
      .then(setDevices)
      .catch((err) => setError(describeError(err)))
  }, [])

  useEffect(() => {
    if (!devices) return
    let live = true
    setItems(null)
    const chosen = deviceFilter ? devices.filter((d) => d.device_id === deviceFilter) : devices
    gather(chosen)
      .then((list) => live && setItems(list))
      .catch((err) => live && setError(describeError(err)))
    return () => {
      live = false
    }
  }, [devices, deviceFilter, reload])

  const names = useMemo(() => new Map((devices ?? []).map((d) => [d.device_id, displayName({ ...d, id: d.device_id })])), [devices])
  const shown = items?.filter((r) => !severity || r.severity === severity) ?? null
  const generateFor = target || deviceFilter || devices?.[0]?.device_id || ''

  const generate = async () => {
    setBusy(true)
    setResult(null)
    try {
      const r = await api.post<GenerateResult>(`/v1/ai/generate/${encodeURIComponent(generateFor)}`)
      setResult({ tone: 'info', text: `${names.get(generateFor) ?? 'Device'}: ${generateSummary(r)}` })
      setReload((n) => n + 1)
    } catch (err) {
      setResult({ tone: 'error', text: describeError(err) })
    } finally {
      setBusy(false)
    }
  }

  return (
    <>
      <PageHeader title="Recommendations" subtitle="What the rules and the language model found on your devices, newest first." />
      {error && <Banner tone="error">{error}</Banner>}
      {devices && devices.length === 0 ? (
        <EmptyState title="No devices yet" action={<ButtonLink href="/devices/new">Add a device</ButtonLink>}>
          Recommendations come from your devices' figures: add one first.
        </EmptyState>
      ) : (
        <>
          <div class="vg-toolbar">
            <div class="vg-toolbar-field">
              <label for="rec-severity">Severity</label>
              <select id="rec-severity" value={severity ?? ''} onChange={(e) => setSearch({ severity: e.currentTarget.value }, { replace: false })}>
                <option value="">All</option>
                {SEVERITIES.map((s) => (
                  <option key={s} value={s}>
                    {s.charAt(0).toUpperCase() + s.slice(1)}
                  </option>
                ))}
              </select>
            </div>
            <div class="vg-toolbar-field">
              <label for="rec-device">Device</label>
              <select id="rec-device" value={deviceFilter ?? ''} onChange={(e) => setSearch({ device: e.currentTarget.value }, { replace: false })}>
                <option value="">All devices</option>
                {devices?.map((d) => (
                  <option key={d.device_id} value={d.device_id}>
                    {names.get(d.device_id)}
                  </option>
                ))}
              </select>
            </div>
            {canAdmin.value && devices && devices.length > 0 && (
              <div class="vg-toolbar-field vg-generate">
                <label for="rec-generate">Generate for</label>
                <div class="vg-inline">
                  <select id="rec-generate" value={generateFor} onChange={(e) => setTarget(e.currentTarget.value)}>
                    {devices.map((d) => (
                      <option key={d.device_id} value={d.device_id}>
                        {names.get(d.device_id)}
                      </option>
                    ))}
                  </select>
                  <Button onClick={generate} loading={busy}>
                    Generate now
                  </Button>
                </div>
              </div>
            )}
          </div>
          {result && <Banner tone={result.tone}>{result.text}</Banner>}
          {!shown && !error && <Skeleton lines={6} height={20} label="Loading recommendations" />}
          {shown && shown.length === 0 && (
            <EmptyState title={severity || deviceFilter ? 'Nothing matches these filters' : 'No recommendations yet'}>
              {severity || deviceFilter
                ? 'Try all severities or all devices.'
                : 'The rules look at every device every few hours; a finding shows here. Generate now runs them at once.'}
            </EmptyState>
          )}
          {shown && shown.length > 0 && (
            <ul class="vg-rec-list" aria-label="Recommendations, newest first">
              {shown.map((r) => (
                <RecommendationItem key={r.id} rec={r} deviceName={r.device_id ? (names.get(r.device_id) ?? r.device_id) : undefined} />
              ))}
            </ul>
          )}
        </>
      )}
    </>
  )
}
