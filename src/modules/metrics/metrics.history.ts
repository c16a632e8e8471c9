/**
 * Where a history page starts, without reading the rows it skips.
 *
 * A page is the samples of one kind, newest first, from `offset` on. They live in two tables: the
 * raw table on disk (sealed samples, and rows of earlier releases) and the hot samples in memory
 * (the newest hour, late data not yet sealed). Stepping over `offset` rows of kind k through
 * SQLite reads each skipped row from the table to check its kind (about 2.5 µs a row: 300 ms in
 * the middle of a month at 10 s); its (device, ts) index alone steps a hundred times faster. So
 * the page's first sample is located from three sources:
 *
 * - `mainAt(p)`: the time of the raw table's p-th row of the range, newest first, any kind (the
 *   index alone);
 * - `lacking`: the times of the raw table's rows of the range without kind k, newest first (rare,
 *   indexed apart: a collector sends both parts in one batch);
 * - `hot`: the times of the hot samples of kind k in the range, newest first (few).
 *
 * and the page is then read from that time on, as before. Both lists are bounded by the caller;
 * past the bound it reads the page the old way.
 */

/** Times, newest first: the first index whose time is older than (below) `t`, i.e. how many are ≥ t. */
function countAtOrAbove(desc: number[], t: number): number {
  let lo = 0
  let hi = desc.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (desc[mid]! >= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

export interface PageSources {
  /** time of the raw table's p-th row (any kind) of the range, newest first; null past its end */
  mainAt(p: number): number | null
  /** times of the raw table's rows of the range without the kind, newest first */
  lacking: number[]
  /** times of the hot samples of the kind in the range, newest first */
  hot: number[]
}

/**
 * The time of the r-th (0-based) raw row of the kind, newest first, or null. Rows without the
 * kind are counted out: with j of them before it, it is the raw table's (r + j)-th row; j is
 * found by counting the ones at or above each candidate until it settles (once when there are
 * none, which is the rule).
 */
export function mainOfKindAt(src: Pick<PageSources, 'mainAt' | 'lacking'>, r: number): number | null {
  let j = 0
  for (;;) {
    const t = src.mainAt(r + j)
    if (t === null) return null
    const c = countAtOrAbove(src.lacking, t)
    // c > j: more rows without the kind lie at or above the candidate (it may be one itself)
    if (c === j) return t
    j = c
  }
}

/**
 * The time of the `offset`-th (0-based) sample of the kind over both tables, newest first, or
 * null when the range holds no more. With i hot samples before it, it is the newer of hot[i]
 * and the raw table's (offset − i)-th; i is the largest for which hot[i − 1] is newer than that
 * raw row, found by bisection (one probe when the hot samples are all newer, the rule).
 */
export function pageStart(src: PageSources, offset: number): number | null {
  const hot = src.hot
  const raw = (r: number) => (r < 0 ? Number.POSITIVE_INFINITY : (mainOfKindAt(src, r) ?? Number.NEGATIVE_INFINITY))
  // at least i hot samples come before the sample sought
  const before = (i: number) => i === 0 || hot[i - 1]! > raw(offset - i)
  let lo = 0
  let hi = Math.min(offset, hot.length)
  if (!before(hi)) {
    // largest i in [lo, hi) with before(i): before(0) holds
    hi -= 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (before(mid)) lo = mid
      else hi = mid - 1
    }
  } else lo = hi
  const h = lo < hot.length ? hot[lo]! : Number.NEGATIVE_INFINITY
  const m = raw(offset - lo)
  const t = Math.max(h, m)
  return t === Number.NEGATIVE_INFINITY ? null : t
}
