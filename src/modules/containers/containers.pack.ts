import { SERIES_FIELDS } from './containers.model'

/**
 * The packed form of one moment of a device's containers: a header byte giving the values per
 * container, then per container its seq (uint32) and that many float32 values, NaN for null.
 * Raw blocks carry the eight SERIES_FIELDS; rollups add the bucket's maximum of cpu_percent and
 * memory_used_bytes. float32 keeps 7 significant digits: plenty for a chart, half the bytes of
 * float64. 10 containers: 1 + 10 × 36 = 361 bytes (see docs/containers.md for the comparison).
 */
export const RAW_WIDTH = SERIES_FIELDS.length
export const ROLLUP_WIDTH = RAW_WIDTH + 2

export interface PackedEntry {
  seq: number
  values: (number | null)[]
}

export function pack(entries: PackedEntry[], width: number): Uint8Array {
  const stride = 4 + width * 4
  const buf = new ArrayBuffer(1 + entries.length * stride)
  const view = new DataView(buf)
  view.setUint8(0, width)
  let at = 1
  for (const e of entries) {
    view.setUint32(at, e.seq, true)
    at += 4
    for (let i = 0; i < width; i++) {
      const v = e.values[i]
      view.setFloat32(at, v === null || v === undefined || !Number.isFinite(v) ? Number.NaN : v, true)
      at += 4
    }
  }
  return new Uint8Array(buf)
}

/** Every container of a packed moment; `only` reads one container's values and skips the rest. */
export function unpack(data: Uint8Array, only?: number): PackedEntry[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  const width = view.getUint8(0)
  const stride = 4 + width * 4
  const out: PackedEntry[] = []
  for (let at = 1; at + stride <= data.byteLength; at += stride) {
    const seq = view.getUint32(at, true)
    if (only !== undefined && seq !== only) continue
    const values: (number | null)[] = new Array(width)
    for (let i = 0; i < width; i++) {
      const v = view.getFloat32(at + 4 + i * 4, true)
      values[i] = Number.isNaN(v) ? null : v
    }
    out.push({ seq, values })
    if (only !== undefined) break
  }
  return out
}

/**
 * Averages of many moments per container (nulls left out), and the maximum of cpu and memory:
 * a rollup bucket. Inputs may be raw (their own values are their maxima) or rollups.
 */
export function rollUp(moments: Uint8Array[]): Uint8Array {
  const acc = new Map<number, { sum: number[]; n: number[]; max: (number | null)[] }>()
  for (const m of moments) {
    for (const e of unpack(m)) {
      let a = acc.get(e.seq)
      if (!a) acc.set(e.seq, (a = { sum: new Array(RAW_WIDTH).fill(0), n: new Array(RAW_WIDTH).fill(0), max: [null, null] }))
      for (let i = 0; i < RAW_WIDTH; i++) {
        const v = e.values[i]
        if (v === null || v === undefined) continue
        a.sum[i]! += v
        a.n[i]!++
      }
      for (const [k, i] of [
        [0, 0],
        [1, 1],
      ] as const) {
        const v = e.values.length > RAW_WIDTH ? e.values[RAW_WIDTH + k] : e.values[i]
        if (v !== null && v !== undefined && (a.max[k] === null || v > a.max[k]!)) a.max[k] = v
      }
    }
  }
  const entries: PackedEntry[] = []
  for (const [seq, a] of acc) entries.push({ seq, values: [...a.sum.map((s, i) => (a.n[i] ? s / a.n[i]! : null)), ...a.max] })
  return pack(entries, ROLLUP_WIDTH)
}

/**
 * A float32 read back as the shortest decimal that is the same float32: 12.3 rather than
 * 12.300000190734863, the double it widens to, so an answer shows the figure that was stored and
 * no digits float32 never held. Integers are exact in float32 up to 2^24 and are left as they
 * are; a fraction is tried with 0, 1, 2… decimals, and the first that rounds to the same float32
 * is the one (a fraction in float32 is below 2^23, so v·10^k stays an exact-enough integer).
 * A missing figure is null.
 */
export function float32Figure(v: number | null | undefined): number | null {
  if (v === null || v === undefined) return null
  if (Number.isInteger(v) || !Number.isFinite(v)) return v
  for (let k = 0, scale = 1; k <= 15; k++, scale *= 10) {
    const d = Math.round(v * scale) / scale
    if (Math.fround(d) === v) return d
  }
  return v
}
