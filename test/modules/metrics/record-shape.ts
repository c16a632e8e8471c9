import { FIELDS, type MetricKind } from '../../../src/modules/metrics/metrics.fields'

/**
 * The record a stored row answers, built as objects: the tests' statement of what writePage writes
 * as bytes (hot columns, then the rest as sent).
 */
export function toRecord(kind: MetricKind, row: Record<string, unknown>, deviceId: string): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id, device_id: deviceId, recorded_at: new Date(row.ts as number).toISOString() }
  for (const f of FIELDS[kind]) out[f.name] = row[f.name] ?? null
  if (typeof row.rest === 'string') Object.assign(out, JSON.parse(row.rest))
  return out
}
