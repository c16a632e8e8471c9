import { boundedMean } from './metrics.mean'

/**
 * The values each field's p95 is taken over. Raw windows take every value; a window a tier
 * answers takes one average per bucket of that tier, whether the bucket is stored or still
 * gathered from finer levels and raw samples (its ragged edges, the part not rolled up yet), so
 * the p95 does not move when a bucket completes. Rows arrive oldest first: a row of another
 * bucket closes the one gathered.
 */
export class P95Values {
  private bucket = -1
  private readonly sum: Float64Array
  private readonly n: Float64Array
  private readonly parts: Uint32Array
  /** the least and greatest average added to the bucket gathered: its own average lies between (one part's is that part's) */
  private readonly lo: Float64Array
  private readonly hi: Float64Array

  constructor(
    /** the answering tier's bucket width, 0 for raw */
    private readonly width: number,
    private readonly vals: number[][],
  ) {
    const fields = vals.length
    this.sum = new Float64Array(fields)
    this.n = new Float64Array(fields)
    this.parts = new Uint32Array(fields)
    this.lo = new Float64Array(fields)
    this.hi = new Float64Array(fields)
  }

  /** the next row's time (a raw sample's, a finer bucket's start) */
  row(at: number): void {
    if (!this.width) return
    const b = Math.floor(at / this.width) * this.width
    if (b === this.bucket) return
    this.close()
    this.bucket = b
  }

  /** field i's average of n values in that row (a row of a whole bucket of the answering tier goes to `vals` itself) */
  add(i: number, avg: number, n: number): void {
    const parts = this.parts[i]!
    if (parts === 0) {
      this.lo[i] = avg
      this.hi[i] = avg
    } else if (avg < this.lo[i]!) this.lo[i] = avg
    else if (avg > this.hi[i]!) this.hi[i] = avg
    this.parts[i] = parts + 1
    this.sum[i] = this.sum[i]! + avg * n
    this.n[i] = this.n[i]! + n
  }

  close(): void {
    for (let i = 0; i < this.vals.length; i++) {
      const parts = this.parts[i]!
      if (!parts) continue
      this.vals[i]!.push(boundedMean(this.sum[i]!, this.n[i]!, this.lo[i]!, this.hi[i]!))
      this.parts[i] = 0
      this.sum[i] = 0
      this.n[i] = 0
    }
  }
}

/**
 * The p95 of a field's values: the value at rank ⌈0.95·n⌉ in ascending order (the first for a
 * single value). Sorted as a Float64Array, natively: sorting the arrays with a comparator
 * function was a fifth of a summary's time. Values are finite, never NaN; -0 and 0 may trade
 * places, which JSON writes alike.
 */
export function p95Of(vals: number[]): number {
  const sorted = new Float64Array(vals).sort()
  return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)]!
}
