import { useState } from 'preact/hooks'
import { api } from '../lib/api'
import { duration } from '../lib/format'
import { Button, Card, Field, Form } from '../ui'
import { formatValue, unitOf } from './metrics'
import { Select } from '../ui/Select'
import type { DeviceRef, Rule } from './types'

const INHERIT = { value: '', label: 'As the rule' }

/** Per-device changes to a rule (PUT/DELETE /v1/alerts/rules/{id}/overrides/{device}); empty keeps the rule's value. */
export function OverridesCard({ rule, devices, canEdit, onChange }: { rule: Rule; devices: DeviceRef[]; canEdit: boolean; onChange: (r: Rule) => void }) {
  const [formKey, setFormKey] = useState(0)
  const name = (id: string) => {
    const d = devices.find((x) => x.device_id === id)
    return d ? (d.name ?? d.hostname ?? d.device_id) : id
  }
  const unit = unitOf(rule.metric)
  const threshold = rule.kind === 'threshold'
  const remove = async (deviceId: string) => {
    await api.del(`/v1/alerts/rules/${encodeURIComponent(rule.id)}/overrides/${encodeURIComponent(deviceId)}`)
    onChange({ ...rule, overrides: rule.overrides.filter((o) => o.device_id !== deviceId) })
  }
  const submit = async (d: FormData) => {
    const deviceId = String(d.get('device') ?? '')
    const num = (k: string) => {
      const t = String(d.get(k) ?? '').trim()
      return t ? Number(t) : null
    }
    const enabled = String(d.get('enabled') ?? '')
    const body = {
      enabled: enabled === '' ? null : enabled === 'yes',
      severity: String(d.get('severity') ?? '') || null,
      ...(threshold ? { threshold: num('threshold'), recovery_threshold: num('recovery_threshold'), for_seconds: num('for_seconds') } : {}),
    }
    onChange(await api.put<Rule>(`/v1/alerts/rules/${encodeURIComponent(rule.id)}/overrides/${encodeURIComponent(deviceId)}`, body))
    setFormKey((k) => k + 1)
  }
  return (
    <Card title="Per-device overrides">
      {rule.overrides.length ? (
        <ul class="delivery-list" aria-label="Overrides">
          {rule.overrides.map((o) => (
            <li key={o.device_id} class="delivery">
              <div class="delivery-head">
                <strong>{name(o.device_id)}</strong>
                <span class="muted">
                  {[
                    o.enabled === false ? 'skipped' : o.enabled === true ? 'enabled' : null,
                    o.threshold !== null ? `threshold ${formatValue(o.threshold, unit)}` : null,
                    o.recovery_threshold !== null ? `resolves at ${formatValue(o.recovery_threshold, unit)}` : null,
                    o.for_seconds !== null ? `for ${duration(o.for_seconds)}` : null,
                    o.severity,
                  ]
                    .filter(Boolean)
                    .join(' · ') || 'as the rule'}
                </span>
                {canEdit && (
                  <Button small variant="ghost" onClick={() => void remove(o.device_id)} aria-label={`Remove the override for ${name(o.device_id)}`}>
                    Remove
                  </Button>
                )}
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p class="hint">No device has its own values: every device in scope gets the rule’s.</p>
      )}
      {canEdit && devices.length > 0 && (
        <>
          <div class="stack-gap" />
          <Form key={formKey} onSubmit={submit} submitLabel="Set override" label="Set a device's override">
            <div class="filters">
              <Field
                name="device"
                label="Device"
                control={(p) => <Select {...p} options={devices.map((d) => ({ value: d.device_id, label: d.name ?? d.hostname ?? d.device_id }))} />}
              />
              <Field
                name="enabled"
                label="Watch it"
                control={(p) => <Select {...p} options={[INHERIT, { value: 'no', label: 'No, skip this device' }, { value: 'yes', label: 'Yes' }]} />}
              />
              {threshold && <Field name="threshold" label="Threshold" type="number" step="any" optional />}
              {threshold && <Field name="recovery_threshold" label="Resolves at" type="number" step="any" optional />}
              {threshold && <Field name="for_seconds" label="For (seconds)" type="number" min={0} optional />}
              <Field
                name="severity"
                label="Severity"
                control={(p) => <Select {...p} options={[INHERIT, { value: 'warning', label: 'Warning' }, { value: 'critical', label: 'Critical' }]} />}
              />
            </div>
          </Form>
        </>
      )}
    </Card>
  )
}
