import type { Static } from '@sinclair/typebox'
import type { GenerateResult } from '../../../src/modules/ai/ai.model'
import type { Recommendation, RecommendationPage as PageSchema } from '../../../src/modules/recommendations/recommendations.model'

// As the server's models declare them (type-only: nothing of the server is bundled)
/** A recommendation (GET /v1/recommendations/{device_id}) */
export type { Recommendation }
export type RecommendationPage = Static<typeof PageSchema>
/** POST /v1/ai/generate/{device_id} */
export type { GenerateResult }

export const SEVERITIES = ['critical', 'warning', 'info'] as const
export const SEVERITY_RANK: Record<string, number> = { critical: 0, warning: 1, info: 2 }

/** Newest first; the same instant puts the more severe first. */
export function newestFirst(a: Recommendation, b: Recommendation): number {
  return Date.parse(b.created_at) - Date.parse(a.created_at) || (SEVERITY_RANK[a.severity] ?? 3) - (SEVERITY_RANK[b.severity] ?? 3)
}

/** Evidence as label/value lines: nested values shown as compact JSON. */
export function evidenceLines(evidence: Record<string, unknown> | null): { label: string; value: string }[] {
  if (!evidence) return []
  return Object.entries(evidence).map(([k, v]) => ({
    label: k.replace(/_/g, ' '),
    value: typeof v === 'number' ? String(Math.round(v * 100) / 100) : typeof v === 'string' ? v : JSON.stringify(v),
  }))
}

/** What a generate run did, in one sentence. */
export function generateSummary(r: GenerateResult): string {
  const n = r.items.length
  const made = n === 0 ? 'No new recommendations' : `${n} new ${n === 1 ? 'recommendation' : 'recommendations'}`
  const dup = r.skipped_duplicates ? ` (${r.skipped_duplicates} already known from the last 24 h)` : ''
  const llm = r.llm
    ? r.llm.error
      ? ` The language model (${r.llm.provider}) failed: ${r.llm.error}`
      : ` Language model: ${r.llm.provider}, ${r.llm.status}.`
    : ''
  return `${made}${dup}.${llm}`
}
