import { minutesText, type NestedMinutes } from './metrics.minutes'

/**
 * Blocks' nested minutes kept decoded between reads, the one used longest ago dropped first. A
 * chart of nested families over a day reads the minutes of 144 blocks, and a dashboard reads it
 * again at each refresh: decoding them (reading their bytes, zstd, JSON) was most of its CPU.
 * Bounded by their JSON text: decoded, they take about 3.7 times its length on the heap (11.6 KB
 * for a block of the real sample's 3.1 KB), so 2 MiB of text is about 8 MB: a week's chart (the
 * 288 blocks its slots reach) or four days of the real sample, a day of a large server's. A
 * month's chart reaches 720 blocks, more than that: each of its reads decodes them again.
 */
export const MINUTES_KEPT_TEXT = 2 << 20

/**
 * `key`: what names the bytes (a block's device, start and place in its file: bytes at a place
 * never change, and a block sealed again goes to another place), or null for bytes not to keep
 * (a BLOB of an earlier release). The answers are shared: callers must not change them.
 */
export function keptMinutes(maxText = MINUTES_KEPT_TEXT) {
  const kept = new Map<string, { minutes: NestedMinutes; text: number }>()
  let text = 0
  let decodes = 0
  return {
    get(key: string | null, load: () => Uint8Array): NestedMinutes {
      const hit = key === null ? undefined : kept.get(key)
      if (hit) {
        kept.delete(key!)
        kept.set(key!, hit)
        return hit.minutes
      }
      const json = minutesText(load())
      const minutes = JSON.parse(json) as NestedMinutes
      decodes++
      if (key === null || json.length > maxText) return minutes
      kept.set(key, { minutes, text: json.length })
      text += json.length
      for (const [k, v] of kept) {
        if (text <= maxText) break
        kept.delete(k)
        text -= v.text
      }
      return minutes
    },
    /** minutes decoded since made, kept now, and their JSON text's length (tests, stats) */
    stats: () => ({ decodes, kept: kept.size, text }),
  }
}
