import { yieldToRequests } from '../../lib/yield'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { BLOCK_MS, blockStart, type BlockStore, type PreparedBlock } from './metrics.block.store'
import { HOUR_MS } from './metrics.fields'

export interface SealDeps {
  blocks: Pick<BlockStore, 'prepare' | 'commit' | 'firstUnsealed' | 'dropHot' | 'dropOrphans' | 'wipe' | 'sweep'>
  devices: { seqs(): number[] }
  /** per device the oldest sample time written since the last call (late data, replays) */
  writer: { takeWrittenSince(): Map<number, number>; newestWrittenWithin?(seq: number, withinMs: number): number | null }
  clock: Clock
  logger: Logger
  pause?: () => Promise<void>
  /** the wall time one run may take (ms); the next run goes on where it stopped */
  budgetMs?: number
  /** the clock the budget is measured on (default performance.now; not the service clock, which tests hold still) */
  elapsed?: () => number
}

/**
 * One run converts for at most this long: a database from an earlier release takes many runs
 * (about a minute apart), and stopping the service never waits long for one.
 */
const RUN_BUDGET_MS = 20_000

/**
 * Blocks written per transaction: the rows of many devices' blocks lie side by side (ids are
 * handed out in runs per device), so one transaction writes each of their pages once.
 */
const SEAL_BATCH = 64

/**
 * A batch is written once its rows' own rest texts reach this many characters: each such row (an
 * earlier release's, whose sample text is in the row) is moved out of the raw table and back
 * without its text (metrics.block.store.ts), and 64 blocks of them, 3,840 rows, held the event
 * loop for one long transaction. Blocks of hot samples carry no such text and batch as above.
 */
export const SEAL_BATCH_REST_CHARS = 2 * 1024 * 1024

/**
 * When a device has a block due, its next two blocks (complete, their samples 30 to 60 minutes
 * old) are sealed with it, so each device is sealed every half hour rather than every ten
 * minutes: the `(device, time)` index of the raw table takes 180 entries in one transaction where
 * it took 60, on about as many pages, and the sealing's writes to SQLite (each page twice, to the
 * WAL and at the checkpoint) fall by two fifths (docs/storage.md). The blocks themselves, and so the
 * reads, are the same.
 */
export const SEAL_AHEAD_BLOCKS = 2

/**
 * A device's newest block, written to this recently, is left for the next run: its samples are
 * still arriving (a collector replaying its queue in order), and sealing it now would decode it
 * and write it again at the next run with the rest.
 */
export const FILLING_MS = 20_000

/**
 * Moves samples into their long-lived form (see metrics.block.ts): a block is sealed once its
 * first sample is an hour old, with the device's next blocks (SEAL_AHEAD_BLOCKS), so the newest 30
 * to 60 minutes stay plain rows. Blocks are written in batches (SEAL_BATCH) with a pause between
 * them, so a database from an earlier release converts in small steps while the hub serves;
 * every read sees each sample throughout (in its row or in its block, never neither).
 *
 * Per device it remembers up to where everything is sealed, so a run only looks at what came
 * since; a late sample or a replay lowers that mark to its block. After a restart the first run
 * looks over every device's rows once (an index range each, stopping at the first unsealed row).
 */
