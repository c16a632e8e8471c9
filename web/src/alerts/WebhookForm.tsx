import { api } from '../lib/api'
import { Field, Form, useFormState } from '../ui'
import type { EventTypeInfo, WebhookEndpoint } from './types'

/** Creates or edits an endpoint: its URL, what it is for, and the event types it receives. */
export function WebhookForm({
  editing,
  eventTypes,
  onSaved,
  onCancel,
}: {
  editing: WebhookEndpoint | null
  eventTypes: EventTypeInfo[]
  onSaved: (e: WebhookEndpoint) => void
  onCancel: () => void
}) {
  const submit = async (d: FormData) => {
    const body = {
      url: String(d.get('url') ?? '').trim(),
      description: String(d.get('description') ?? '').trim(),
      event_types: d.getAll('event_types').map(String),
      enabled: d.get('enabled') !== null,
    }
    onSaved(
      editing
        ? await api.patch<WebhookEndpoint>(`/v1/webhooks/endpoints/${encodeURIComponent(editing.id)}`, body)
        : await api.post<WebhookEndpoint>('/v1/webhooks/endpoints', body),
    )
  }
  const chosen = new Set(editing?.event_types ?? eventTypes.filter((t) => t.type.startsWith('alert.')).map((t) => t.type))
  return (
    <Form
      key={editing?.id ?? 'new'}
      onSubmit={submit}
      submitLabel={editing ? 'Save endpoint' : 'Create endpoint'}
      label={editing ? 'Edit webhook endpoint' : 'New webhook endpoint'}
      secondary={
        <button type="button" class="btn btn-secondary" onClick={onCancel}>
          Cancel
        </button>
      }
    >
      <Field
        name="url"
        label="URL"
        type="url"
        required
        class="field-mono"
        defaultValue={editing?.url ?? ''}
        placeholder="https://example.com/hooks/vigil"
        hint="Signed POSTs (Standard Webhooks) go here; answer 2xx to accept. 410 Gone disables the endpoint."
      />
      <Field name="description" label="Description" optional maxLength={500} defaultValue={editing?.description ?? ''} />
      <EventTypesField eventTypes={eventTypes} chosen={chosen} />
      <label class="check">
        <input type="checkbox" name="enabled" defaultChecked={editing?.enabled ?? true} />
        Enabled
      </label>
    </Form>
  )
}

/** The event types as checkboxes, each with what its data holds; a 422 on event_types shows under them. */
function EventTypesField({ eventTypes, chosen }: { eventTypes: EventTypeInfo[]; chosen: Set<string> }) {
  const error = useFormState().errors.event_types
  return (
    <fieldset class="group" aria-describedby={error ? 'event-types-error' : undefined}>
      <legend>Events to send</legend>
      <div class="event-types">
        {eventTypes.map((t) => (
          <label key={t.type} class="check event-type">
            <input type="checkbox" name="event_types" value={t.type} defaultChecked={chosen.has(t.type)} aria-invalid={error ? 'true' : undefined} />
            <span>
              <code>{t.type}</code>
              <span class="hint"> {t.description}</span>
            </span>
          </label>
        ))}
      </div>
      {error && (
        <p class="error" id="event-types-error">
          {error}
        </p>
      )}
    </fieldset>
  )
}
