import { zstdCompress, zstdDecompress } from './metrics.hot.zstd'
import { MINUTE_MS } from './metrics.fields'

/**
 * The 1-minute tier's coded form on SQLite: one row per device, kind and ten minutes (a *span*)
 * holding its 1-minute rows. A run of the rollup job at a collector's cadence adds ten minutes
 * per device; as rows keyed (device, minute) they went to each device's own index page, written
 * whole to the WAL and again by the checkpoint for ten small entries. One coded row per device
 * keyed time first lands beside the other devices' rows of the same run, at the end of the
 * table (docs/storage.md, "The 1-minute tier").
 *
 * Layout: a version byte, a 16-bit mask of the minutes present (bit i: the span's i-th minute),
 * then zstd of a null map (one bit per number, column by column, set where the number is null)
 * and the numbers that are not null, column by column, each as the bits of its Float64 XOR the
 * previous number of the same column in the span (values that move slowly leave mostly zero
 * bits), little-endian. Every number comes back bit for bit (-0 included), nulls as nulls.
 */

export const SPAN_MS = 10 * MINUTE_MS
const MINUTES = SPAN_MS / MINUTE_MS
const VERSION = 1
const HEAD = 3
/** zstd's level: the rows are a few hundred bytes, written once per span or late sample */
const LEVEL = 3

/** one number's bits, to make a Float64 of its two 32-bit halves */
const float = new Float64Array(1)
const bits = new Uint32Array(float.buffer)

/** the start of the span holding time `t` */
export const spanOf = (t: number) => Math.floor(t / SPAN_MS) * SPAN_MS

/** Device seqs below this fit a row's key (2^30: the key stays a safe integer in JavaScript until 2129). */
export const KEY_DEVICES = 2 ** 30
/**
 * A coded row's rowid: the span's number, then the device, so the table is in time order (a run's
 * rows land together at its end) and a device's span is one rowid seek.
 */
export function packedKey(span: number, seq: number): number {
  if (!Number.isInteger(seq) || seq < 0 || seq >= KEY_DEVICES) throw new Error(`device seq ${seq} does not fit a 1-minute span's key`)
  return (span / SPAN_MS) * KEY_DEVICES + seq
}

/**
 * Codes one span's rows, each [bucket, ...values] (`cols` values: n, then the tier's columns),
 * buckets within the span, in any order, each at most once.
 */
export function encodeSpan(span: number, rows: (number | null)[][], cols: number): Uint8Array {
  const sorted = [...rows].sort((a, b) => a[0]! - b[0]!)
  let mask = 0
  for (const r of sorted) {
    const i = (r[0]! - span) / MINUTE_MS
    if (!Number.isInteger(i) || i < 0 || i >= MINUTES) throw new Error(`minute ${r[0]} is not in the span from ${span}`)
    mask |= 1 << i
  }
  const k = sorted.length
  const nullBytes = Math.ceil((k * cols) / 8)
  const body = new Uint8Array(nullBytes + k * cols * 8)
  const view = new DataView(body.buffer)
  const f = new Float64Array(1)
  const u = new Uint32Array(f.buffer)
  let o = nullBytes
  let bit = 0
  for (let c = 0; c < cols; c++) {
    let lo = 0
    let hi = 0
    for (let i = 0; i < k; i++, bit++) {
      const v = sorted[i]![1 + c]
      if (v === null || v === undefined) {
        body[bit >> 3]! |= 1 << (bit & 7)
        continue
      }
      f[0] = v
      view.setUint32(o, (u[0]! ^ lo) >>> 0, true)
      view.setUint32(o + 4, (u[1]! ^ hi) >>> 0, true)
      lo = u[0]!
      hi = u[1]!
      o += 8
    }
  }
  const packed = zstdCompress(body.subarray(0, o), LEVEL)
  const out = new Uint8Array(HEAD + packed.length)
  out[0] = VERSION
  out[1] = mask & 0xff
  out[2] = mask >> 8
  out.set(packed, HEAD)
  return out
}

/** The minutes a coded span holds, oldest first. */
export function spanMinutes(span: number, data: Uint8Array): number[] {
  const mask = data[1]! | (data[2]! << 8)
  const out: number[] = []
  for (let i = 0; i < MINUTES; i++) if (mask & (1 << i)) out.push(span + i * MINUTE_MS)
  return out
}

/**
 * The rows of a coded span, [bucket, ...values], oldest first: every value, or only the columns
 * `pick` lists (indexes into the values, in its order), for the minutes in [from, to).
 */
export function decodeSpan(span: number, data: Uint8Array, cols: number, pick?: number[], from = -Infinity, to = Infinity): (number | null)[][] {
  if (data[0] !== VERSION) throw new Error(`a 1-minute span coded in an unknown form (${data[0]})`)
  const buckets = spanMinutes(span, data)
  const k = buckets.length
  const body = zstdDecompress(data.subarray(HEAD))
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength)
  const which = pick ?? Array.from({ length: cols }, (_, c) => c)
  let last = 0
  for (const c of which) if (c > last) last = c
  // where each column's numbers start: the numbers of the columns before it that are not null
  const start = new Int32Array(last + 1)
  let o = Math.ceil((k * cols) / 8)
  for (let c = 0, bit = 0; c <= last; c++) {
    start[c] = o
    for (let i = 0; i < k; i++, bit++) if ((body[bit >> 3]! & (1 << (bit & 7))) === 0) o += 8
  }
  // the rows asked for: their place among the span's minutes, and each row made at its full length
  const kept: number[] = []
  for (let i = 0; i < k; i++) if (buckets[i]! >= from && buckets[i]! < to) kept.push(i)
  const rows: (number | null)[][] = kept.map((i) => {
    const r = new Array<number | null>(1 + which.length)
    r[0] = buckets[i]!
    return r
  })
  const slot = new Int8Array(k).fill(-1)
  for (let j = 0; j < kept.length; j++) slot[kept[j]!] = j
  for (let w = 0; w < which.length; w++) {
    const c = which[w]!
    let at = start[c]!
    let lo = 0
    let hi = 0
    for (let i = 0, bit = c * k; i < k; i++, bit++) {
      const j = slot[i]!
      if ((body[bit >> 3]! & (1 << (bit & 7))) !== 0) {
        if (j >= 0) rows[j]![1 + w] = null
        continue
      }
      lo = (lo ^ view.getUint32(at, true)) >>> 0
      hi = (hi ^ view.getUint32(at + 4, true)) >>> 0
      at += 8
      if (j < 0) continue
      bits[0] = lo
      bits[1] = hi
      rows[j]![1 + w] = float[0]!
    }
  }
  return rows
}
