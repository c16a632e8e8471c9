/**
 * Grouping of notices: several devices tripping the same rule within a short window make one
 * notification listing them. The first notice of a rule goes out at once (so a single alert is
 * never delayed) and opens the window; what trips during the window is held and sent as one
 * notice when the window closes, which opens the next window. Pure: the caller passes `now`.
 */
export class NoticeGroups<T> {
  private readonly windows = new Map<string, { until: number; windowMs: number; held: T[] }>()

  /** Items of one group key born together: returned to send now, or held (empty result). */
  offer(key: string, items: T[], now: number, windowMs: number): T[] {
    if (items.length === 0) return []
    const w = this.windows.get(key)
    if (windowMs <= 0) return items
    if (w && now < w.until) {
      w.held.push(...items)
      return []
    }
    this.windows.set(key, { until: now + windowMs, windowMs, held: [] })
    return items
  }

  /** Groups whose window closed with items held: each is one notice to send now. */
  flush(now: number): { key: string; items: T[] }[] {
    const out: { key: string; items: T[] }[] = []
    for (const [key, w] of this.windows) {
      if (now < w.until) continue
      if (w.held.length === 0) {
        this.windows.delete(key)
        continue
      }
      out.push({ key, items: w.held })
      this.windows.set(key, { until: now + w.windowMs, windowMs: w.windowMs, held: [] })
    }
    return out
  }

  /** Held items that match, taken out (an alert acknowledged or resolved before its notice went out). */
  drop(match: (item: T) => boolean): void {
    for (const w of this.windows.values()) w.held = w.held.filter((i) => !match(i))
  }

  get size(): number {
    return this.windows.size
  }
}
