import { ApiError, api } from '../lib/api'
import { Field, Form } from '../ui'
import { configFromForm } from './channel-form'
import { Select } from '../ui/Select'
import type { Channel, ChannelSeverity, KindField, KindInfo } from './types'

const SEVERITY_CHOICES: { value: ChannelSeverity; label: string }[] = [
  { value: 'info', label: 'Everything (info and up)' },
  { value: 'warning', label: 'Warning and critical' },
  { value: 'critical', label: 'Critical only' },
]

/**
 * Creates or edits a channel: the kind's fields come from GET /v1/channels/kinds. Secrets are
 * write-only: an edit shows the masked value as a hint and keeps it unless something is typed.
 */
export function ChannelForm({
  kind,
  editing,
  onSaved,
  onCancel,
}: {
  kind: KindInfo
  editing: Channel | null
  onSaved: (c: Channel) => void
  onCancel: () => void
}) {
  const submit = async (d: FormData) => {
    const read = (name: string) => {
      const v = d.get(name)
      return v === null ? null : String(v)
    }
    const config = configFromForm(kind.fields, read, editing)
    const body = {
      name: String(d.get('name') ?? '').trim(),
      min_severity: String(d.get('min_severity') ?? 'info'),
      enabled: d.get('enabled') !== null,
      config,
    }
    try {
      const saved = editing
        ? await api.patch<Channel>(`/v1/channels/${encodeURIComponent(editing.id)}`, body)
        : await api.post<Channel>('/v1/channels', { ...body, kind: kind.id })
      onSaved(saved)
    } catch (err) {
      // a refused address names the whole config: show it at the kind's address field (URL, server, host)
      const target = kind.fields.find((f) => f.type === 'url' || f.name === 'host')
      if (err instanceof ApiError && err.code === 'unsafe_url' && err.param === 'config' && target) {
        throw new ApiError(err.status, err.code, err.message, `config.${target.name}`)
      }
      throw err
    }
  }
  return (
    <Form
      key={`${kind.id}-${editing?.id ?? 'new'}`}
      onSubmit={submit}
      submitLabel={editing ? 'Save channel' : 'Create channel'}
      label={editing ? `Edit ${editing.name}` : `New ${kind.name} channel`}
      secondary={
        <button type="button" class="btn btn-secondary" onClick={onCancel}>
          Cancel
        </button>
      }
    >
      <p class="hint">{kind.description}</p>
      <div class="field-row">
        <Field name="name" label="Name" required defaultValue={editing?.name ?? ''} maxLength={100} hint="How alerts and the delivery log name it." />
        <Field name="min_severity" label="Send" control={(p) => <Select {...p} options={SEVERITY_CHOICES} selected={editing?.min_severity ?? 'info'} />} />
      </div>
      {kind.fields.map((f) => (
        <KindFieldInput key={f.name} field={f} editing={editing} />
      ))}
      <label class="check">
        <input type="checkbox" name="enabled" defaultChecked={editing?.enabled ?? true} />
        Enabled
      </label>
    </Form>
  )
}

function KindFieldInput({ field: f, editing }: { field: KindField; editing: Channel | null }) {
  const name = `config.${f.name}`
  const current = editing?.config[f.name]
  const hint = f.description ? sentence(f.description) : undefined
  if (f.secret) {
    const masked = editing?.secrets[f.name]
    return (
      <div class="secret-field">
        <Field
          name={name}
          type="password"
          label={f.label}
          optional={!f.required || !!masked}
          autocomplete="new-password"
          placeholder={masked ? `${masked} (kept unless you type a new one)` : undefined}
          hint={
            <>
              {hint}
              {hint ? ' ' : ''}Stored encrypted and never shown again.
            </>
          }
        />
        {masked && !f.required && (
          <label class="check check-small">
            <input type="checkbox" name={`${name}.clear`} />
            Remove the stored {f.label.toLowerCase()}
          </label>
        )}
      </div>
    )
  }
  if (f.type === 'boolean') {
    return (
      <label class="check">
        <input type="checkbox" name={name} defaultChecked={current === undefined ? f.default === true : current === true} />
        {f.label}
        {hint && <span class="hint"> — {hint}</span>}
      </label>
    )
  }
  if (f.type === 'enum') {
    return (
      <Field
        name={name}
        label={f.label}
        optional={!f.required}
        hint={hint}
        control={(p) => (
          <Select
            {...p}
            selected={current === undefined ? '' : String(current)}
            options={[
              ...(f.required ? [] : [{ value: '', label: f.default === null ? 'Not set' : `Default (${f.default})` }]),
              ...(f.options ?? []).map((o) => ({ value: o, label: o })),
            ]}
          />
        )}
      />
    )
  }
  if (f.type === 'string_list') {
    return (
      <Field
        name={name}
        label={f.label}
        optional={!f.required}
        hint={hint ? `${hint} One per line.` : 'One per line.'}
        control={(p) => <textarea {...p} rows={3} defaultValue={Array.isArray(current) ? current.join('\n') : ''} />}
      />
    )
  }
  const type = f.type === 'integer' ? 'number' : f.type === 'email' ? 'email' : f.type === 'url' ? 'url' : 'text'
  return (
    <Field
      name={name}
      type={type}
      label={f.label}
      optional={!f.required}
      hint={hint}
      defaultValue={current === undefined ? '' : String(current)}
      placeholder={f.default !== null && f.default !== undefined ? String(f.default) : undefined}
      min={f.minimum}
      max={f.maximum}
      class={f.type === 'url' ? 'field-mono' : undefined}
    />
  )
}

/** The catalogue's descriptions as sentences: capitalised, with a full stop. */
const sentence = (s: string) => {
  const t = s.charAt(0).toUpperCase() + s.slice(1)
  return /[.!?)]$/.test(t) ? t : `${t}.`
}
