/** A recommendation as the API gives it (GET /v1/recommendations/{device_id}). */
export interface Recommendation {
  id: string
  client_id: string
  device_id: string | null
  recommendation: string
  category: string
  severity: 'info' | 'warning' | 'critical'
  source: string
  evidence: Record<string, unknown> | null
  created_at: string
}

export interface RecommendationPage {
  items: Recommendation[]
  limit: number
  offset: number
  total: number
}

/** POST /v1/ai/generate/{device_id} */
export interface GenerateResult {
  device_id: string
  items: Recommendation[]
  skipped_duplicates: number
  llm: { provider: string; model: string | null; status: string; error: string | null } | null
}

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
