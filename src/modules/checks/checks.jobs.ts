import type { Clock } from '../../lib/clock'
import type { ResultsStore } from './checks.summaries'

/** hours (of a check at a place) packed in one transaction: about 60 rows each at a 60 s interval */
export const PACK_STEP = 50

export interface PackDeps {
  results: Pick<ResultsStore, 'packBefore' | 'pruneRaw'>
  clock: Clock
  /** lets other work run between two steps (the event loop in the hub, nothing in tests) */
  pause: () => Promise<void>
}

/**
 * Packs every finished hour whose attempts are still rows, then drops raw attempts past 48 h.
 * In steps of PACK_STEP hours, each one transaction, with a pause between: a database carried
 * over from before packing (up to 48 h of rows) is converted without holding the hub for long,
 * and reads see each hour whole in one form or the other throughout. The packed hours.
 */
export async function packRawHours(deps: PackDeps): Promise<number> {
  const now = deps.clock.now()
  let packed = 0
  for (;;) {
    const n = await deps.results.packBefore(now, PACK_STEP)
    packed += n
    if (n < PACK_STEP) break
    await deps.pause()
  }
  await deps.results.pruneRaw(now)
  return packed
}