export function createSealer(deps: SealDeps) {
  const sealedUntil = new Map<number, number>()
  const pause = deps.pause ?? yieldToRequests
  let running = false
  /**
   * A run that runs out of time names the device after the one it stopped on: the next run starts
   * there, so a large device (or account) being converted does not keep the others waiting.
   */
  let resumeAt: number | null = null
  /**
   * The work left at the last look: devices with blocks still to seal. Unknown (null) until the
   * first run after a start has looked, and a device counts as caught up only once its blocks'
   * transaction committed, so /health never says 0 while samples still wait.
   */
  let behind: number | null = null
  /** the first run after a start drops the blocks an interrupted pruning left without rows, and sweeps the block files */
  let swept = false

  /** `leaveFilling`: the scheduled job's runs leave a block still filling (FILLING_MS) to the next run */
  async function run(opts: { leaveFilling?: boolean } = {}): Promise<{ blocks: number; rows: number }> {
    if (running) return { blocks: 0, rows: 0 }
    running = true
    try {
      for (const [seq, ts] of deps.writer.takeWrittenSince()) {
        const mark = sealedUntil.get(seq)
        if (mark !== undefined && ts < mark) sealedUntil.set(seq, blockStart(ts))
      }
      // the blocks whose first sample is an hour old: every one starting at or before this
      const limit = blockStart(deps.clock.now() - HOUR_MS) + BLOCK_MS
      const seqs = deps.devices.seqs()
      if (!swept) {
        swept = true
        const dropped = deps.blocks.dropOrphans(seqs)
        if (dropped) deps.logger.info('metrics: blocks of pruned samples dropped (a pruning was interrupted)', { blocks: dropped })
        await pause()
        // bytes of a sealing killed before its COMMIT, files nothing points into any more
        await deps.blocks.sweep(pause)
      }
      // a deleted device's blocks are overwritten with zeros within a minute of the delete
      deps.blocks.wipe()
      // each step of a run holds the event loop for a stretch of its own, not for the whole run:
      // reads waiting on it wait for one step
      await pause()
      let blocks = 0
      let rows = 0
      const elapsed = deps.elapsed ?? (() => performance.now())
      const until = elapsed() + (deps.budgetMs ?? RUN_BUDGET_MS)
      const isBehind = (seq: number) => (sealedUntil.get(seq) ?? Number.MIN_SAFE_INTEGER) < limit
      let left = seqs.filter(isBehind).length
      behind = left
      const first = resumeAt === null ? -1 : seqs.indexOf(resumeAt)
      const order = first > 0 ? [...seqs.slice(first), ...seqs.slice(0, first)] : seqs
      resumeAt = null
      const pending: PreparedBlock[] = []
      let pendingChars = 0
      /** devices caught up once the pending blocks commit */
      let caughtUp = new Set<number>()
      const again = (b: PreparedBlock) => sealedUntil.set(b.seq, Math.min(sealedUntil.get(b.seq) ?? b.start, b.start))
      const flush = async () => {
        const batch = pending.splice(0)
        const done = caughtUp
        caughtUp = new Set()
        pendingChars = 0
        if (!batch.length) return
        let r: Awaited<ReturnType<typeof deps.blocks.commit>>
        try {
          r = await deps.blocks.commit(batch)
        } catch (err) {
          // nothing of the batch was written (a full disk, say): the next run seals its blocks again
          for (const b of batch) again(b)
          throw err
        }
        rows += r.samples
        // a block that changed while it waited is sealed again by the next run
        for (const b of r.stale) {
          again(b)
          done.delete(b.seq)
        }
        left -= done.size
        behind = left
      }
      for (const [i, seq] of order.entries()) {
        const filling = opts.leaveFilling ? (deps.writer.newestWrittenWithin?.(seq, FILLING_MS) ?? null) : null
        const cap = (t: number) => (filling === null ? t : Math.min(t, blockStart(filling)))
        const due = cap(limit)
        let upTo = due
        // sealed ahead of what is due at an earlier run: nothing to look at until its next block is due
        const mark = sealedUntil.get(seq) ?? Number.MIN_SAFE_INTEGER
        let from = mark
        let done = false
        while (elapsed() < until) {
          const ts = from < upTo ? deps.blocks.firstUnsealed(seq, from, upTo) : null
          if (ts === null) {
            done = true
            break
          }
          // a block is due: the device's next blocks (complete, 30 to 60 minutes old) go with it
          upTo = cap(limit + SEAL_AHEAD_BLOCKS * BLOCK_MS)
          const start = blockStart(ts)
          const b = deps.blocks.prepare(seq, start)
          if (b) {
            pending.push(b)
            pendingChars += b.restChars
            blocks++
          }
          from = start + BLOCK_MS
          if (pending.length >= SEAL_BATCH || pendingChars >= SEAL_BATCH_REST_CHARS) await flush()
          await pause()
        }
        if (!done) {
          // out of time: this device is done up to `from`; the next run goes on from there
          sealedUntil.set(seq, from)
          resumeAt = order[(i + 1) % order.length]!
          break
        }
        if (due === limit && isBehind(seq)) {
          if (pending.some((b) => b.seq === seq)) caughtUp.add(seq)
          else behind = --left
        }
        sealedUntil.set(seq, Math.max(upTo, mark))
      }
      await flush()
      for (const seq of sealedUntil.keys()) if (!seqs.includes(seq)) sealedUntil.delete(seq)
      await pause()
      // the hot records whose samples are all sealed now go, a whole segment per statement
      deps.blocks.dropHot()
      if (blocks) deps.logger.info('metrics sealed', { blocks, rows, devices_behind: behind })
      return { blocks, rows }
    } finally {
      running = false
    }
  }

  return {
    run,
    /** devices whose older samples are still being converted (0 once caught up): progress for /health */
    behind: () => behind ?? deps.devices.seqs().length,
  }
}

export type Sealer = ReturnType<typeof createSealer>
