import { decodeMinutes, minutesHeapBytes, type PackedMinutes } from './metrics.minutes.codec'

/**
 * Blocks' nested minutes kept decoded between reads, the one used longest ago dropped first. A
 * chart of nested families over a day reads the minutes of 144 blocks, and a dashboard reads it
 * again at each refresh: decoding them was most of its CPU. Bounded by what they take on the heap
 * (metrics.minutes.codec.ts counts it: about 7 KB for a block of the real sample), 8 MiB: a
 * month's chart of the real sample (the 720 blocks its slots reach), a week's of a large server.
 */
export const MINUTES_KEPT_BYTES = 8 << 20

/**
 * `key`: what names the bytes (a block's device, start and place in its file: bytes at a place
 * never change, and a block sealed again goes to another place), or null for bytes not to keep
 * (a BLOB of an earlier release). The answers are shared: callers must not change them.
 */
export function keptMinutes(maxBytes = MINUTES_KEPT_BYTES) {
  const kept = new Map<string, { minutes: PackedMinutes; bytes: number }>()
  let bytes = 0
  let decodes = 0
  return {
    get(key: string | null, load: () => Uint8Array): PackedMinutes {
      const hit = key === null ? undefined : kept.get(key)
      if (hit) {
        kept.delete(key!)
        kept.set(key!, hit)
        return hit.minutes
      }
      const minutes = decodeMinutes(load())
      decodes++
      const size = minutesHeapBytes(minutes)
      if (key === null || size > maxBytes) return minutes
      kept.set(key, { minutes, bytes: size })
      bytes += size
      for (const [k, v] of kept) {
        if (bytes <= maxBytes) break
        kept.delete(k)
        bytes -= v.bytes
      }
      return minutes
    },
    /** minutes decoded since made, kept now, and what those take on the heap (tests, stats) */
    stats: () => ({ decodes, kept: kept.size, bytes }),
  }
}
