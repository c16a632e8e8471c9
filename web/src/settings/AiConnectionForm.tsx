import { useState } from 'preact/hooks'
import { api } from '../lib/api'
import { Banner, Button, Card, Field, Form } from '../ui'
import { draftOf, patchOf, type Draft } from './ai-draft'
import type { AiConfig, AiProviders } from './types'

/** Provider, model, address and key: how this account reaches a language model. */
export function AiConnectionForm({
  config,
  providers,
  manage,
  onSaved,
}: {
  config: AiConfig
  providers: AiProviders
  manage: boolean
  onSaved: (c: AiConfig) => void
}) {
  const initial = draftOf(config)
  const [d, setD] = useState<Draft>(initial)
  const [replacing, setReplacing] = useState(!config.api_key_set)
  const [saved, setSaved] = useState(false)
  const set = (patch: Partial<Draft>) => {
    setSaved(false)
    setD((x) => ({ ...x, ...patch }))
  }
  const chosen = providers.items.find((p) => p.id === (d.provider || providers.instance_default))
  const defaultOf = (name: string) => {
    const v = chosen?.fields.find((f) => f.name === name)?.default
    return v === null || v === undefined ? '' : String(v)
  }
  const keyRequired = chosen?.fields.find((f) => f.name === 'api_key')?.required ?? false
  const sameProvider = d.provider === initial.provider
  const showKeyBox = sameProvider && config.api_key_set && !config.inherited && !replacing

  const submit = async () => {
    const patch = patchOf(initial, d)
    if (!Object.keys(patch).length) {
      setSaved(true)
      return
    }
    const next = await api.patch<AiConfig>('/v1/ai/config', patch)
    setD(draftOf(next))
    setSaved(true)
    setReplacing(!next.api_key_set)
    onSaved(next)
  }

  const network = d.provider !== '' && chosen?.network
  if (!manage) return <ConnectionFacts config={config} providers={providers} />
  return (
    <Card title="Connection">
      {saved && <Banner tone="success">Saved. The next run uses these settings.</Banner>}
      <Form onSubmit={submit} label="AI connection" submitLabel="Save connection">
        <Field
          name="provider"
          label="Provider"
          hint={chosen?.description}
          control={(p) => (
            <select
              {...p}
              value={d.provider}
              onChange={(e) =>
                set({ provider: (e.target as HTMLSelectElement).value as Draft['provider'], model: '', base_url: '', api_key: '', remove_key: false })
              }
            >
              <option value="">
                Instance default ({providers.items.find((x) => x.id === providers.instance_default)?.name ?? providers.instance_default})
              </option>
              {providers.items.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          )}
        />
        {d.provider === '' && config.inherited && config.provider !== 'rules' && (
          <p class="hint">
            Uses the operator's connection: {config.provider}, model {config.model ?? 'default'}
            {config.api_key_set ? ', with their key' : ''}.
          </p>
        )}
        {network && (
          <>
            <div class="field-row">
              <Field
                name="model"
                label="Model"
                optional
                value={d.model}
                placeholder={defaultOf('model')}
                onInput={(e) => set({ model: (e.target as HTMLInputElement).value })}
                hint="Empty: the provider's default shown."
              />
              <Field
                name="base_url"
                optional
                label="Base URL"
                type="url"
                value={d.base_url}
                placeholder={defaultOf('base_url')}
                onInput={(e) => set({ base_url: (e.target as HTMLInputElement).value })}
                hint={chosen?.fields.find((f) => f.name === 'base_url')?.description}
              />
            </div>
            {showKeyBox ? (
              <div class="field">
                <span class="label">API key</span>
                <div class="key-row">
                  <code class="mono">{config.api_key}</code>
                  {d.remove_key ? (
                    <span class="muted">will be removed when you save</span>
                  ) : (
                    <span class="muted">stored encrypted; it is never shown again</span>
                  )}
                </div>
                <div class="form-actions">
                  <Button small onClick={() => setReplacing(true)}>
                    Replace key
                  </Button>
                  {!keyRequired && (
                    <Button small variant="ghost" onClick={() => set({ remove_key: !d.remove_key })}>
                      {d.remove_key ? 'Keep key' : 'Remove key'}
                    </Button>
                  )}
                </div>
              </div>
            ) : (
              <Field
                name="api_key"
                label={config.api_key_set && sameProvider ? 'New API key' : 'API key'}
                type="password"
                autocomplete="off"
                value={d.api_key}
                required={keyRequired && !(config.api_key_set && sameProvider)}
                optional={!keyRequired}
                onInput={(e) => set({ api_key: (e.target as HTMLInputElement).value })}
                hint="Stored encrypted. After saving, only its last four characters are shown."
              />
            )}
          </>
        )}
        <div class="field-row">
          <Field
            name="temperature"
            label="Temperature"
            type="number"
            min={0}
            max={2}
            step={0.1}
            value={d.temperature}
            onInput={(e) => set({ temperature: (e.target as HTMLInputElement).value })}
          />
          <Field
            name="max_tokens"
            label="Max tokens"
            type="number"
            min={1}
            max={8192}
            step={1}
            value={d.max_tokens}
            onInput={(e) => set({ max_tokens: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div class="field-row">
          <Field
            name="schedule"
            optional
            label="Schedule"
            value={d.schedule}
            placeholder={config.effective_schedule}
            onInput={(e) => set({ schedule: (e.target as HTMLInputElement).value })}
            hint="A cron pattern in UTC; empty: hourly. Each run reviews every device."
          />
          <label class="check check-field">
            <input type="checkbox" checked={d.enabled} onChange={(e) => set({ enabled: (e.target as HTMLInputElement).checked })} />
            <span>Scheduled runs on</span>
          </label>
        </div>
      </Form>
    </Card>
  )
}

/** What members who may not change the connection see. */
function ConnectionFacts({ config, providers }: { config: AiConfig; providers: AiProviders }) {
  const name = providers.items.find((p) => p.id === config.provider)?.name ?? config.provider
  return (
    <Card title="Connection">
      <dl class="facts">
        <dt>Provider</dt>
        <dd>
          {name}
          {config.inherited && <span class="muted"> (the instance default)</span>}
        </dd>
        {config.provider !== 'rules' && (
          <>
            <dt>Model</dt>
            <dd>{config.model ?? '—'}</dd>
            <dt>Base URL</dt>
            <dd class="mono">{config.base_url ?? '—'}</dd>
            <dt>API key</dt>
            <dd>{config.api_key ?? (config.api_key_set ? 'set' : 'none')}</dd>
          </>
        )}
        <dt>Schedule</dt>
        <dd>
          <code class="mono">{config.effective_schedule}</code> (UTC){config.enabled ? '' : ', off'}
        </dd>
      </dl>
    </Card>
  )
}
