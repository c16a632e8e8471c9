import { Cron } from 'croner'
import { IN_UTC } from '../../jobs/scheduler'
import type { AiDefaults } from '../../config'
import type { Clock } from '../../lib/clock'
import { toIso } from '../../lib/clock'
import { AppError } from '../../http/errors'
import { maskSecret, openSecret, sealSecret } from '../../lib/secret-box'
import type { AiConfig, AiConfigPatch } from './ai.model'
import { DEFAULT_PROMPT, PROMPT_VARIABLES, unknownVariables } from './ai.prompt'
import { defaultBaseUrl, defaultModel, type Connection, type ProviderName } from './ai.providers'
import type { OutboundDeps } from '../../lib/outbound/outbound.fetch'
import { urlProblem, type OutboundPolicy } from '../../lib/outbound/outbound.policy'
import type { AiConfigRow, AiStore, ConfigChanges } from './ai.store'

export interface AiConfigDeps {
  store: AiStore
  clock: Clock
  defaults: AiDefaults
  secretKey: () => Uint8Array
  outbound: OutboundDeps
  /** VIGIL_OUTBOUND_ALLOW_PRIVATE: tenants' providers may be on private networks too */
  allowPrivate: boolean
  /** VIGIL_OUTBOUND_ALLOW_LOCAL: tenants' providers may be on loopback or this host too */
  allowLocal?: boolean
  /** awaited: the users domain may answer either way */
  isOperatorClient: (clientId: string) => boolean | Promise<boolean>
}

export const DEFAULT_SCHEDULE = '0 * * * *' // hourly, at minute 0 (UTC)
export const DEFAULT_TEMPERATURE = 0.2
export const DEFAULT_MAX_TOKENS = 1024

/** Everything a run needs, resolved: the client's own values, else the instance's, else built-in defaults. */
export interface EffectiveConfig {
  provider: ProviderName
  /** null for the rules provider */
  connection: Connection | null
  inherited: boolean
  temperature: number
  maxTokens: number
  schedule: string
  enabled: boolean
  prompt: string
  row: AiConfigRow | null
}

/**
 * The connection (provider, base_url, api_key, model) is inherited as a whole or not at all:
 * mixing the instance's key with a client's base_url would send the operator's key wherever
 * a tenant points it.
 */
export async function effectiveConfig(deps: AiConfigDeps, clientId: string): Promise<EffectiveConfig> {
  const row = await deps.store.config(clientId)
  const inherited = !row?.provider
  const provider = (row?.provider ?? deps.defaults.provider) as ProviderName
  let connection: Connection | null = null
  if (provider !== 'rules') {
    connection = inherited
      ? {
          provider,
          baseUrl: deps.defaults.baseUrl ?? defaultBaseUrl(provider),
          apiKey: deps.defaults.apiKey,
          model: deps.defaults.model ?? defaultModel(provider),
        }
      : { provider, baseUrl: row!.base_url ?? defaultBaseUrl(provider), apiKey: decryptKey(deps, clientId, row!), model: row!.model ?? defaultModel(provider) }
  }
  return {
    provider,
    connection,
    inherited,
    temperature: row?.temperature ?? DEFAULT_TEMPERATURE,
    maxTokens: row?.max_tokens ?? DEFAULT_MAX_TOKENS,
    schedule: row?.schedule ?? DEFAULT_SCHEDULE,
    enabled: row ? row.enabled === 1 : true,
    prompt: row?.prompt ?? DEFAULT_PROMPT,
    row,
  }
}

function decryptKey(deps: AiConfigDeps, clientId: string, row: AiConfigRow): string | null {
  return row.api_key_enc ? openSecret(deps.secretKey(), row.api_key_enc, clientId) : null
}

/**
 * Where a client's provider may be. The instance default comes from the operator's own
 * environment, so it may be anywhere but link-local and metadata (an Ollama next to Vigil is
 * common). A URL set through the API reaches loopback or this host only when the operator allows
 * it for everyone (VIGIL_OUTBOUND_ALLOW_LOCAL); the LAN only for the operator's own client, or for
 * everyone when the operator allows it.
 */
export async function providerPolicy(deps: AiConfigDeps, clientId: string, inherited: boolean): Promise<OutboundPolicy> {
  if (inherited) return { allowPrivate: true, allowLocal: true }
  return { allowPrivate: deps.allowPrivate || (await deps.isOperatorClient(clientId)), allowLocal: deps.allowLocal ?? false }
}

