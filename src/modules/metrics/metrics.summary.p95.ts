import { boundedMean } from './metrics.mean'

/**
 * Each field's values a p95 is taken over, in one buffer: a summary used to keep an array per
 * field and sort a copy of each, which was most of what a summary allocated once its tier rows
 * are kept (metrics.summary.cache.ts), and so most of the young collections in its tail. A
 * field's values take a row of `capacity` slots; the buffer doubles when one fills.
 */
export class FieldValues {
  private data: Float64Array
  private readonly counts: Uint32Array

  constructor(
    private readonly fields: number,
    private capacity: number,
  ) {
    this.capacity = Math.max(1, capacity)
    this.data = new Float64Array(fields * this.capacity)
    this.counts = new Uint32Array(fields)
  }

  push(i: number, v: number): void {
    const n = this.counts[i]!
    if (n === this.capacity) this.grow()
    this.data[i * this.capacity + n] = v
    this.counts[i] = n + 1
  }

  /** field i's values so far, in the order added (a view: the next push may move them) */
  of(i: number): Float64Array {
    return this.data.subarray(i * this.capacity, i * this.capacity + this.counts[i]!)
  }

  /**
   * The p95 of field i's values: the value at rank ⌈0.95·n⌉ in ascending order (the first for a
   * single value; NaN for none). Sorted natively in place, so their order is lost: taken once,
   * at the end. Values are finite, never NaN; -0 and 0 may trade places, which JSON writes alike.
   */
  p95(i: number): number {
    const sorted = this.of(i).sort()
    return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)] ?? Number.NaN
  }

  private grow(): void {
    const capacity = this.capacity * 2
    const data = new Float64Array(this.fields * capacity)
    for (let i = 0; i < this.fields; i++) data.set(this.of(i), i * capacity)
    this.data = data
    this.capacity = capacity
  }
}

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
    private readonly vals: FieldValues,
    fields: number,
  ) {
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
    for (let i = 0; i < this.parts.length; i++) {
      const parts = this.parts[i]!
      if (!parts) continue
      this.vals.push(i, boundedMean(this.sum[i]!, this.n[i]!, this.lo[i]!, this.hi[i]!))
      this.parts[i] = 0
      this.sum[i] = 0
      this.n[i] = 0
    }
  }
}
