import type { AdminClient } from './types'

/** A number field's value for the PATCH: empty means "back to the plan's" (null). */
const limitOf = (v: string | File | null) => {
  const s = String(v ?? '').trim()
  return s === '' ? null : Number(s)
}

/**
 * The operator's hand-set plan and limits for one client. A limit left empty follows the plan;
 * a plan change without limits takes the plan's (the API clears the overrides then).
 */
export function limitsPatch(client: AdminClient, data: FormData): Record<string, unknown> {
  const patch: Record<string, unknown> = {}
  const plan = String(data.get('plan_type') ?? '')
  if (plan && plan !== client.plan_type) patch.plan_type = plan
  const fields = [
    ['max_devices', client.max_devices_override],
    ['max_users', client.max_users_override],
    ['rate_limit', client.rate_limit],
  ] as const
  for (const [name, before] of fields) {
    const v = limitOf(data.get(name))
    if (v !== before) patch[name] = v
  }
  return patch
}
