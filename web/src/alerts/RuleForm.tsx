import { useState } from 'preact/hooks'
import { onFormFields } from '../lib/errors'
import { Link } from '../lib/router'
import { Field, Form, GroupError } from '../ui'
import { METRIC_CHOICES, splitMetric } from './metrics'
import { ruleFromForm, scopedField, splitSeconds, UNITS } from './rule-form'
import { Select } from '../ui/Select'
import type { Channel, DeviceRef, Rule, RuleKind } from './types'

type RuleDraft = Omit<Rule, 'id' | 'created_at' | 'updated_at' | 'scope_device_missing'>

const KINDS: { value: RuleKind; label: string }[] = [
  { value: 'threshold', label: 'A metric crosses a threshold' },
  { value: 'offline', label: 'A device stops reporting' },
  { value: 'disk_forecast', label: 'A disk is predicted full' },
]
const OPERATORS = [
  { value: '>', label: 'above (>)' },
  { value: '>=', label: 'at or above (≥)' },
  { value: '<', label: 'below (<)' },
  { value: '<=', label: 'at or below (≤)' },
]
const REPEATS = [
  { value: '', label: 'Never' },
  { value: '3600', label: 'Every hour' },
  { value: '14400', label: 'Every 4 hours' },
  { value: '43200', label: 'Every 12 hours' },
  { value: '86400', label: 'Every day' },
]

