import '../checks.css'
import '../../devices/monitor.css'
import { useMemo, useState } from 'preact/hooks'
import { ApiError, api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { canAdmin } from '../../lib/session'
import { useLoad } from '../../lib/use-load'
import { Banner, ButtonLink, EmptyState, PageHeader, Skeleton, Time } from '../../ui'
import { CheckActions } from '../CheckActions'
import { CheckChart } from '../CheckChart'
import { IncidentsCard, ResultsCard } from '../CheckHistory'
import { PlacesCard, since, UptimeCard } from '../CheckOverview'
import { KIND_LABELS, targetOf } from '../check-list'
import { CheckStateBadge } from '../CheckRow'
import { keepSecret, takeSecret } from '../fresh-secret'
import { HeartbeatSecret } from '../HeartbeatSecret'
import type { CheckDetail } from '../types'
import { placeNamer, useDevices } from '../use-devices'
import { usePoll } from '../usePoll'

/** One check: its state and where it runs, uptime by period, response times, incidents and recent results. */
export default function Page({ params }: { params: Record<string, string> }) {
  const checkId = params.id ?? ''
  // every read of the page's parts follows the check's own (a poll, a pause) through this counter
  const [version, setVersion] = useState(0)
  const check = useLoad(async () => {
    const c = await api.get<CheckDetail>(`/v1/checks/${encodeURIComponent(checkId)}`)
    setVersion((v) => v + 1)
    return c
  }, [checkId])
  usePoll(check.reload, [checkId])
  const [secret, setSecret] = useState<string | null>(() => takeSecret(checkId))
  const devices = useDevices()
  const placeName = useMemo(() => placeNamer(devices), [devices])

  if (check.error && !check.data) {
    const gone = check.error instanceof ApiError && check.error.status === 404
    return (
      <>
        <PageHeader title={gone ? 'Check not found' : 'Check'} />
        {gone ? (
          <EmptyState title="This check does not exist" action={<ButtonLink href="/checks">Back to the checks</ButtonLink>}>
            It may have been deleted, or it belongs to another account.
          </EmptyState>
        ) : (
          <Banner tone="error">{describeError(check.error)}</Banner>
        )}
      </>
    )
  }
  const c = check.data
  if (!c) return <Skeleton lines={6} height={32} label="Loading the check" />
  const lasted = since(c.state_since)
  return (
    <div class="ck-page">
      <PageHeader
        title={c.name}
        docTitle={`${c.name} · Checks`}
        subtitle={
          <span class="ck-subtitle">
            <CheckStateBadge state={c.state} />
            {lasted && <span> for {lasted}</span>}
            <span class="vg-muted">
              {' '}
              · {KIND_LABELS[c.kind]} · <span class="ck-target">{targetOf(c)}</span>
            </span>
            {c.cert_expires_at && (
              <span class="vg-muted">
                {' '}
                · certificate expires <Time iso={c.cert_expires_at} />
              </span>
            )}
          </span>
        }
        actions={
          canAdmin.value ? (
            <CheckActions
              check={c}
              onChanged={check.reload}
              onRotated={(url) => {
                keepSecret(c.id, null)
                setSecret(url)
              }}
            />
          ) : null
        }
      />
      {check.error ? <Banner tone="error">{describeError(check.error)}</Banner> : null}
      {c.last_error && c.state !== 'up' && <Banner tone="warning">Latest error: {c.last_error}</Banner>}
      {secret && <HeartbeatSecret url={secret} />}
      {c.kind === 'heartbeat' && !secret && c.heartbeat_url && (
        <p class="vg-muted">
          Heartbeat URL: <code>{c.heartbeat_url}</code> (the token ends in <code>{c.heartbeat_token_hint}</code>; it is shown only after creation or a
          rotation).
        </p>
      )}
      <UptimeCard check={c} />
      {c.kind !== 'heartbeat' && <CheckChart checkId={c.id} version={version} />}
      <PlacesCard places={c.places} placeName={placeName} />
      <IncidentsCard checkId={c.id} version={version} />
      <ResultsCard checkId={c.id} version={version} placeName={placeName} />
    </div>
  )
}
