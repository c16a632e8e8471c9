import type { MetricsSummary } from '../metrics/metrics.summary.model'

/** The variables a custom prompt template may use; anything else in {{…}} is refused at save time. */
export const PROMPT_VARIABLES = {
  hostname: "the device's hostname",
  os: 'operating system and version',
  hours: 'the hours the summarised samples cover, first to last (at most the window asked for)',
  summary: 'the aggregated metrics summary as compact JSON (averages, minima, maxima, p95, last values; no raw samples)',
} as const
export type PromptVariable = keyof typeof PROMPT_VARIABLES

export const MAX_PROMPT_CHARS = 8000
export const MAX_ITEMS = 5

export const DEFAULT_PROMPT = `You review the health of the machine "{{hostname}}" ({{os}}).
Here is the aggregated summary of its metrics over the {{hours}} hours its samples cover:
{{summary}}

Give at most ${MAX_ITEMS} concrete, actionable recommendations an administrator can act on, each based on the numbers above. Skip anything that looks healthy; an empty list is a fine answer.`

/**
 * The output contract is not part of the editable template: a custom prompt changes what the
 * model is asked, never the JSON shape we parse.
 */
export const SYSTEM_PROMPT = `You are a careful infrastructure monitoring assistant.
Answer with one JSON object and nothing else, of this exact shape:
{"recommendations":[{"recommendation":"<one or two sentences>","category":"cpu|memory|disk|network|thermal|availability|general","severity":"info|warning|critical"}]}
At most ${MAX_ITEMS} items.`

const VARIABLE = /\{\{\s*([^{}]*?)\s*\}\}/g

// Own properties only: with `in`, {{constructor}} or {{__proto__}} passed as a variable and rendered as a function's source.
const isVariable = (name: string): name is PromptVariable => Object.hasOwn(PROMPT_VARIABLES, name)

/** The names used in a template that are not documented variables. */
export function unknownVariables(template: string): string[] {
  const unknown = new Set<string>()
  for (const m of template.matchAll(VARIABLE)) if (!isVariable(m[1]!)) unknown.add(m[1]!)
  return [...unknown]
}

/** Fills the variables in one pass, so a value containing "{{…}}" is never expanded again. */
export function renderPrompt(template: string, values: Record<PromptVariable, string>): string {
  return template.replace(VARIABLE, (whole, name: string) => (isVariable(name) && Object.hasOwn(values, name) ? values[name] : whole))
}

const round = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100)

/** The summary as the model sees it: statistics only, rounded, with the span each part's samples cover, without ids. */
export function compactSummary(s: MetricsSummary | null): string {
  if (!s) return '{"note":"no metrics in this window"}'
  const section = (sec: MetricsSummary['hardware']) =>
    Object.fromEntries(
      Object.entries(sec.fields).map(([k, f]) => [k, { avg: round(f.avg), min: round(f.min), max: round(f.max), p95: round(f.p95), last: round(f.last) }]),
    )
  return JSON.stringify({
    hours: s.hours,
    hardware: { samples: s.hardware.samples, from: s.hardware.first_at, to: s.hardware.last_at, fields: section(s.hardware) },
    network: {
      samples: s.network.samples,
      from: s.network.first_at,
      to: s.network.last_at,
      fields: section(s.network),
      bytes_sent_delta: s.network.bytes_sent_delta,
      bytes_recv_delta: s.network.bytes_recv_delta,
    },
  })
}
