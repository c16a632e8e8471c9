/**
 * The cron patterns of the hub's own jobs, read without croner: six fields whose day of month,
 * month and day of week are `*`, and whose second, minute and hour are each `*`, `*\/N` or a list
 * of numbers ("35 * * * * *", "*\/15 * * * * *", "0 17 3 * * *"), read in UTC. Each croner
 * instance holds a 10,000-entry table of years: the hub's sixteen jobs kept about 1.5 MB of an
 * idle hub's own memory for it. Anything else (a backup schedule on weekdays, say) stays croner's.
 */
export interface DailyPattern {
  /** the first whole second strictly after `afterMs` that the pattern names, in ms */
  next(afterMs: number): number
}

const FIELDS = [60, 60, 24] as const // second, minute, hour

/** The pattern, or null when it is not of that simple shape (croner then reads it). */
export function dailyPattern(pattern: string): DailyPattern | null {
  const parts = pattern.trim().split(/\s+/)
  if (parts.length !== 6 || parts.slice(3).some((p) => p !== '*')) return null
  const sets = FIELDS.map((size, i) => field(parts[i]!, size))
  if (sets.some((s) => s === null)) return null
  const [seconds, minutes, hours] = sets as [Uint8Array, Uint8Array, Uint8Array]
  return {
    next(afterMs) {
      let t = Math.floor(afterMs / 1000) * 1000 + 1000
      // at most 24 hour steps, then 60 minute steps, then 60 second steps: every set is non-empty
      for (;;) {
        const d = new Date(t)
        const h = d.getUTCHours()
        const m = d.getUTCMinutes()
        const s = d.getUTCSeconds()
        if (!hours[h]) t += (3600 - m * 60 - s) * 1000
        else if (!minutes[m]) t += (60 - s) * 1000
        else if (!seconds[s]) t += 1000
        else return t
      }
    },
  }
}

/** `*`, `*\/N` or a comma list of numbers below `size`, as a membership table; null for anything else. */
function field(text: string, size: number): Uint8Array | null {
  const set = new Uint8Array(size)
  if (text === '*') return set.fill(1)
  const step = /^\*\/(\d{1,2})$/.exec(text)
  if (step) {
    const n = Number(step[1])
    if (n < 1 || n >= size) return null
    for (let v = 0; v < size; v += n) set[v] = 1
    return set
  }
  for (const item of text.split(',')) {
    if (!/^\d{1,2}$/.test(item) || Number(item) >= size) return null
    set[Number(item)] = 1
  }
  return set
}
