import type { Logger } from '../../lib/logger'
import { toIso } from '../../lib/clock'
import { AppError, notFound } from '../../http/errors'
import type { NewRecommendation, Recommendation } from '../recommendations/recommendations.model'
import { effectiveConfig, providerPolicy, type AiConfigDeps, type EffectiveConfig } from './ai.config.service'
import { ProviderCallError } from './ai.http'
import { KEEP_MS, type HubRunsPort } from './ai.hub-runs'
import type { DeviceMetrics, MetricsSource } from './ai.metrics-source'
import type { GenerateResult, TestResult, UsageEntry } from './ai.model'
import { InvalidOutput, parseModelAnswer } from './ai.parse'
import { compactSummary, renderPrompt, SYSTEM_PROMPT } from './ai.prompt'
import { chat, type ChatRequest, type ChatResult, type Connection } from './ai.providers'
import { coveredWindow, runRules, SUMMARY_HOURS } from './ai.rules'

/** The facts about a device the engine reads (prompt, availability rule). */
export interface AiDevice {
  hostname: string | null
  os: string | null
  os_version: string | null
  created_at: number
  last_seen_at: number | null
}

/** What the engine needs of the devices domain. */
export interface AiDevices {
  find(clientId: string, deviceId: string): Awaitable<AiDevice | null>
  ids(clientId: string): Awaitable<string[]>
  /** clients with at least one device, in id order */
  clients(): Awaitable<string[]>
}

/** the devices domain may answer either way: awaited */
type Awaitable<T> = T | Promise<T>

/** Where findings go: the recommendations domain, which skips those it stored recently. */
export interface FindingsSink {
  store(clientId: string, findings: NewRecommendation[]): Promise<{ stored: Recommendation[]; skipped: number }>
}

export interface AiDeps extends AiConfigDeps {
  devices: AiDevices
  findings: FindingsSink
  metrics: MetricsSource
  logger: Logger
  timeoutMs: number
  /** response cap override for tests; default MAX_RESPONSE_BYTES */
  maxResponseBytes?: number
  /** the hub's own runs: its restarts are not a device's packet loss (absent: none known) */
  hubRuns?: HubRunsPort
}

const DAY_MS = 86_400_000
const dayStart = (now: number) => now - (now % DAY_MS)

/** A provider's message may quote what we sent; the key must never reach the usage log or a response. */
const scrub = (text: string, secret: string | null) => (secret && secret.length >= 4 ? text.split(secret).join('[redacted]') : text)

function budgetSpent(deps: AiDeps, now: number) {
  return new AppError('budget_exceeded', `The daily budget of ${deps.defaults.dailyBudget} language-model calls is spent; it resets at 00:00 UTC`, undefined, {
    'retry-after': String(Math.ceil((dayStart(now) + DAY_MS - now) / 1000)),
  })
}

/** `result` is kept on an invalid answer too: its tokens were spent and belong in the usage log. */
type CallOutcome = { ok: true; result: ChatResult } | { ok: false; status: string; error: string; detail?: string; result?: ChatResult }

/**
 * One language-model call under the budget: reserve a usage row (or refuse with 429), call,
 * then record the outcome. Failures are returned, not thrown, so a caller can report them.
 */
