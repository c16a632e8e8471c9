import { api } from '../lib/api'
import { Link } from '../lib/router'
import { Card, Field, Form, Skeleton } from '../ui'
import type { AlertSettings, Channel } from './types'
import { useLoad } from '../lib/use-load'

/** Severity routing (every warning / critical alert to these channels, beside its rule's own) and the grouping window. */
export function RoutingCard({ channels, canEdit }: { channels: Channel[]; canEdit: boolean }) {
  const settings = useLoad(() => api.get<AlertSettings>('/v1/alerts/settings'))
  const submit = async (d: FormData) => {
    settings.set(
      await api.patch<AlertSettings>('/v1/alerts/settings', {
        routing: { warning: d.getAll('routing.warning').map(String), critical: d.getAll('routing.critical').map(String) },
        group_window_seconds: Number(d.get('group_window_seconds') ?? 60),
      }),
    )
  }
  const s = settings.data
  return (
    <Card title="Severity routing">
      {!s ? (
        <Skeleton lines={3} label="Loading the routing" />
      ) : (
        <fieldset disabled={!canEdit} class="plain-fieldset form-narrow">
          <Form key={JSON.stringify(s)} onSubmit={submit} submitLabel="Save routing" label="Severity routing">
            <p class="hint">Every alert of a severity also goes to the channels ticked here, whatever its rule names.</p>
            {channels.length === 0 && (
              <p class="hint">
                No channels yet: <Link href="/settings/channels">add one</Link>.
              </p>
            )}
            {channels.length > 0 &&
              (['critical', 'warning'] as const).map((sev) => (
                <fieldset key={sev} class="group">
                  <legend>{sev === 'critical' ? 'Critical alerts' : 'Warnings'}</legend>
                  <div class="checks">
                    {channels.map((c) => (
                      <label key={c.id} class="check">
                        <input type="checkbox" name={`routing.${sev}`} value={c.id} defaultChecked={s.routing[sev].includes(c.id)} />
                        {c.name}
                      </label>
                    ))}
                  </div>
                </fieldset>
              ))}
            <Field
              name="group_window_seconds"
              label="Group notices of one rule within (seconds)"
              type="number"
              min={0}
              max={3600}
              defaultValue={String(s.group_window_seconds)}
              hint="Devices tripping the same rule close together make one notice. 0 sends each alert on its own."
            />
          </Form>
        </fieldset>
      )}
    </Card>
  )
}
