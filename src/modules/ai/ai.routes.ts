import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { routeErrors } from '../../http/openapi-errors'
import { jsonInput, queryInput } from '../../http/input'
import { presentConfig, updateConfig, updatePrompt } from './ai.config.service'
import { AiConfig, AiConfigPatch, DeviceParams, GenerateResult, PromptPatch, PromptResponse, ProviderList, TestResult, UsagePage, UsageQuery } from './ai.model'
import { PROMPT_VARIABLES } from './ai.prompt'
import { PROVIDER_CATALOG } from './ai.providers'
import { generateForDevice, testProvider, usagePage, type AiDeps } from './ai.service'

const configPatch = jsonInput(AiConfigPatch)
const promptPatch = jsonInput(PromptPatch)
const usageQuery = queryInput(UsageQuery)

export function aiRoutes(deps: AiDeps, auth: Authenticator) {
  const tags = ['ai']
  const managers = { roles: ['owner', 'admin'] as ('owner' | 'admin')[] }
  return new Elysia({ prefix: '/v1/ai' })
    .use(authGuards(auth))
    .get('/providers', () => ({ items: PROVIDER_CATALOG, instance_default: deps.defaults.provider, prompt_variables: { ...PROMPT_VARIABLES } }), {
      response: { 200: ProviderList },
      detail: { tags, summary: 'Provider types with their config fields and defaults (public)' },
    })
    .get('/config', ({ user }) => presentConfig(deps, user.clientId), {
      user: true,
      response: { 200: AiConfig },
      detail: { tags, summary: "The client's AI configuration (API key masked)" },
    })
    .patch('/config', ({ user, body }) => updateConfig(deps, user.clientId, configPatch.read(body)), {
      user: managers,
      response: { 200: AiConfig },
      detail: {
        ...routeErrors('invalid_parameter', 'unsafe_base_url', 'invalid_schedule'),
        ...configPatch.doc,
        tags,
        summary: 'Change provider, model, base_url, api_key, temperature, max_tokens, schedule, enabled (owner/admin)',
      },
    })
    .patch('/prompt', ({ user, body }) => updatePrompt(deps, user.clientId, promptPatch.read(body).prompt), {
      user: managers,
      response: { 200: PromptResponse },
      detail: { ...routeErrors('invalid_prompt'), ...promptPatch.doc, tags, summary: 'Set a custom prompt template, or null for the default (owner/admin)' },
    })
    .get('/usage', ({ user, request }) => usagePage(deps, user.clientId, usageQuery.read(request)), {
      user: true,
      response: { 200: UsagePage },
      detail: { ...usageQuery.doc, tags, summary: 'Language-model usage log with totals and the daily budget' },
    })
    .post('/test', ({ user }) => testProvider(deps, user.clientId), {
      user: managers,
      response: { 200: TestResult },
      detail: { ...routeErrors('budget_exceeded'), tags, summary: 'One small call to the configured provider (counts against the budget; owner/admin)' },
    })
    .post('/generate/:device_id', ({ user, params }) => generateForDevice(deps, user.clientId, params.device_id), {
      user: managers,
      params: DeviceParams,
      response: { 200: GenerateResult },
      detail: { ...routeErrors('budget_exceeded'), tags, summary: 'Run the rules and the configured model for a device now (owner/admin)' },
    })
}
