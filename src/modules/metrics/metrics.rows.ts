import { AppError } from '../../http/errors'
import { CLOSE_BRACE, COMMA, JsonBytes } from '../../lib/json-bytes'
import { FIELDS, type MetricKind } from './metrics.fields'

/** A sample ready for the raw table: hot values in FIELDS order, the rest as JSON text. */
export interface SampleRow {
  kind: MetricKind
  ts: number
  values: (number | null)[]
  rest: string | null
  /**
   * The time came with the sample (recorded_at): the same device and time again is then the same
   * sample sent twice (a retry, a replay) and is not stored again. A time the hub stamped itself
   * is never a repeat: another sample landing in the same millisecond moves to the next free one.
   */
  stamped: boolean
}

/** Per kind, each hot field's place in FIELDS, and -1 for the keys that describe the envelope, not the metric. */
const INDEX: Record<MetricKind, Record<string, number>> = { hardware: indexOf('hardware'), network: indexOf('network') }
function indexOf(kind: MetricKind): Record<string, number> {
  const index: Record<string, number> = Object.create(null)
  FIELDS[kind].forEach((f, i) => {
    index[f.name] = i
  })
  index.device_id = -1
  index.recorded_at = -1
  return index
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

/**
 * The hot numeric fields of a sample as sent, only those present, with disk_used_percent derived
 * as it is stored: the live stream's view of a sample. The nested parts are not touched.
 */
export function hotValues(kind: MetricKind, body: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const f of FIELDS[kind]) {
    const v = body[f.name]
    if (typeof v === 'number') out[f.name] = v
  }
  if (kind === 'hardware') {
    const disk = diskUsedPercent(body.disk_partitions)
    if (disk === null) delete out.disk_used_percent
    else out.disk_used_percent = disk
  }
  return out
}

/** The same record from a row's hot values (FIELDS order, disk_used_percent derived), as toSampleRow made them from the body. */
export function hotRecord(kind: MetricKind, values: readonly (number | null)[]): Record<string, number> {
  const fields = FIELDS[kind]
  const out: Record<string, number> = {}
  for (let i = 0; i < fields.length; i++) {
    const v = values[i]
    if (v !== null && v !== undefined) out[fields[i]!.name] = v
  }
  return out
}

/**
 * A part as a row: its hot values in FIELDS order (a number sent, else null; disk_used_percent
 * derived) and every other field but the envelope's, in the order sent, as JSON. One pass over
 * the part's keys finds both. The rest is serialised again from what was parsed: the text as
 * sent may differ from it (spaces, `1.0`, escapes, a key sent twice), and only JSON.stringify's
 * own bytes are stored, which checking the text as sent against would cost as much.
 */
export function toSampleRow(kind: MetricKind, body: Record<string, unknown>, ts: number, stamped = false): SampleRow {
  const fields = FIELDS[kind]
  const index = INDEX[kind]
  const values: (number | null)[] = new Array(fields.length).fill(null)
  let rest: Record<string, unknown> | null = null
  for (const k in body) {
    const v = body[k]
    if (v === undefined) continue
    const i = index[k]
    if (i === undefined) (rest ??= {})[k] = v
    else if (i >= 0 && typeof v === 'number') values[i] = v
  }
  if (kind === 'hardware') values[fields.length - 1] = diskUsedPercent(body.disk_partitions)
  return { kind, ts, values, rest: rest ? JSON.stringify(rest) : null, stamped }
}

/** A stored row as an object (the latest read's form) as the values writePage takes: [id, ts, ...hot, rest]. */
export function rowValues(kind: MetricKind, row: Record<string, unknown>): unknown[] {
  const out: unknown[] = [row.id, row.ts]
  for (const f of FIELDS[kind]) out.push(row[f.name] ?? null)
  out.push(row.rest ?? null)
  return out
}

/** Per kind, the `,"field":` prefix of each hot column, encoded once. */
const HOT_KEYS: Record<MetricKind, Uint8Array[]> = {
  hardware: FIELDS.hardware.map((f) => JsonBytes.constant(`,"${f.name}":`)),
  network: FIELDS.network.map((f) => JsonBytes.constant(`,"${f.name}":`)),
}
const ID_KEY = JsonBytes.constant('{"id":')
const RECORDED_AT_KEY = JsonBytes.constant(',"recorded_at":')

/**
 * A row's rest text not made into a string (a sealed row's, in its decoded block): it writes the
 * text's members into the answer itself.
 */
export interface RestWriter {
  writeMembers(id: number, kind: MetricKind, out: JsonBytes): void
}

/**
 * Writes the records of a whole page of `page.values()` rows ([id, ts, ...hot, rest]), joined with
 * commas: per row its id, device_id, recorded_at and hot columns, then the rest as sent. The stored
 * rest is spliced in, never parsed and re-encoded, and nothing is built per row. A rest is JSON
 * text, its UTF-8 bytes, null, or a RestWriter that writes it.
 */
export function writePage(out: JsonBytes, kind: MetricKind, rows: unknown[][], deviceId: string): JsonBytes {
  const keys = HOT_KEYS[kind]
  const deviceKey = JsonBytes.constant(`,"device_id":${JSON.stringify(deviceId)}`)
  const restAt = keys.length + 2
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!
    if (r) out.byte(COMMA)
    out
      .bytes(ID_KEY)
      .number(row[0])
      .bytes(deviceKey)
      .bytes(RECORDED_AT_KEY)
      .isoDate(row[1] as number)
    for (let i = 0; i < keys.length; i++) out.bytes(keys[i]!).number(row[i + 2])
    const rest = row[restAt]
    if (rest instanceof Uint8Array) out.asMembers(out.written, rest)
    else if (typeof rest === 'object' && rest !== null) (rest as RestWriter).writeMembers(row[0] as number, kind, out)
    else out.members(rest)
    out.byte(CLOSE_BRACE)
  }
  return out
}
