import { ByteReader, ByteWriter } from '../../lib/byte-codec'

/**
 * The packed form of one check's attempts at one place in one hour (a row of check_packs).
 * Lossless: decoding gives back every attempt as its row held it. Each column is laid out the
 * way it repeats, so that an hour of a healthy check costs about 3 bytes an attempt:
 *
 * - times: the first as ms after the hour's start, each next as its distance from the previous
 *   less the hour's usual step (the median distance), zigzag varints: a check on its schedule
 *   writes one byte an attempt, however its clock runs;
 * - outcome (ok, status code): a small dictionary of the hour's distinct pairs, then runs of
 *   its entries (an hour of 200s is three bytes);
 * - errors: each distinct text once, then runs of entries (none is entry 0);
 * - response ms: a varint each (ms + 1; 0 when none was measured).
 *
 * The body is deflated when that makes it smaller (long error texts, steady response times).
 */

export interface PackedAttempt {
  ts: number
  ok: number
  response_ms: number | null
  status_code: number | null
  error: string | null
}

const HOUR_MS = 3_600_000
const PLAIN = 1
const DEFLATED = 2

/** every number packed is a whole number ≥ 0: anything else would come back changed */
function whole(v: number): number {
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`cannot pack ${v}: a whole number of at least 0 was expected`)
  return v
}

const uint = (w: ByteWriter, v: number) => w.varint(whole(v))
/** zigzagged, as ByteReader#signed reads it */
const int = (w: ByteWriter, v: number) => uint(w, v >= 0 ? v * 2 : -v * 2 - 1)

/** entries as a dictionary of distinct keys and runs of (entry, length) */
function writeRuns(w: ByteWriter, entries: number[]) {
  let i = 0
  while (i < entries.length) {
    let j = i + 1
    while (j < entries.length && entries[j] === entries[i]) j++
    uint(w, entries[i]!)
    uint(w, j - i)
    i = j
  }
}

function readRuns(r: ByteReader, n: number): number[] {
  const out: number[] = []
  while (out.length < n) {
    const entry = r.varint()
    const run = r.varint()
    if (run < 1 || out.length + run > n) throw new Error('packed attempts are corrupt')
    for (let k = 0; k < run; k++) out.push(entry)
  }
  return out
}

/** Packs the attempts of one hour (hour = floor(ts / 1 h) of each); they are sorted by time here. */
export function encodePack(hour: number, attempts: PackedAttempt[]): Uint8Array {
  const rows = attempts.toSorted((a, b) => a.ts - b.ts)
  const base = hour * HOUR_MS
  const w = new ByteWriter()
  uint(w, rows.length)
  const gaps = rows.slice(1).map((r, i) => r.ts - rows[i]!.ts)
  const step = gaps.length ? gaps.toSorted((a, b) => a - b)[gaps.length >> 1]! : 0
  uint(w, step)
  if (rows.length) uint(w, rows[0]!.ts - base)
  for (const g of gaps) int(w, g - step)

  const outcomes = new Map<string, number>()
  const outcomeOf = rows.map((r) => {
    const key = `${r.ok}:${r.status_code ?? ''}`
    let e = outcomes.get(key)
    if (e === undefined) outcomes.set(key, (e = outcomes.size))
    return e
  })
  uint(w, outcomes.size)
  for (const key of outcomes.keys()) {
    const [ok, status] = key.split(':')
    uint(w, Number(ok))
    uint(w, status === '' ? 0 : whole(Number(status)) + 1)
  }
  writeRuns(w, outcomeOf)

  const errors = new Map<string, number>()
  const errorOf = rows.map((r) => {
    if (r.error === null) return 0
    let e = errors.get(r.error)
    if (e === undefined) errors.set(r.error, (e = errors.size + 1))
    return e
  })
  uint(w, errors.size)
  for (const e of errors.keys()) w.string(e)
  writeRuns(w, errorOf)

  for (const r of rows) uint(w, r.response_ms === null ? 0 : whole(r.response_ms) + 1)

  const body = w.done()
  const deflated = Bun.deflateSync(body)
  const out = new Uint8Array(1 + Math.min(body.length, deflated.length))
  if (deflated.length < body.length) {
    out[0] = DEFLATED
    out.set(deflated, 1)
  } else {
    out[0] = PLAIN
    out.set(body, 1)
  }
  return out
}

/** The attempts of a packed hour, oldest first. */
export function decodePack(hour: number, data: Uint8Array): PackedAttempt[] {
  const kind = data[0]
  if (kind !== PLAIN && kind !== DEFLATED) throw new Error(`packed attempts of an unknown form (${kind})`)
  const r = new ByteReader(kind === DEFLATED ? Bun.inflateSync(data.slice(1) as Uint8Array<ArrayBuffer>) : data.subarray(1), 'packed attempts')
  const n = r.varint()
  const step = r.varint()
  const ts: number[] = []
  if (n) ts.push(hour * HOUR_MS + r.varint())
  for (let i = 1; i < n; i++) ts.push(ts[i - 1]! + step + r.signed())

  const outcomes = Array.from({ length: r.varint() }, () => {
    const ok = r.varint()
    const status = r.varint()
    return { ok, status_code: status === 0 ? null : status - 1 }
  })
  const outcomeOf = readRuns(r, n)
  const errors = Array.from({ length: r.varint() }, () => r.string())
  const errorOf = readRuns(r, n)

  return ts.map((t, i) => {
    const o = outcomes[outcomeOf[i]!]
    if (!o) throw new Error('packed attempts are corrupt')
    const ms = r.varint()
    const e = errorOf[i]!
    return { ts: t, ok: o.ok, response_ms: ms === 0 ? null : ms - 1, status_code: o.status_code, error: e === 0 ? null : (errors[e - 1] ?? null) }
  })
}
