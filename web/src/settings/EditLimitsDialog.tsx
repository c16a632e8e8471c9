import { useEffect, useRef } from 'preact/hooks'
import { api } from '../lib/api'
import { Button, Field, Form } from '../ui'
import { limitsPatch } from './limits'
import type { AdminClient, Plan } from './types'

export function EditLimitsDialog({ client, plans, onClose, onSaved }: { client: AdminClient | null; plans: Plan[]; onClose: () => void; onSaved: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const d = ref.current
    if (!d) return
    if (client && !d.open) d.showModal()
    if (!client && d.open) d.close()
  }, [client])
  const plan = plans.find((p) => p.id === client?.plan_type)
  const submit = async (data: FormData) => {
    const patch = limitsPatch(client!, data)
    if (Object.keys(patch).length) await api.patch(`/v1/admin/clients/${encodeURIComponent(client!.client_id)}`, patch)
    onSaved()
    onClose()
  }
  return (
    <dialog ref={ref} class="dialog dialog-wide" aria-labelledby="limits-title" onClose={onClose}>
      {client && (
        <>
          <h2 id="limits-title">Limits of {client.name ?? client.owner_email ?? client.client_id}</h2>
          <Form
            key={client.client_id}
            onSubmit={submit}
            submitLabel="Save limits"
            label="Plan and limits"
            secondary={
              <Button variant="ghost" onClick={onClose}>
                Cancel
              </Button>
            }
          >
            <Field
              name="plan_type"
              label="Plan"
              hint="Changing the plan applies its device and member limits, unless you set them below."
              control={(p) => (
                <select {...p}>
                  {plans.map((x) => (
                    <option key={x.id} value={x.id} selected={x.id === client.plan_type}>
                      {x.name}
                    </option>
                  ))}
                </select>
              )}
            />
            <div class="field-row">
              <Field
                name="max_devices"
                optional
                label="Max devices"
                type="number"
                min={0}
                max={1_000_000}
                defaultValue={client.max_devices_override === null ? '' : String(client.max_devices_override)}
                placeholder={`plan: ${plan?.max_devices ?? client.max_devices}`}
                hint={`In use: ${client.usage.devices}`}
              />
              <Field
                name="max_users"
                optional
                label="Max members"
                type="number"
                min={1}
                max={1_000_000}
                defaultValue={client.max_users_override === null ? '' : String(client.max_users_override)}
                placeholder={`plan: ${plan?.max_users ?? client.max_users}`}
                hint={`In use: ${client.usage.members}`}
              />
            </div>
            <Field
              name="rate_limit"
              optional
              label="Requests per minute"
              type="number"
              min={1}
              max={10_000_000}
              defaultValue={client.rate_limit === null ? '' : String(client.rate_limit)}
              placeholder={plan ? `plan: ${plan.rate_limit}` : 'the plan’s'}
              hint="Empty fields follow the plan. A value set here stays through plan changes from billing."
            />
          </Form>
        </>
      )}
    </dialog>
  )
}
