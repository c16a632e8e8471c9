import { api } from '../lib/api'
import { onFormFields } from '../lib/errors'
import { Button, Field, Form, GroupError } from '../ui'
import { Select } from '../ui/Select'
import type { DeviceRef } from '../devices/device-types'
import { displayName } from '../devices/fleet'
import { checkFromForm, inputFor } from './check-form'
import { CheckSettingsFields } from './CheckSettingsFields'
import { TestNow } from './TestNow'
import type { CheckKind, CheckResponse, CheckSettings } from './types'

export interface CheckDraft {
  kind: CheckKind
  settings: CheckSettings
  name?: string
  interval_s?: number
  timeout_ms?: number
  down_after?: number
  up_after?: number
  run_on_hub?: boolean
  device_ids?: string[]
  depends_on_device_id?: string | null
}

const deviceName = (d: DeviceRef) => displayName({ name: d.name ?? null, hostname: d.hostname ?? null, id: d.device_id })
const str = (v: number | undefined) => (v === undefined ? '' : String(v))

/**
 * Creates (POST /v1/checks) or changes (PATCH, every field) a check of one kind. The API's 422
 * marks the input it names; "Test now" runs what the form holds without saving it.
 */
export function CheckForm({
  draft,
  checkId,
  devices,
  onSaved,
  onCancel,
}: {
  draft: CheckDraft
  /** set when editing */
  checkId?: string
  devices: DeviceRef[]
  onSaved: (check: CheckResponse) => void
  onCancel: () => void
}) {
  const kind = draft.kind
  const save = async (data: FormData) => {
    const body = checkFromForm(kind, data)
    try {
      if (checkId) {
        const { kind: _kind, ...patch } = body
        onSaved(await api.patch<CheckResponse>(`/v1/checks/${encodeURIComponent(checkId)}`, patch))
      } else onSaved(await api.post<CheckResponse>('/v1/checks', body))
    } catch (err) {
      throw onFormFields(err, inputFor)
    }
  }
  const runsOn = new Set(draft.device_ids ?? [])
  const dependencies = [{ value: '', label: 'None' }, ...devices.map((d) => ({ value: d.device_id, label: deviceName(d) }))]
  return (
    <Form
      onSubmit={save}
      submitLabel={checkId ? 'Save changes' : 'Create check'}
      label={checkId ? 'Edit the check' : 'New check'}
      secondary={
        <>
          {kind !== 'heartbeat' && <TestNow kind={kind} />}
          <Button variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        </>
      }
    >
      <Field name="name" label="Name" maxLength={100} defaultValue={draft.name ?? ''} placeholder="Website" />
      <CheckSettingsFields kind={kind} settings={draft.settings} />
      <fieldset class="ck-fieldset ck-grid">
        <legend>Schedule</legend>
        {kind !== 'heartbeat' && (
          <>
            <Field name="interval_s" label="Every (seconds)" inputMode="numeric" defaultValue={str(draft.interval_s ?? 60)} hint="At least 10." />
            <Field name="timeout_ms" label="Timeout (ms)" inputMode="numeric" defaultValue={str(draft.timeout_ms ?? 10_000)} hint="At most the interval." />
          </>
        )}
        <Field name="down_after" label="Down after" inputMode="numeric" defaultValue={str(draft.down_after ?? 3)} hint="Failures in a row." />
        <Field name="up_after" label="Up after" inputMode="numeric" defaultValue={str(draft.up_after ?? 2)} hint="Successes in a row." />
      </fieldset>
      {kind !== 'heartbeat' && (
        <fieldset class="ck-fieldset">
          <legend>Where it runs</legend>
          <label class="check">
            <input type="checkbox" name="run_on_hub" defaultChecked={draft.run_on_hub ?? true} />
            <span>
              The hub <span class="hint">(this server, under the account's outbound policy)</span>
            </span>
          </label>
          <GroupError name="run_on_hub" />
          {devices.length > 0 ? (
            devices.map((d) => (
              <label key={d.device_id} class="check">
                <input type="checkbox" name="device_ids" value={d.device_id} defaultChecked={runsOn.has(d.device_id)} />
                <span>
                  {deviceName(d)} <span class="hint">(its agent, inside its own network)</span>
                </span>
              </label>
            ))
          ) : (
            <p class="hint">Agents can run checks inside their own network (a router, a NAS, an intranet site); add a device to choose one.</p>
          )}
          <GroupError name="device_ids" />
        </fieldset>
      )}
      <Field
        name="depends_on_device_id"
        label="Depends on"
        optional
        hint="While this device is offline, the check sends no notice of its own."
        control={(p) => <Select {...p} options={dependencies} selected={draft.depends_on_device_id ?? ''} />}
      />
    </Form>
  )
}
