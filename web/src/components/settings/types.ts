/**
 * The API shapes the settings pages read, as /openapi.json declares them (only the fields the
 * pages use). Kept in one place so a renamed field fails the type check here, not at runtime.
 */

export const SCOPES = ['metrics:write', 'recommendations:write', 'devices:write', 'versions:read', 'metrics:read'] as const
export type Scope = (typeof SCOPES)[number]
export const DEFAULT_SCOPES: Scope[] = ['metrics:write', 'recommendations:write']

export interface ApiKey {
  key_id: string
  name: string
  key_prefix: string
  /** the full key: in the creation answer only */
  api_key: string | null
  scopes: string[]
  is_active: boolean
  created_at: string
  last_used_at: string | null
  expires_at: string | null
  device_id: string | null
}

export interface DeviceRef {
  id: string
  hostname: string
  name?: string | null
}

export type MemberRole = 'owner' | 'admin' | 'member'

export interface Member {
  id: string
  client_id: string
  user_id: string
  role: MemberRole
  status: 'active' | 'invited' | 'disabled'
  invited_email: string | null
  email: string | null
  invitation_expires_at: string | null
  created_at: string | null
}

export interface InvitationCreated extends Member {
  invitation_token: string
  invitation_expires_at: string
}

export interface Client {
  client_id: string
  name: string | null
  plan_type: string | null
  subscription_status: string | null
  max_devices: number
  max_users: number
  billing_email: string | null
  created_at: string | null
}

export interface Plan {
  id: string
  name: string
  currency: string
  interval: string
  price: number
  features: string[]
  tier: string
  max_devices: number
  max_users: number
  rate_limit: number
}

export interface Subscription {
  status: string
  plan_id: string | null
  amount: number | null
  currency: string | null
  interval: string | null
  current_period_start: string | null
  current_period_end: string | null
  cancel_at_period_end: boolean
}

export interface Payment {
  id: string
  invoice_id: string
  amount: number
  currency: string
  status: string
  description: string | null
  period_start: string | null
  period_end: string | null
  invoice_url: string | null
  invoice_pdf: string | null
  paid_at: string | null
  created_at: string
}

export interface Page<T> {
  items: T[]
  total: number
  limit: number
  offset: number
}

export type AiProviderId = 'rules' | 'openai' | 'ollama' | 'anthropic'

export interface AiProviderField {
  name: string
  type: 'string' | 'number' | 'integer' | 'boolean'
  required: boolean
  default: string | number | boolean | null
  description: string
}

export interface AiProviderInfo {
  id: AiProviderId
  name: string
  description: string
  network: boolean
  fields: AiProviderField[]
}

export interface AiProviders {
  items: AiProviderInfo[]
  instance_default: AiProviderId
  prompt_variables: Record<string, string>
}

export interface AiConfig {
  provider: AiProviderId
  model: string | null
  base_url: string | null
  /** masked: "••••" plus the last 4 characters */
  api_key: string | null
  api_key_set: boolean
  inherited: boolean
  temperature: number
  max_tokens: number
  schedule: string | null
  effective_schedule: string
  enabled: boolean
  prompt: string
  prompt_custom: boolean
  daily_budget: number
  last_run_at: string | null
  updated_at: string | null
}

export interface AiUsageEntry {
  id: string
  created_at: string
  kind: 'generate' | 'test'
  provider: string
  model: string | null
  device_id: string | null
  tokens_in: number | null
  tokens_out: number | null
  latency_ms: number | null
  status: string
  error: string | null
}

export interface AiUsage extends Page<AiUsageEntry> {
  totals: { calls: number; ok: number; failed: number; tokens_in: number; tokens_out: number }
  today: { calls: number; budget: number; remaining: number }
}

export interface AiTestResult {
  ok: boolean
  provider: AiProviderId
  model: string | null
  latency_ms: number
  error: string | null
}

export interface AdminClient extends Client {
  rate_limit: number | null
  max_devices_override: number | null
  max_users_override: number | null
  usage: { devices: number; members: number; api_keys: number }
  owner_email: string | null
}

export interface CollectorVersion {
  id: string
  platform: string
  version: string
  build_number: number | null
  release_notes: string | null
  download_url: string | null
  sha256: string | null
  is_mandatory: boolean
  created_at: string
}

export interface InstanceSettings {
  mode: 'own' | 'service'
  signup: 'open' | 'invite' | 'closed'
  signup_configured: boolean
  billing_configured: boolean
  site_url: string
  /** what is wrong with site_url as configured (links in mail and checkout would not reach here); absent on an older hub */
  site_url_warning?: string | null
  own_limits: { max_devices: number; max_users: number; rate_limit: number } | null
  outbound_allow_private: boolean
  ai_default_provider: string
}
