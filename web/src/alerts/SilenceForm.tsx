import { useState } from 'preact/hooks'
import { api } from '../lib/api'
import { onFormFields } from '../lib/errors'
import { timeZone } from '../lib/format'
import { Field, Form, GroupError } from '../ui'
import { scopedField, UNITS } from './rule-form'
import { isoToLocal, silenceFromForm } from './silence-form'
import { Select } from '../ui/Select'
import type { DeviceRef, Rule, Silence } from './types'

/** A new silence: one-off (from, until) or a recurring maintenance window (cron, duration, time zone), for some devices and rules. */
export function SilenceForm({
  devices,
  rules,
  onSaved,
  onCancel,
}: {
  devices: DeviceRef[]
  rules: Rule[]
  onSaved: (s: Silence) => void
  onCancel: () => void
}) {
  const [mode, setMode] = useState<'once' | 'recurring'>('once')
  const [scope, setScope] = useState<'all' | 'tag' | 'device'>('all')
  const submit = async (d: FormData) => {
    try {
      onSaved(await api.post<Silence>('/v1/alerts/silences', silenceFromForm(d)))
    } catch (err) {
      throw onFormFields(err, (path) => scopedField(path, scope))
    }
  }
  const later = Date.now() + 2 * 3_600_000
  return (
    <Form
      onSubmit={submit}
      submitLabel="Create silence"
      label="New silence"
      secondary={
        <button type="button" class="btn btn-secondary" onClick={onCancel}>
          Cancel
        </button>
      }
    >
      <Field name="comment" label="Why" optional maxLength={500} hint="E.g. “disk swap on db-1”, “nightly backup”." />
      <div class="checks" role="radiogroup" aria-label="When">
        <label class="check">
          <input type="radio" name="mode" value="once" checked={mode === 'once'} onChange={() => setMode('once')} />
          Once
        </label>
        <label class="check">
          <input type="radio" name="mode" value="recurring" checked={mode === 'recurring'} onChange={() => setMode('recurring')} />
          Recurring maintenance window
        </label>
      </div>
      {mode === 'once' ? (
        <div class="field-row">
          <Field name="starts_at" label="From" type="datetime-local" defaultValue={isoToLocal(null)} hint={`Your time zone (${timeZone()}).`} />
          <Field
            name="ends_at"
            label="Until"
            type="datetime-local"
            optional
            defaultValue={isoToLocal(new Date(later).toISOString())}
            hint="Empty: until you lift it."
          />
        </div>
      ) : (
        <>
          <div class="field-row">
            <Field
              name="cron"
              label="Opens at (cron)"
              required
              class="field-mono"
              placeholder="0 2 * * *"
              hint="Minute hour day month weekday: “0 2 * * *” is 02:00 every day, “0 3 * * 0” 03:00 on Sundays."
            />
            <Field name="timezone" label="Time zone" defaultValue={timeZone()} hint="An IANA name; daylight saving follows it." />
          </div>
          <Field
            name="duration_seconds"
            label="Stays open for"
            control={(p) => (
              <div class="duration">
                <input {...p} type="number" min={1} step="any" defaultValue="1" />
                <select name="duration_seconds_unit" aria-label="Stays open for: unit">
                  {UNITS.filter((u) => u.value !== '1').map((u) => (
                    <option key={u.value} value={u.value} selected={u.value === '3600'}>
                      {u.label}
                    </option>
                  ))}
                </select>
              </div>
            )}
          />
        </>
      )}
      <fieldset class="group">
        <legend>What it silences</legend>
        <div class="checks" role="radiogroup" aria-label="Which devices">
          {(['all', 'tag', 'device'] as const).map((t) => (
            <label key={t} class="check">
              <input type="radio" name="scope" value={t} checked={scope === t} onChange={() => setScope(t)} />
              {t === 'all' ? 'All devices' : t === 'tag' ? 'Devices with a tag' : 'One device'}
            </label>
          ))}
        </div>
        <GroupError name="scope" />
        {scope === 'tag' && <Field name="scope_tag" label="Tag" />}
        {scope === 'device' && (
          <Field
            name="scope_device"
            label="Device"
            control={(p) => <Select {...p} options={devices.map((x) => ({ value: x.device_id, label: x.name ?? x.hostname ?? x.device_id }))} />}
          />
        )}
        <Field
          name="rule_id"
          label="Rule"
          control={(p) => <Select {...p} options={[{ value: '', label: 'Every rule' }, ...rules.map((r) => ({ value: r.id, label: r.name }))]} />}
        />
      </fieldset>
    </Form>
  )
}
