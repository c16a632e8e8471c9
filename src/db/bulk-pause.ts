import { yieldToRequests } from '../lib/yield'

/**
 * The pause a long run of writes takes between its bounded steps: the disk budget's and the
 * retention's deletes, the vacuum's slices, the rollups.
 *
 * A turn of the event loop lets requests through, but it does not let the WAL start over: that
 * happens only when a write begins after everything in the WAL was copied into the database, and
 * the checkpointer's cycle (checkpointer.ts) holds the metric writer for its tail, not these
 * steps. Pruning 793 MB of data to a 300 MB budget left a 958 MB WAL on the disk the budget
 * was meant to spare. So once the WAL holds more than `boundBytes`, the run waits for a checkpoint cycle:
 * with the run waiting and the metric writer held for the tail, the cycle copies everything, and
 * the run's next step starts the WAL over. A run of writes never outpaces the copying by more
 * than the bound, and goes at the disk's pace.
 */
export interface WalBoundedPause {
  /** bytes of WAL written since it last started over, or null when that cannot be read now */
  inUseBytes: () => number | null
  boundBytes: number
  /** a checkpoint cycle now, after the one in progress */
  catchUp: () => Promise<void>
  /** lets requests through; default a turn of the event loop */
  yieldNow?: () => Promise<void>
}

/** 32 MiB: a few seconds of a bulk delete's writes, small beside any disk the hub runs on. */
export const BULK_WAL_BOUND_BYTES = 32 * 1024 * 1024

export function walBoundedPause(o: WalBoundedPause): () => Promise<void> {
  const yieldNow = o.yieldNow ?? yieldToRequests
  return async () => {
    await yieldNow()
    const inUse = o.inUseBytes()
    if (inUse !== null && inUse > o.boundBytes) await o.catchUp()
  }
}