/** Creates or edits a rule; `onSave` gets the body for POST (new) or PATCH (every field). */
export function RuleForm({
  rule,
  isNew,
  devices,
  channels,
  onSave,
  onCancel,
}: {
  rule: RuleDraft
  isNew: boolean
  devices: DeviceRef[]
  channels: Channel[]
  onSave: (body: Record<string, unknown>) => Promise<void>
  onCancel: () => void
}) {
  const [kind, setKind] = useState<RuleKind>(rule.kind)
  const initial = splitMetric(rule.metric)
  const [choice, setChoice] = useState(initial.choice)
  const [scope, setScope] = useState(rule.scope.type)
  const family = METRIC_CHOICES.find((c) => c.id === choice)?.family
  const tags = [...new Set(devices.flatMap((d) => d.tags ?? []))].sort()
  const forS = splitSeconds(rule.for_seconds)
  const delay = splitSeconds(rule.recovery_delay_seconds)

  const submit = async (d: FormData) => {
    const body = ruleFromForm(d, kind)
    try {
      await onSave(isNew ? { ...body, kind } : body)
    } catch (err) {
      throw onFormFields(err, (path) => scopedField(path, scope))
    }
  }

  return (
    <Form
      onSubmit={submit}
      submitLabel={isNew ? 'Create rule' : 'Save rule'}
      label={isNew ? 'New alert rule' : `Edit ${rule.name}`}
      secondary={
        <button type="button" class="btn btn-secondary" onClick={onCancel}>
          Cancel
        </button>
      }
    >
      <div class="field-row">
        <Field name="name" label="Name" required defaultValue={rule.name} maxLength={100} hint="Shown in alerts and notices, e.g. “Data disk almost full”." />
        <Field
          name="severity"
          label="Severity"
          control={(p) => (
            <Select
              {...p}
              selected={rule.severity}
              options={[
                { value: 'warning', label: 'Warning' },
                { value: 'critical', label: 'Critical' },
              ]}
            />
          )}
        />
      </div>
      <Field
        name="kind"
        label="Fires when"
        hint={isNew ? undefined : 'The kind of a rule stays as it was made; make a new rule for another kind.'}
        control={(p) => (
          <Select {...p} options={KINDS} selected={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as RuleKind)} disabled={!isNew} />
        )}
      />
      {kind === 'threshold' && (
        <fieldset class="group">
          <legend>Metric and threshold</legend>
          <Field
            name="metric"
            label="Metric"
            control={(p) => (
              <Select
                {...p}
                options={METRIC_CHOICES.map((c) => ({ value: c.id, label: c.label }))}
                selected={choice}
                onChange={(e) => setChoice((e.target as HTMLSelectElement).value)}
              />
            )}
          />
          {family && <Field name="metric_part" label={family.part} defaultValue={initial.choice === choice ? initial.part : '*'} hint={family.hint} />}
          {choice === 'other' && (
            <Field
              name="metric_other"
              label="Field name"
              class="field-mono"
              defaultValue={initial.other}
              hint="A numeric field the collector sends (errin, dropin, …) or a nested series such as gpus:0:load_percent."
            />
          )}
          <div class="field-row">
            <Field name="operator" label="Fires when the value is" control={(p) => <Select {...p} options={OPERATORS} selected={rule.operator} />} />
            <Field name="threshold" label="Threshold" type="number" step="any" required defaultValue={rule.threshold === null ? '' : String(rule.threshold)} />
          </div>
          <div class="field-row">
            <DurationField
              name="for_seconds"
              label="For at least"
              amount={forS.amount}
              unit={forS.unit}
              hint="0: fire on the first sample past the threshold."
            />
            <Field
              name="recovery_threshold"
              label="Resolves at"
              type="number"
              step="any"
              optional
              defaultValue={rule.recovery_threshold === null ? '' : String(rule.recovery_threshold)}
              hint="On the healthy side of the threshold, so a value swinging around it does not flap. Empty: the threshold."
            />
          </div>
        </fieldset>
      )}
      {kind === 'offline' && (
        <Field
          name="offline_intervals"
          label="Reporting intervals without data"
          type="number"
          min={1}
          max={1000}
          defaultValue={String(rule.offline_intervals ?? 5)}
          hint="Each device's interval is measured from its own samples (10 s for the collector's default)."
        />
      )}
      {kind === 'disk_forecast' && (
        <Field
          name="forecast_hours"
          label="Full within (hours)"
          type="number"
          min={1}
          max={8760}
          defaultValue={String(rule.forecast_hours ?? 48)}
          hint="At the trend of the last 24 hours of the fullest partition."
        />
      )}
      <fieldset class="group">
        <legend>Devices</legend>
        <div class="checks" role="radiogroup" aria-label="Which devices">
          {(['all', 'tag', 'device'] as const).map((t) => (
            <label key={t} class="check">
              <input type="radio" name="scope" value={t} checked={scope === t} onChange={() => setScope(t)} />
              {t === 'all' ? 'All devices' : t === 'tag' ? 'Devices with a tag' : 'One device'}
            </label>
          ))}
        </div>
        <GroupError name="scope" />
        {scope === 'tag' && (
          <Field
            name="scope_tag"
            label="Tag"
            control={(p) => <input {...p} list="known-tags" defaultValue={rule.scope.type === 'tag' ? (rule.scope.value ?? '') : ''} />}
            hint={tags.length ? `Tags in use: ${tags.join(', ')}.` : 'Tags are set on each device’s page.'}
          />
        )}
        {scope === 'tag' && (
          <datalist id="known-tags">
            {tags.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        )}
        {scope === 'device' && (
          <Field
            name="scope_device"
            label="Device"
            control={(p) => (
              <Select
                {...p}
                selected={rule.scope.type === 'device' ? (rule.scope.value ?? '') : ''}
                options={[{ value: '', label: 'Choose a device' }, ...devices.map((d) => ({ value: d.device_id, label: d.name ?? d.hostname ?? d.device_id }))]}
              />
            )}
          />
        )}
      </fieldset>
      <fieldset class="group">
        <legend>Notify</legend>
        {channels.length ? (
          <div class="checks">
            {channels.map((c) => (
              <label key={c.id} class="check">
                <input type="checkbox" name="channel_ids" value={c.id} defaultChecked={rule.channel_ids.includes(c.id)} />
                {c.name}
                {!c.enabled && <span class="muted"> (disabled)</span>}
              </label>
            ))}
            <GroupError name="channel_ids" />
          </div>
        ) : (
          <p class="hint">
            No channels yet: <Link href="/settings/channels">add one</Link> to be told. Alerts show here, on the live stream and to webhooks either way.
          </p>
        )}
        <p class="hint">Besides these, the severity routing on the rules page sends every alert of a severity to its channels.</p>
        <div class="field-row">
          <Field
            name="repeat_seconds"
            label="Repeat while firing"
            control={(p) => <Select {...p} options={REPEATS} selected={rule.repeat_seconds === null ? '' : String(rule.repeat_seconds)} />}
            hint="Until someone acknowledges it."
          />
          <DurationField
            name="recovery_delay_seconds"
            label="Hold the recovery notice"
            amount={delay.amount}
            unit={delay.unit}
            hint="A relapse meanwhile reopens the alert without a new notice."
          />
        </div>
        <label class="check">
          <input type="checkbox" name="notify_recovery" defaultChecked={rule.notify_recovery} />
          Tell the channels when it resolves
        </label>
      </fieldset>
      <label class="check">
        <input type="checkbox" name="enabled" defaultChecked={rule.enabled} />
        Enabled
      </label>
    </Form>
  )
}

/** A duration typed as a number with its unit; the API gets seconds. */
function DurationField({ name, label, amount, unit, hint }: { name: string; label: string; amount: number; unit: string; hint?: string }) {
  return (
    <Field
      name={name}
      label={label}
      hint={hint}
      control={(p) => (
        <div class="duration">
          <input {...p} type="number" min={0} step="any" defaultValue={String(amount)} />
          <select name={`${name}_unit`} aria-label={`${label}: unit`}>
            {UNITS.map((u) => (
              <option key={u.value} value={u.value} selected={u.value === unit}>
                {u.label}
              </option>
            ))}
          </select>
        </div>
      )}
    />
  )
}
