import { useState } from 'preact/hooks'
import { Link } from '../lib/router'
import { Button, StatusBadge, Time } from '../ui'
import { AckForm } from './AckForm'
import { alertSince } from './alert-list'
import { alertSubject, valueVsThreshold } from './metrics'
import type { AlertView } from './types'

/** One alert open now: how bad, where, what against what, since when, who took it. */
export function AlertItem({ alert: a, fresh, onChange }: { alert: AlertView; fresh?: boolean; onChange: (a: AlertView) => void }) {
  const { value, threshold } = valueVsThreshold(a)
  const since = alertSince(a)
  const label = `${a.rule.name} on ${a.device.name}`
  const [acking, setAcking] = useState(false)
  return (
    <li class={`alert-item sev-${a.rule.severity}${fresh ? ' is-new' : ''}`} data-alert-id={a.id}>
      <div>
        <h3 class="alert-title">
          <StatusBadge status={a.rule.severity} />
          <StatusBadge status={a.state} />
          <Link href={`/alerts/${encodeURIComponent(a.id)}`}>{a.rule.name}</Link>
          <span class="muted">on</span>
          <Link href={`/devices/${encodeURIComponent(a.device.id)}`}>{a.device.name}</Link>
        </h3>
        <p class="alert-facts">
          <span>{alertSubject(a)}</span>
          <span>
            <strong>{value}</strong> (threshold {threshold})
          </span>
          <span>
            {since.label.toLowerCase()} <Time iso={since.iso} relative />
          </span>
          {a.silenced && <span class="pill">Silenced</span>}
          {a.suppressed_by && <span class="pill">Held behind its gateway</span>}
        </p>
        {a.acknowledged && (
          <p class="alert-ack">
            <StatusBadge status="acknowledged" /> by <strong>{a.acknowledged.by}</strong> <Time iso={a.acknowledged.at} relative />
            {a.acknowledged.note && <> — “{a.acknowledged.note}”</>}
          </p>
        )}
      </div>
      <div class="alert-actions">
        {!a.acknowledged && !acking && (
          <Button small variant="primary" onClick={() => setAcking(true)} aria-label={`Acknowledge ${label}`}>
            Acknowledge
          </Button>
        )}
      </div>
      {acking && (
        <AckForm
          alertId={a.id}
          label={label}
          onCancel={() => setAcking(false)}
          onDone={(done) => {
            setAcking(false)
            onChange(done)
          }}
        />
      )}
    </li>
  )
}
