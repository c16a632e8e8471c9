import { AppError } from '../../http/errors'
import { FIELDS, type MetricKind } from './metrics.fields'

/** A sample ready for the raw table: hot values in FIELDS order, the rest as JSON text. */
export interface SampleRow {
  kind: MetricKind
  ts: number
  values: (number | null)[]
  rest: string | null
}

/** Keys that describe the envelope, not the metric. */
const ENVELOPE = new Set(['device_id', 'recorded_at'])
const HOT: Record<MetricKind, Set<string>> = {
  hardware: new Set(FIELDS.hardware.map((f) => f.name)),
  network: new Set(FIELDS.network.map((f) => f.name)),
}

/** A buffered sample may be sent late, but not from the future beyond clock skew. */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000

export function recordedAt(raw: string | null | undefined, now: number): number {
  if (!raw) return now
  const ts = Date.parse(raw)
  if (Number.isNaN(ts)) throw new AppError('invalid_parameter', 'recorded_at is not a valid ISO 8601 date-time', 'recorded_at')
  if (ts > now + MAX_FUTURE_SKEW_MS) throw new AppError('invalid_parameter', 'recorded_at lies in the future', 'recorded_at')
  return ts
}

/** The fullest disk partition in percent: `percent` where numeric, else used/total. */
export function diskUsedPercent(partitions: unknown): number | null {
  if (!Array.isArray(partitions)) return null
  let max: number | null = null
  for (const p of partitions) {
    if (!p || typeof p !== 'object') continue
    const o = p as Record<string, unknown>
    let v: number | null = null
    if (typeof o.percent === 'number' && Number.isFinite(o.percent)) v = o.percent
    else if (typeof o.used === 'number' && typeof o.total === 'number' && o.total > 0) v = (o.used / o.total) * 100
    if (v !== null && (max === null || v > max)) max = v
  }
  return max
}

export function toSampleRow(kind: MetricKind, body: Record<string, unknown>, ts: number): SampleRow {
  const fields = FIELDS[kind]
  const values: (number | null)[] = new Array(fields.length)
  for (let i = 0; i < fields.length; i++) {
    const v = body[fields[i]!.name]
    values[i] = typeof v === 'number' ? v : null
  }
  if (kind === 'hardware') values[fields.length - 1] = diskUsedPercent(body.disk_partitions)
  const hot = HOT[kind]
  let rest: Record<string, unknown> | null = null
  for (const k in body) {
    const v = body[k]
    if (v === undefined || hot.has(k) || ENVELOPE.has(k)) continue
    ;(rest ??= {})[k] = v
  }
  return { kind, ts, values, rest: rest ? JSON.stringify(rest) : null }
}

/** A stored row back into the record shape: hot columns, then the rest as sent. */
export function toRecord(kind: MetricKind, row: Record<string, unknown>, deviceId: string): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id, device_id: deviceId, recorded_at: new Date(row.ts as number).toISOString() }
  for (const f of FIELDS[kind]) out[f.name] = row[f.name] ?? null
  if (typeof row.rest === 'string') Object.assign(out, JSON.parse(row.rest))
  return out
}

/** Per kind, the `,"field":` prefix of each hot column, built once. */
const HOT_KEYS: Record<MetricKind, string[]> = {
  hardware: FIELDS.hardware.map((f) => `,"${f.name}":`),
  network: FIELDS.network.map((f) => `,"${f.name}":`),
}

/**
 * The JSON text of `toRecord` for a whole page of `pageValues` rows ([id, ts, ...hot, rest]),
 * joined with commas: the stored rest is spliced in, never parsed and re-encoded, and no object
 * is built per row.
 */
export function pageJson(kind: MetricKind, rows: unknown[][], deviceId: string): string {
  const keys = HOT_KEYS[kind]
  const head = `,"device_id":${JSON.stringify(deviceId)},"recorded_at":"`
  const restAt = keys.length + 2
  let out = ''
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!
    out += `${r ? ',' : ''}{"id":${row[0]}${head}${new Date(row[1] as number).toISOString()}"`
    for (let i = 0; i < keys.length; i++) {
      const v = row[i + 2]
      out += keys[i]! + (typeof v === 'number' ? v : 'null')
    }
    const rest = row[restAt]
    if (typeof rest === 'string' && rest.length > 2) out += `,${rest.slice(1, -1)}`
    out += '}'
  }
  return out
}
