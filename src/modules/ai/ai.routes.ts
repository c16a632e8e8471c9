import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { guards } from '../../http/guards'
import { recommendationsDeps } from '../recommendations/recommendations.routes'
import { presentConfig, updateConfig, updatePrompt } from './ai.config.service'
import { aiJobs } from './ai.jobs'
import { AiConfig, AiConfigPatch, DeviceParams, GenerateResult, PromptPatch, PromptResponse, ProviderList, TestResult, UsagePage, UsageQuery } from './ai.model'
import { PROMPT_VARIABLES } from './ai.prompt'
import { PROVIDER_CATALOG } from './ai.providers'
import { generateForDevice, testProvider, usagePage, type AiDeps } from './ai.service'
import { systemLookup } from './ai.ssrf'
import { aiStore } from './ai.store'

export const aiDeps = (ctx: AppContext, overrides: Partial<AiDeps> = {}): AiDeps => ({
  store: aiStore(ctx.db.sqlite),
  clock: ctx.clock,
  defaults: ctx.config.ai,
  secretKey: ctx.secretKey,
  recs: recommendationsDeps(ctx),
  metrics: ctx.metricsSource,
  fetch: ctx.fetch,
  lookup: systemLookup,
  logger: ctx.logger,
  timeoutMs: ctx.config.ai.timeoutMs,
  ...overrides,
})

export function aiRoutes(ctx: AppContext) {
  const deps = aiDeps(ctx)
  ctx.jobs.push(...aiJobs(deps))
  const tags = ['ai']
  const managers = { roles: ['owner', 'admin'] as ('owner' | 'admin')[] }
  return new Elysia({ prefix: '/v1/ai' })
    .use(guards(ctx))
    .get('/providers', () => ({ items: PROVIDER_CATALOG, instance_default: ctx.config.ai.provider, prompt_variables: { ...PROMPT_VARIABLES } }), {
      response: { 200: ProviderList },
      detail: { tags, summary: 'Provider types with their config fields and defaults (public)' },
    })
    .get('/config', ({ user }) => presentConfig(deps, user.clientId), {
      user: true,
      response: { 200: AiConfig },
      detail: { tags, summary: "The client's AI configuration (API key masked)" },
    })
    .patch('/config', ({ user, body }) => updateConfig(deps, user.clientId, body), {
      user: managers,
      body: AiConfigPatch,
      response: { 200: AiConfig },
      detail: { tags, summary: 'Change provider, model, base_url, api_key, temperature, max_tokens, schedule, enabled (owner/admin)' },
    })
    .patch('/prompt', ({ user, body }) => updatePrompt(deps, user.clientId, body.prompt), {
      user: managers,
      body: PromptPatch,
      response: { 200: PromptResponse },
      detail: { tags, summary: 'Set a custom prompt template, or null for the default (owner/admin)' },
    })
    .get('/usage', ({ user, query }) => usagePage(deps, user.clientId, query), {
      user: true,
      query: UsageQuery,
      response: { 200: UsagePage },
      detail: { tags, summary: 'Language-model usage log with totals and the daily budget' },
    })
    .post('/test', ({ user }) => testProvider(deps, user.clientId), {
      user: managers,
      response: { 200: TestResult },
      detail: { tags, summary: 'One small call to the configured provider (counts against the budget; owner/admin)' },
    })
    .post('/generate/:device_id', ({ user, params }) => generateForDevice(deps, user.clientId, params.device_id), {
      user: managers,
      params: DeviceParams,
      response: { 200: GenerateResult },
      detail: { tags, summary: 'Run the rules and the configured model for a device now (owner/admin)' },
    })
}
