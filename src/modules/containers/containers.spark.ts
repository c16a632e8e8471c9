import { SERIES_FIELDS } from './containers.model'
import { unpack } from './containers.pack'

/** The sparkline's span and its buckets: the last hour, one average per minute. */
export const SPARK_MS = 3_600_000
export const SPARK_BUCKETS = 60
const CPU = SERIES_FIELDS.indexOf('cpu_percent')

/**
 * Each container's CPU over the hour before `end`, one average per minute (null where it sent
 * none), from the device's raw blocks. One read of the packed rows serves every container of the
 * device: the portal's list needs no request per container.
 */
export function cpuSparks(
  blocks: { ts: number; data: Uint8Array }[],
  containers: { seq: number; id: string }[],
  end: number,
): Record<string, (number | null)[]> {
  const start = end - SPARK_MS
  const width = SPARK_MS / SPARK_BUCKETS
  const sums = new Map<number, { sum: number[]; n: number[] }>()
  for (const c of containers) sums.set(c.seq, { sum: new Array(SPARK_BUCKETS).fill(0), n: new Array(SPARK_BUCKETS).fill(0) })
  for (const b of blocks) {
    const i = Math.floor((b.ts - start) / width)
    if (i < 0 || i >= SPARK_BUCKETS) continue
    for (const e of unpack(b.data)) {
      const acc = sums.get(e.seq)
      const v = e.values[CPU]
      if (!acc || v === null || v === undefined) continue
      acc.sum[i]! += v
      acc.n[i]! += 1
    }
  }
  const out: Record<string, (number | null)[]> = {}
  for (const c of containers) {
    const acc = sums.get(c.seq)!
    out[c.id] = acc.sum.map((s, i) => (acc.n[i] ? Math.round((s / acc.n[i]!) * 10) / 10 : null))
  }
  return out
}
