import type { AiConfig, AiProviderId } from './types'

/** The AI connection form's state: what is shown, and what a save sends. */
export interface Draft {
  /** '' = the instance's connection */
  provider: '' | AiProviderId
  model: string
  base_url: string
  /** a new key typed in; '' = keep the stored one */
  api_key: string
  /** the stored key is to be removed */
  remove_key: boolean
  temperature: string
  max_tokens: string
  schedule: string
  enabled: boolean
}

export const draftOf = (c: AiConfig): Draft => ({
  provider: c.inherited ? '' : c.provider,
  model: c.inherited ? '' : (c.model ?? ''),
  base_url: c.inherited ? '' : (c.base_url ?? ''),
  api_key: '',
  remove_key: false,
  temperature: String(c.temperature),
  max_tokens: String(c.max_tokens),
  schedule: c.schedule ?? '',
  enabled: c.enabled,
})

/**
 * Only what changed goes into the PATCH. That matters: the server drops a stored key when the
 * base URL moves without a new key, so re-sending the URL shown (the default, when none was
 * set) would silently forget the key.
 */
export function patchOf(initial: Draft, d: Draft): Record<string, unknown> {
  const patch: Record<string, unknown> = {}
  const providerChanged = d.provider !== initial.provider
  if (providerChanged) patch.provider = d.provider || null
  const llm = d.provider !== '' && d.provider !== 'rules'
  if (llm) {
    for (const k of ['model', 'base_url'] as const) {
      const v = d[k].trim()
      // a new provider starts from its defaults: only what was typed goes along
      if (providerChanged ? v !== '' : d[k] !== initial[k]) patch[k] = v || null
    }
    if (d.api_key) patch.api_key = d.api_key
    else if (d.remove_key && !providerChanged) patch.api_key = null
  }
  if (d.temperature !== initial.temperature) patch.temperature = Number(d.temperature)
  if (d.max_tokens !== initial.max_tokens) patch.max_tokens = Number(d.max_tokens)
  if (d.schedule.trim() !== initial.schedule) patch.schedule = d.schedule.trim() || null
  if (d.enabled !== initial.enabled) patch.enabled = d.enabled
  return patch
}