async function budgetedCall(
  deps: AiDeps,
  clientId: string,
  eff: EffectiveConfig & { connection: Connection },
  kind: 'generate' | 'test',
  deviceId: string | null,
  req: ChatRequest,
  check?: (text: string) => void,
): Promise<CallOutcome & { latencyMs: number }> {
  const conn = eff.connection
  const now = deps.clock.now()
  const usageId = await deps.store.reserveCall(
    clientId,
    deps.defaults.dailyBudget,
    dayStart(now),
    { deviceId, kind, provider: conn.provider, model: conn.model },
    now,
  )
  if (!usageId) throw budgetSpent(deps, now)
  const started = performance.now()
  let outcome: CallOutcome
  let result: ChatResult | undefined
  try {
    const policy = await providerPolicy(deps, clientId, eff.inherited)
    result = await chat({ ...deps.outbound, policy, timeoutMs: deps.timeoutMs, maxBytes: deps.maxResponseBytes }, conn, req)
    check?.(result.text)
    outcome = { ok: true, result }
  } catch (err) {
    const status = err instanceof ProviderCallError ? err.status : err instanceof InvalidOutput ? 'invalid_output' : 'provider_error'
    const detail = err instanceof ProviderCallError && err.detail ? scrub(err.detail, conn.apiKey) : undefined
    outcome = { ok: false, status, error: scrub((err as Error).message, conn.apiKey).slice(0, 1000), detail, result }
  }
  const latencyMs = Math.round(performance.now() - started)
  await deps.store.finishCall(usageId, {
    status: outcome.ok ? 'ok' : outcome.status,
    error: outcome.ok ? null : outcome.error,
    tokensIn: outcome.result?.tokensIn ?? null,
    tokensOut: outcome.result?.tokensOut ?? null,
    latencyMs,
    model: outcome.result?.model ?? conn.model,
  })
  // `detail` (what the remote said, which address was refused) is for the operator's log only
  if (!outcome.ok)
    deps.logger.warn('language-model call failed', {
      client_id: clientId,
      provider: conn.provider,
      kind,
      status: outcome.status,
      error: outcome.error,
      detail: outcome.detail,
    })
  return { ...outcome, latencyMs }
}

/** POST /v1/ai/test: one tiny call that proves the connection, or says why not. */
export async function testProvider(deps: AiDeps, clientId: string): Promise<TestResult> {
  const eff = await effectiveConfig(deps, clientId)
  if (!eff.connection) return { ok: true, provider: 'rules', model: null, latency_ms: 0, error: null }
  const r = await budgetedCall(deps, clientId, { ...eff, connection: eff.connection }, 'test', null, {
    system: 'Answer with the JSON object {"ok":true} and nothing else.',
    user: 'Connection test.',
    temperature: 0,
    maxTokens: 16,
  })
  return {
    ok: r.ok,
    provider: eff.provider,
    model: r.ok ? r.result.model : eff.connection.model,
    latency_ms: r.latencyMs,
    error: r.ok ? null : r.error,
  }
}

/**
 * One generation for a device: the rules always run (offline, cheap); a configured language
 * model adds its items. Everything goes through the recommendations store with dedupe.
 * `onBudget` decides what a spent budget means: an error for on-demand, a skip for the schedule.
 */
export async function generateForDevice(
  deps: AiDeps,
  clientId: string,
  deviceId: string,
  opts: { onBudget: 'throw' | 'skip' } = { onBudget: 'throw' },
): Promise<GenerateResult> {
  const device = await deps.devices.find(clientId, deviceId)
  if (!device) throw notFound('Device')
  const eff = await effectiveConfig(deps, clientId)
  const now = deps.clock.now()
  if (eff.connection && opts.onBudget === 'throw' && (await deps.store.callsSince(clientId, dayStart(now))) >= deps.defaults.dailyBudget) {
    // refuse before storing anything, so a 429 means "nothing happened"
    throw budgetSpent(deps, now)
  }
  const { summary, series } = await deps.metrics.read(clientId, deviceId, SUMMARY_HOURS)
  // read once for the rules, which look back a week at most
  const gaps = deps.hubRuns ? await deps.hubRuns.gaps(now - KEEP_MS, now) : []
  const findings = runRules({
    now,
    device: { hostname: device.hostname, createdAt: device.created_at, lastSeenAt: device.last_seen_at },
    summary,
    series,
    hubGaps: (from, to) => gaps.filter((g) => g.to >= from && g.from <= to),
  })
  const rules = await deps.findings.store(
    clientId,
    findings.map((f) => ({
      deviceId,
      recommendation: f.recommendation,
      category: f.category,
      severity: f.severity,
      source: 'rules',
      evidence: f.evidence,
      dedupeKey: f.key,
    })),
  )
  const items: Recommendation[] = [...rules.stored]
  let skipped = rules.skipped
  let llm: GenerateResult['llm'] = null

  // Without enough metrics (the rules' minimum) there is nothing a model could fairly judge; do not spend a call on it.
  const covered = summary ? coveredWindow(summary) : null
  if (eff.connection && summary && covered) {
    const outcome = await llmRun(deps, clientId, deviceId, eff, device, summary, covered.hours, opts.onBudget)
    if (outcome) {
      llm = { provider: eff.provider, model: eff.connection.model, status: outcome.status, error: outcome.error }
      if (outcome.items.length) {
        const stored = await deps.findings.store(
          clientId,
          outcome.items.map((i) => ({
            deviceId,
            recommendation: i.recommendation,
            category: i.category,
            severity: i.severity,
            source: eff.provider,
            evidence: { window_hours: SUMMARY_HOURS, from: covered.from, to: covered.to, covered_hours: covered.hours, model: eff.connection!.model },
            // the same sentence from the model is the same advice
            dedupeKey: `${eff.provider}:${Bun.hash(i.recommendation.toLowerCase().replace(/\s+/g, ' ')).toString(36)}`,
          })),
        )
        items.push(...stored.stored)
        skipped += stored.skipped
      }
    }
  }
  return { device_id: deviceId, items, skipped_duplicates: skipped, llm }
}

