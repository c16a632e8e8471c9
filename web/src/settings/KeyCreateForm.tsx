import { useState } from 'preact/hooks'
import { ApiError, api } from '../lib/api'
import { Button, Card, Field, Form, useFormState } from '../ui'
import { expiryOf } from './expiry'
import { DEFAULT_SCOPES, SCOPES, type ApiKey, type DeviceRef, type Scope } from './types'

/** What each scope lets a key do, in the words a person choosing them needs. */
const SCOPE_HINTS: Record<Scope, string> = {
  'metrics:write': 'send metrics, register devices, check for collector updates',
  'recommendations:write': 'send recommendations',
  'devices:write': 'register devices',
  'versions:read': 'check for collector updates',
  'metrics:read': 'scrape /metrics with Prometheus',
}

function ScopeBoxes() {
  const { errors } = useFormState()
  const message = errors.scopes
  return (
    <fieldset class={`field checks${message ? ' field-invalid' : ''}`} aria-describedby={message ? 'scopes-error' : undefined}>
      <legend>Scopes</legend>
      {SCOPES.map((s) => (
        <label key={s} class="check">
          <input type="checkbox" name="scopes" value={s} defaultChecked={DEFAULT_SCOPES.includes(s)} />
          <span>
            <code class="mono">{s}</code> <span class="muted">— {SCOPE_HINTS[s]}</span>
          </span>
        </label>
      ))}
      {message && (
        <p class="error" id="scopes-error">
          {message}
        </p>
      )}
    </fieldset>
  )
}

/** The new-key form: name, scopes, an optional device binding and expiry. */
export function KeyCreateForm({ devices, onCreated, onCancel }: { devices: DeviceRef[]; onCreated: (key: ApiKey) => void; onCancel: () => void }) {
  const [expiry, setExpiry] = useState('never')
  const submit = async (data: FormData) => {
    const scopes = data.getAll('scopes').map(String)
    // none ticked would quietly get the defaults from the API: ask instead
    if (!scopes.length)
      throw new ApiError(422, 'validation_error', 'Choose at least one scope', null, [
        { loc: ['body', 'scopes'], msg: 'Choose at least one scope', type: 'missing' },
      ])
    const device = String(data.get('device_id') ?? '')
    const key = await api.post<ApiKey>('/v1/auth/api-keys', {
      name: String(data.get('name') ?? '').trim(),
      scopes,
      device_id: device || null,
      expires_at: expiryOf(expiry, String(data.get('expires_on') ?? '')),
    })
    onCreated(key)
  }
  return (
    <Card title="New API key">
      <Form
        onSubmit={submit}
        submitLabel="Create key"
        label="New API key"
        secondary={
          <Button onClick={onCancel} variant="ghost">
            Cancel
          </Button>
        }
      >
        <Field name="name" label="Name" required maxLength={100} hint="Where it is used, e.g. “web-01 collector” or “Prometheus”." autocomplete="off" />
        <ScopeBoxes />
        <div class="field-row">
          <Field
            name="device_id"
            label="Device"
            hint="A key bound to one device can only act for it."
            control={(p) => (
              <select {...p}>
                <option value="">All devices of the account</option>
                {devices.map((d) => (
                  <option key={d.device_id} value={d.device_id}>
                    {d.name ?? d.hostname}
                  </option>
                ))}
              </select>
            )}
          />
          <Field
            name="expires_at"
            label="Expires"
            control={(p) => (
              <select {...p} value={expiry} onChange={(e) => setExpiry((e.target as HTMLSelectElement).value)}>
                <option value="never">Never</option>
                <option value="30">In 30 days</option>
                <option value="90">In 90 days</option>
                <option value="365">In a year</option>
                <option value="date">On a date…</option>
              </select>
            )}
          />
        </div>
        {expiry === 'date' && <Field name="expires_on" label="Expiry date" type="date" required hint="The key stops working at the end of that day." />}
      </Form>
    </Card>
  )
}
