import '../alerts.css'
import { useEffect, useState } from 'preact/hooks'
import { AckForm } from '../AckForm'
import { alertSeconds } from '../alert-list'
import { AlertContextView } from '../AlertContext'
import { AlertsTabs } from '../AlertsTabs'
import { LoadError } from '../../ui/LoadError'
import { alertSubject, valueVsThreshold } from '../metrics'
import type { AlertDetail, AlertView } from '../types'
import { useLoad } from '../../lib/use-load'
import { useTick } from '../useTick'
import { api } from '../../lib/api'
import { duration } from '../../lib/format'
import { onLive } from '../../lib/live'
import { Link } from '../../lib/router'
import { Button, Card, PageHeader, Skeleton, StatusBadge, Time } from '../../ui'

const EVENT_WORDS: Record<string, string> = {
  pending: 'Pending: the value crossed the threshold',
  firing: 'Firing',
  reopened: 'Reopened: the value relapsed before the recovery notice went out',
  acknowledged: 'Acknowledged',
  notified: 'Notice sent to the channels',
  silenced: 'Held by a silence',
  suppressed: 'Held behind its gateway',
  resolved: 'Resolved',
}

/** /alerts/:id — one alert: its figures, its timeline (pending → firing → acknowledged → resolved) and its context. */
export default function AlertPage({ params }: { params: Record<string, string> }) {
  const id = params.id ?? ''
  const now = useTick()
  const alert = useLoad(() => api.get<AlertDetail>(`/v1/alerts/${encodeURIComponent(id)}`), [id])
  const [acking, setAcking] = useState(false)

  useEffect(() => {
    // this alert's changes arrive on the stream; the timeline is read again for the new steps
    const offs = ['alert.firing', 'alert.resolved', 'alert.acknowledged', 'reset'].map((type) =>
      onLive<{ alert?: AlertView }>(type, (e) => {
        if (type === 'reset' || e.data?.alert?.id === id) void alert.reload()
      }),
    )
    return () => {
      for (const off of offs) off()
    }
  }, [id])

  if (alert.error && !alert.data) {
    return (
      <>
        <PageHeader title="Alert" />
        <LoadError error={alert.error} retry={() => void alert.reload()} />
      </>
    )
  }
  const a = alert.data
  if (!a) return <Skeleton lines={6} height={28} label="Loading the alert" />
  const v = valueVsThreshold(a)
  const label = `${a.rule.name} on ${a.device.name}`
  return (
    <>
      <PageHeader
        title={label}
        docTitle={`${a.rule.name} · ${a.device.name}`}
        subtitle={
          <>
            <StatusBadge status={a.rule.severity} /> <StatusBadge status={a.state} /> {alertSubject(a)}
          </>
        }
        actions={
          a.state !== 'resolved' &&
          !a.acknowledged &&
          !acking && (
            <Button variant="primary" onClick={() => setAcking(true)}>
              Acknowledge
            </Button>
          )
        }
      />
      <AlertsTabs />
      <div class="alert-stack">
        {acking && (
          <Card title="Acknowledge">
            <AckForm
              alertId={a.id}
              label={label}
              onCancel={() => setAcking(false)}
              onDone={(done) => {
                setAcking(false)
                alert.set(done)
              }}
            />
          </Card>
        )}
        <div class="two-col">
          <Card title="Facts">
            <dl class="facts">
              <dt>Value</dt>
              <dd>
                <strong>{v.value}</strong> (threshold {v.threshold})
              </dd>
              <dt>Device</dt>
              <dd>
                <Link href={`/devices/${encodeURIComponent(a.device.id)}`}>{a.device.name}</Link>
              </dd>
              <dt>Rule</dt>
              <dd>
                <Link href={`/alerts/rules/${encodeURIComponent(a.rule.id)}`}>{a.rule.name}</Link>
              </dd>
              <dt>{a.state === 'pending' ? 'Pending since' : 'Pending from'}</dt>
              <dd>
                <Time iso={a.started_at} />
              </dd>
              {a.fired_at && (
                <>
                  <dt>{a.state === 'firing' ? 'Firing since' : 'Fired'}</dt>
                  <dd>
                    <Time iso={a.fired_at} />
                  </dd>
                </>
              )}
              {a.resolved_at && (
                <>
                  <dt>Resolved</dt>
                  <dd>
                    <Time iso={a.resolved_at} />
                  </dd>
                </>
              )}
              {a.state !== 'pending' && (
                <>
                  <dt>{a.resolved_at ? 'Lasted' : 'Firing for'}</dt>
                  <dd>{duration(alertSeconds(a, now))}</dd>
                </>
              )}
              <dt>Acknowledged</dt>
              <dd>
                {a.acknowledged ? (
                  <>
                    by {a.acknowledged.by}, <Time iso={a.acknowledged.at} />
                    {a.acknowledged.note && <> — “{a.acknowledged.note}”</>}
                  </>
                ) : (
                  'No'
                )}
              </dd>
              <dt>Last notice</dt>
              <dd>{a.last_notified_at ? <Time iso={a.last_notified_at} /> : a.silenced ? 'Held by a silence' : 'None sent'}</dd>
            </dl>
          </Card>
          <Card title="Timeline">
            <ol class="timeline" aria-label="What happened, oldest first">
              {a.timeline.map((e, i) => (
                <li key={`${e.at}-${i}`} class={`tl-${e.type}`}>
                  <div class="timeline-what">{EVENT_WORDS[e.type] ?? e.type}</div>
                  <div class="muted small">
                    <Time iso={e.at} />
                    {e.value !== null && ` · value ${valueVsThreshold({ ...a, value: e.value }).value}`}
                    {e.by && ` · by ${e.by}`}
                  </div>
                  {e.note && <div class="small">{e.note}</div>}
                </li>
              ))}
            </ol>
          </Card>
        </div>
        <Card title="Context when it fired">
          <AlertContextView context={a.context} />
        </Card>
      </div>
    </>
  )
}
