/**
 * Figures of spans that are settled but for late results (the days before today, the hours
 * before this one), per check, reused while the sums of their summary rows stay the same. A
 * summary row only ever gains attempts (each adds one to its total), so equal sums over the same
 * span mean the same rows; a late result from an agent moves them, and the span is read again.
 * At most `max` checks are kept (the least recently used out first): one pushed out is read
 * again, as the first build read it.
 */
export function createSettled(max: number) {
  const kept = new Map<number, { from: number; sums: number[]; values: Float64Array }>()
  const same = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => v === b[i])
  return {
    /**
     * The values of the span [from, to) of each of `seqs`: kept ones where `sums` (a row per check
     * that has rows: [seq, ...sums]) match, the rest filled by `load` (NaN where it fills none).
     */
    read(seqs: number[], from: number, to: number, sums: number[][], load: (stale: number[], out: Map<number, Float64Array>) => void) {
      const bySeq = new Map(sums.map((row) => [row[0]!, row.slice(1)]))
      const out = new Map<number, Float64Array>()
      const stale: number[] = []
      for (const seq of seqs) {
        const now = bySeq.get(seq) ?? []
        let hit = kept.get(seq)
        kept.delete(seq)
        if (!hit || hit.from !== from || !same(hit.sums, now)) {
          hit = { from, sums: now, values: new Float64Array(to - from).fill(Number.NaN) }
          stale.push(seq)
        }
        kept.set(seq, hit)
        out.set(seq, hit.values)
      }
      if (stale.length) load(stale, out)
      for (const seq of kept.keys()) {
        if (kept.size <= max) break
        kept.delete(seq)
      }
      return out
    },
  }
}