export async function presentConfig(deps: AiConfigDeps, clientId: string): Promise<AiConfig> {
  const eff = await effectiveConfig(deps, clientId)
  const row = eff.row
  // An inherited key belongs to the operator: tenants learn that one is set, nothing of it.
  const key = eff.inherited ? null : (eff.connection?.apiKey ?? null)
  return {
    provider: eff.provider,
    model: eff.connection?.model ?? null,
    base_url: eff.connection?.baseUrl ?? null,
    api_key: key ? maskSecret(key) : null,
    api_key_set: !!eff.connection?.apiKey,
    inherited: eff.inherited,
    temperature: eff.temperature,
    max_tokens: eff.maxTokens,
    schedule: row?.schedule ?? null,
    effective_schedule: eff.schedule,
    enabled: eff.enabled,
    prompt: eff.prompt,
    prompt_custom: !!row?.prompt,
    daily_budget: deps.defaults.dailyBudget,
    last_run_at: row?.last_run_at ? toIso(row.last_run_at) : null,
    updated_at: row ? toIso(row.updated_at) : null,
  }
}

export function validateSchedule(pattern: string): void {
  try {
    new Cron(pattern, { ...IN_UTC, paused: true }).stop()
  } catch (err) {
    throw new AppError('invalid_schedule', `schedule is not a valid cron pattern: ${(err as Error).message}`, 'schedule')
  }
}

export async function updateConfig(deps: AiConfigDeps, clientId: string, patch: AiConfigPatch): Promise<AiConfig> {
  const row = await deps.store.config(clientId)
  const changes: ConfigChanges = {}
  const has = (k: keyof AiConfigPatch) => patch[k] !== undefined

  let provider = row?.provider ?? null
  if (has('provider') && patch.provider !== provider) {
    provider = patch.provider ?? null
    // a new provider starts from its own defaults, and never takes the old key along
    Object.assign(changes, { provider, model: null, base_url: null, api_key_enc: null })
  }
  const connectionFields = (['model', 'base_url', 'api_key'] as const).filter(has)
  if (connectionFields.length && (provider === null || provider === 'rules')) {
    throw new AppError(
      'invalid_parameter',
      `${connectionFields[0]} needs an LLM provider: set provider (openai, ollama or anthropic) in the same request`,
      connectionFields[0],
    )
  }
  if (has('model')) changes.model = patch.model
  if (has('base_url')) {
    if (patch.base_url !== null) {
      const problem = urlProblem(patch.base_url!, await providerPolicy(deps, clientId, false), deps.outbound.selfAddresses, 'base_url')
      if (problem) throw new AppError('unsafe_base_url', problem, 'base_url')
    }
    const next = patch.base_url?.replace(/\/+$/, '') ?? null
    // Moving the endpoint drops a stored key unless a key comes with it: whoever can edit the
    // config but not see the key must not be able to send it to a server of their choosing.
    if (next !== (row?.base_url ?? null) && !has('api_key')) changes.api_key_enc = null
    changes.base_url = next
  }
  if (has('api_key')) changes.api_key_enc = patch.api_key === null ? null : sealSecret(deps.secretKey(), patch.api_key!, clientId)
  if (has('temperature')) changes.temperature = patch.temperature
  if (has('max_tokens')) changes.max_tokens = patch.max_tokens
  if (has('schedule')) {
    if (patch.schedule !== null) validateSchedule(patch.schedule!)
    changes.schedule = patch.schedule
  }
  if (has('enabled')) changes.enabled = patch.enabled
  await deps.store.update(clientId, changes, deps.clock.now())
  return presentConfig(deps, clientId)
}

export async function updatePrompt(deps: AiConfigDeps, clientId: string, prompt: string | null) {
  if (prompt !== null) {
    const unknown = unknownVariables(prompt)
    if (unknown.length) {
      throw new AppError(
        'invalid_prompt',
        `unknown variable {{${unknown[0]}}}; available: ${Object.keys(PROMPT_VARIABLES)
          .map((v) => `{{${v}}}`)
          .join(', ')}`,
        unknown[0],
      )
    }
  }
  await deps.store.update(clientId, { prompt }, deps.clock.now())
  return { prompt: prompt ?? DEFAULT_PROMPT, prompt_custom: prompt !== null, variables: { ...PROMPT_VARIABLES } }
}