async function llmRun(
  deps: AiDeps,
  clientId: string,
  deviceId: string,
  eff: EffectiveConfig,
  device: AiDevice,
  summary: NonNullable<DeviceMetrics['summary']>,
  coveredHours: number,
  onBudget: 'throw' | 'skip',
) {
  const user = renderPrompt(eff.prompt, {
    hostname: device.hostname ?? 'unknown',
    os: [device.os, device.os_version].filter(Boolean).join(' ') || 'unknown',
    hours: String(coveredHours),
    summary: compactSummary(summary),
  })
  let parsed: ReturnType<typeof parseModelAnswer> = []
  try {
    const r = await budgetedCall(
      deps,
      clientId,
      { ...eff, connection: eff.connection! },
      'generate',
      deviceId,
      { system: SYSTEM_PROMPT, user, temperature: eff.temperature, maxTokens: eff.maxTokens },
      (text) => {
        parsed = parseModelAnswer(text)
      },
    )
    return r.ok ? { status: 'ok', error: null, items: parsed } : { status: r.status, error: r.error, items: [] }
  } catch (err) {
    if (err instanceof AppError && err.code === 'budget_exceeded' && onBudget === 'skip') {
      deps.logger.info('language-model budget spent; rules only', { client_id: clientId, device_id: deviceId })
      return { status: 'budget_exceeded', error: err.message, items: [] }
    }
    throw err
  }
}

export async function usagePage(deps: AiDeps, clientId: string, q: { limit: number; offset: number; start_date?: string | null; end_date?: string | null }) {
  const from = q.start_date ? Date.parse(q.start_date) : 0
  const to = q.end_date ? Date.parse(q.end_date) : Number.MAX_SAFE_INTEGER
  const { items, totals } = await deps.store.usage(clientId, from, to, q.limit, q.offset)
  const today = await deps.store.callsSince(clientId, dayStart(deps.clock.now()))
  return {
    items: items.map(
      (u): UsageEntry => ({
        id: u.id,
        created_at: toIso(u.created_at),
        kind: u.kind as UsageEntry['kind'],
        provider: u.provider,
        model: u.model,
        device_id: u.device_id,
        tokens_in: u.tokens_in,
        tokens_out: u.tokens_out,
        latency_ms: u.latency_ms,
        status: u.status,
        error: u.error,
      }),
    ),
    limit: q.limit,
    offset: q.offset,
    total: totals.calls,
    totals: { calls: totals.calls, ok: totals.ok, failed: totals.calls - totals.ok, tokens_in: totals.tokens_in, tokens_out: totals.tokens_out },
    today: { calls: today, budget: deps.defaults.dailyBudget, remaining: Math.max(0, deps.defaults.dailyBudget - today) },
  }
}
