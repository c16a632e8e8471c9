/**
 * The shapes the settings pages read, derived from the server's own TypeBox models (type-only
 * imports: nothing of the server enters the bundle), so a field renamed there fails the
 * portal's typecheck instead of reading undefined here.
 */
import type { Static } from '@sinclair/typebox'
import type * as Admin from '../../../src/modules/admin/admin.model'
import type * as Ai from '../../../src/modules/ai/ai.model'
import type * as Keys from '../../../src/modules/api-keys/api-keys.model'
import type * as Billing from '../../../src/modules/billing/billing.model'
import type * as Clients from '../../../src/modules/clients/clients.model'
import type * as Versions from '../../../src/modules/versions/versions.model'

export type { Page } from '../alerts/types'
export type { DeviceRef } from '../devices/device-types'

/** The scopes a key may carry: the form lists them, so the list is a value here, held to the server's by type. */
export type Scope = Static<typeof Keys.ScopeSchema>
export const SCOPES = ['metrics:write', 'recommendations:write', 'devices:write', 'versions:read', 'metrics:read'] as const satisfies readonly Scope[]
// a scope the server adds and this list lacks fails the typecheck here
const everyScope: [Exclude<Scope, (typeof SCOPES)[number]>] extends [never] ? true : never = true
void everyScope
export const DEFAULT_SCOPES: Scope[] = ['metrics:write', 'recommendations:write'] satisfies (typeof Keys.DEFAULT_SCOPES)[number][]

export type ApiKey = Keys.APIKeyResponse
export type MemberRole = Static<typeof Clients.MemberRoleSchema>
export type Member = Clients.MemberResponse
/** POST /v1/clients/me/members answers the member with its invitation's token (shown once) */
export type InvitationCreated = Member & { invitation_token: string; invitation_expires_at: string }
export type Client = Clients.ClientResponse

export type Plan = Billing.PlanInfo
export type Subscription = Billing.SubscriptionResponse
export type Payment = Billing.Payment

export type AiProviderInfo = Static<typeof Ai.ProviderInfo>
export type AiProviderId = AiProviderInfo['id']
export type AiProviderField = Static<typeof Ai.ProviderField>
export type AiProviders = Static<typeof Ai.ProviderList>
export type AiConfig = Ai.AiConfig
export type AiUsageEntry = Ai.UsageEntry
export type AiUsage = Static<typeof Ai.UsagePage>
export type AiTestResult = Ai.TestResult

export type AdminClient = Static<typeof Admin.AdminClient>
export type CollectorVersion = Versions.VersionResponse
export type InstanceSettings = Admin.InstanceSettingsResponse
