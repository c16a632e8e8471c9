import type { Plan } from './types'

/** A feature line that only restates a limit shown beside it ("10 devices"): left out, not said twice. */
export function extraFeatures(plan: Plan): string[] {
  const limits: Record<string, number> = { device: plan.max_devices, member: plan.max_users, user: plan.max_users, request: plan.rate_limit }
  return plan.features.filter((f) => {
    const m = /^([\d,]+)\s+(device|member|user|request)s?\b/i.exec(f.trim())
    return !m || Number(m[1]!.replaceAll(',', '')) !== limits[m[2]!.toLowerCase()]
  })
}
