import { t, type Static } from 'elysia'
import { Value } from '@sinclair/typebox/value'
import { CATEGORIES, SEVERITIES } from '../recommendations/recommendations.model'
import { MAX_ITEMS } from './ai.prompt'

const ModelItem = t.Object(
  {
    recommendation: t.String({ minLength: 1, maxLength: 2000 }),
    category: t.UnionEnum(CATEGORIES),
    severity: t.UnionEnum(SEVERITIES),
  },
  { additionalProperties: false },
)

const ModelAnswer = t.Object({ recommendations: t.Array(ModelItem, { maxItems: MAX_ITEMS }) }, { additionalProperties: false })

export type ModelItem = Static<typeof ModelItem>

export class InvalidOutput extends Error {}

/**
 * Strict: the answer must be exactly the JSON object the system prompt asks for (a single
 * surrounding ```json fence is tolerated, since many models add one). Anything else is
 * rejected whole, never half-stored.
 */
export function parseModelAnswer(text: string): ModelItem[] {
  const trimmed = text.trim()
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed)
  let value: unknown
  try {
    value = JSON.parse(fenced ? fenced[1]! : trimmed)
  } catch {
    throw new InvalidOutput('the model did not answer with JSON')
  }
  if (!Value.Check(ModelAnswer, value)) {
    const first = [...Value.Errors(ModelAnswer, value)][0]
    throw new InvalidOutput(`the model's JSON does not match the expected shape${first ? ` (${first.path || '/'}: ${first.message})` : ''}`)
  }
  return value.recommendations.map((i) => ({ ...i, recommendation: i.recommendation.trim() }))
}
