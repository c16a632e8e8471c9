/**
 * WAL checkpoints off the event loop.
 *
 * SQLite's automatic checkpoint runs inside whichever COMMIT crosses 1000 pages, with its
 * fsyncs, on the thread that committed: here, the event loop every request shares, and under a
 * sustained ingest load each checkpoint held every request for hundreds of milliseconds. So a
 * worker thread with its own connection does the copying.
 *
 * Copying alone (PASSIVE) cannot keep the WAL small under steady writes: the WAL only starts
 * over when a write begins after *everything* in it was copied, and with commits every fraction
 * of a millisecond that moment never comes (without the hold below, the WAL grows without bound).
 * So each cycle lets the worker catch up while writes go on, flushes what it copied, and then,
 * with only a small tail left, holds the metric writer (requests queue; nothing is refused or
 * lost) while the worker copies that tail: a few milliseconds. The next group commit starts the
 * WAL over. Reads are never held.
 *
 * The WAL file keeps its size under load (truncating it at each restart, as journal_size_limit
 * does, would hold the event loop each time); once writes stop, a TRUNCATE checkpoint gives the
 * space back.
 *
 * If the worker cannot start, the same cycle runs inline on the server's connection and a
 * warning says so.
 */
import type { Database } from 'bun:sqlite'
import type { Logger } from '../lib/logger'
import { systemTimers, type Timers } from '../lib/timers'
import { CHECKPOINT_WORKER_URL } from '../workers'
import type { Synchronous } from './connection'
import { checkpoint, type CheckpointMode, type CheckpointResult } from './wal'

export type CheckpointRequest =
  | { op: 'open'; path: string; synchronous: Synchronous }
  | { op: 'checkpoint'; mode: CheckpointMode }
  | { op: 'sync' }
  | { op: 'close' }
export type CheckpointReply = { op: 'open' } | ({ op: 'checkpoint' } & CheckpointResult) | { op: 'sync' } | { op: 'close' } | { op: 'error'; message: string }

/** Runs checkpoints: on the worker thread, or inline as the fallback. */
export interface CheckpointRunner {
  readonly where: 'worker' | 'inline'
  run(mode: CheckpointMode): Promise<CheckpointResult>
  /** flushes the database file's written pages to disk */
  sync(): Promise<void>
  close(): Promise<void>
}

/** A copy slower than this left a tail worth another pass before writes are held. */
export const CATCH_UP_MS = 15
/** Passes before the tail is closed anyway, so the WAL stays bounded when writes outrun the copy. */
export const MAX_PASSES = 4
/** The metric writer is never held longer than this, whatever the checkpoint does. */
export const MAX_HOLD_MS = 250
/** Once writes stop, a WAL file larger than this is truncated. */
export const TRIM_ABOVE_BYTES = 64 * 1024 * 1024
/** A quiet spell this long stops the thread (and its memory); the next write starts it again. */
export const STOP_AFTER_IDLE_MS = 30_000
/** the idle cycles in a row that make that spell at a cycle every `everyMs` */
export const idleCyclesBeforeStop = (everyMs: number) => Math.max(1, Math.ceil(STOP_AFTER_IDLE_MS / everyMs))

export interface CycleOutcome {
  /** nothing had been written since the last complete cycle (and nothing was held) */
  idle: boolean
  /** checkpoints run, the held ones included */
  passes: number
  /** how long writes were held (0: not held) */
  heldMs: number
  /** whether everything in the WAL is now in the database (the next write starts it over) */
  complete: boolean
  /** whether the idle WAL file was truncated */
  trimmed: boolean
  /** WAL frames when the cycle began */
  frames: number
}

/**
 * One checkpoint cycle: catch up while writes go on, then hold them for the tail. A cycle that
 * finds nothing written since the last complete one holds nothing, unless the WAL file is worth
 * truncating.
 */
export function checkpointCycle(runner: Pick<CheckpointRunner, 'run' | 'sync'>, holdWrites: () => () => void, timers: Timers = systemTimers) {
  let lastComplete = -1
  async function held(mode: CheckpointMode): Promise<{ r: CheckpointResult; ms: number }> {
    const release = once(holdWrites())
    const cancelCap = timers.after(MAX_HOLD_MS, release)
    const started = performance.now()
    try {
      return { r: await runner.run(mode), ms: performance.now() - started }
    } finally {
      cancelCap()
      release()
    }
  }
  return async function cycle(): Promise<CycleOutcome> {
    let r = await runner.run('PASSIVE')
    const frames = r.log
    let passes = 1
    if (r.log === 0 || (r.log === lastComplete && r.checkpointed === r.log)) {
      if (r.walBytes <= TRIM_ABOVE_BYTES) return { idle: true, passes, heldMs: 0, complete: true, trimmed: false, frames }
      const t = await held('TRUNCATE')
      return { idle: false, passes: passes + 1, heldMs: t.ms, complete: t.r.busy === 0, trimmed: t.r.busy === 0, frames }
    }
    while (r.ms > CATCH_UP_MS && passes < MAX_PASSES) {
      r = await runner.run('PASSIVE')
      passes++
    }
    // Only a checkpoint that copies everything syncs the database file, and it would sync every
    // page the passes above wrote while writes are held: flushed now, they are off that path.
    await runner.sync()
    const t = await held('PASSIVE')
    const complete = t.r.busy === 0 && t.r.checkpointed === t.r.log
    if (complete) lastComplete = t.r.log
    return { idle: false, passes: passes + 1, heldMs: t.ms, complete, trimmed: false, frames }
  }
}

const once = (fn: () => void) => {
  let done = false
  return () => {
    if (done) return
    done = true
    fn()
  }
}

/** The fallback: the same checkpoints on the server's own connection. */
export function inlineRunner(sqlite: Database): CheckpointRunner {
  return { where: 'inline', run: async (mode) => checkpoint(sqlite, mode), sync: async () => {}, close: async () => {} }
}

/** A reply the worker has not sent in this long means it is stuck; the checkpointer then falls back to inline. */
const REPLY_TIMEOUT_MS = 60_000

/** Starts the checkpoint thread and opens its connection; rejects if either fails. */
export async function workerRunner(path: string, synchronous: Synchronous): Promise<CheckpointRunner> {
  const worker = new Worker(CHECKPOINT_WORKER_URL, { smol: true })
  worker.unref() // the server, not this thread, decides when the process ends
  let pending: { resolve(r: CheckpointReply): void; reject(e: Error): void; timer: Timer } | null = null
  const settle = (fn: (p: NonNullable<typeof pending>) => void) => {
    const p = pending
    pending = null
    if (!p) return
    clearTimeout(p.timer)
    fn(p)
  }
  worker.onmessage = (e: MessageEvent<CheckpointReply>) => settle((p) => (e.data.op === 'error' ? p.reject(new Error(e.data.message)) : p.resolve(e.data)))
  worker.onerror = (e: ErrorEvent) => settle((p) => p.reject(new Error(e.message)))
  const call = (req: CheckpointRequest) =>
    new Promise<CheckpointReply>((resolve, reject) => {
      if (pending) return reject(new Error('checkpoint worker is busy'))
      const timer = setTimeout(() => settle((p) => p.reject(new Error('checkpoint worker did not answer'))), REPLY_TIMEOUT_MS)
      pending = { resolve, reject, timer }
      worker.postMessage(req)
    })
  try {
    await call({ op: 'open', path, synchronous })
  } catch (err) {
    worker.terminate()
    throw err
  }
  return {
    where: 'worker',
    async run(mode) {
      const r = await call({ op: 'checkpoint', mode })
      if (r.op !== 'checkpoint') throw new Error(`checkpoint worker answered ${r.op}`)
      return r
    },
    async sync() {
      await call({ op: 'sync' })
    },
    async close() {
      try {
        await call({ op: 'close' })
      } finally {
        worker.terminate()
      }
    },
  }
}

export interface Checkpointer {
  /** where checkpoints run ('none' until the first write) */
  where(): CheckpointRunner['where'] | 'none'
  /** resolves once the cycle in progress, if any, has finished */
  settled(): Promise<void>
  /**
   * a cycle now, after the one in progress, rather than at the next tick: for a long run of
   * writes that waits for the WAL to be copied before it writes more (bulk-pause.ts)
   */
  catchUp(): Promise<void>
  /** waits for a cycle in progress, then closes the worker's connection */
  stop(): Promise<void>
}

export interface CheckpointerOptions {
  sqlite: Database
  synchronous: Synchronous
  /** holds the busy writer (the metric group commit); returns the release */
  holdWrites: () => () => void
  logger: Logger
  everyMs: number
  /** how the runner is made; default the worker thread (tests pass their own) */
  startRunner?: () => Promise<CheckpointRunner>
  /** when cycles run and how long writes may be held; tests pass manual ones */
  timers?: Timers
}

/**
 * Takes over checkpointing from SQLite's automatic one. The worker thread starts on the first
 * cycle that sees a write and stops after half a minute without one, so an idle server does
 * not pay for it.
 */
export function startCheckpointer(opts: CheckpointerOptions): Checkpointer {
  const { sqlite, logger } = opts
  sqlite.run('PRAGMA wal_autocheckpoint = 0')
  sqlite.run('PRAGMA journal_size_limit = -1') // the cycle truncates the WAL once writes stop
  const changes = sqlite.query<{ n: number }, []>('SELECT total_changes() AS n')
  const startRunner = opts.startRunner ?? (() => workerRunner(sqlite.filename, opts.synchronous))
  const timers = opts.timers ?? systemTimers
  let startedAtChanges = changes.get()!.n
  let idleCycles = 0
  const stopAfterCycles = idleCyclesBeforeStop(opts.everyMs)
  let runner: CheckpointRunner | null = null
  let cycle: (() => Promise<CycleOutcome>) | null = null
  let stopped = false
  let cancelNext = () => {}
  let running: Promise<void> = Promise.resolve()

  const use = (r: CheckpointRunner) => {
    runner = r
    cycle = checkpointCycle(r, opts.holdWrites, timers)
  }
  const fallBack = (why: string) => {
    logger.warn('WAL checkpoints now run on the event loop', { reason: why })
    void runner?.close().catch(() => {})
    use(inlineRunner(sqlite))
  }

  async function tick() {
    if (!runner) {
      if (changes.get()!.n === startedAtChanges) return // nothing written: no thread needed
      try {
        use(await startRunner())
      } catch (err) {
        fallBack((err as Error).message)
      }
    }
    const current = runner!
    let out: CycleOutcome
    try {
      out = await cycle!()
    } catch (err) {
      if (current.where === 'inline') logger.error('wal checkpoint failed', { error: (err as Error).message })
      else fallBack((err as Error).message)
      return
    }
    if (out.heldMs > 0)
      logger.debug('wal checkpoint', {
        where: current.where,
        frames: out.frames,
        rounds: out.passes,
        held_ms: Math.round(out.heldMs * 10) / 10,
        complete: out.complete,
        trimmed: out.trimmed,
      })
    idleCycles = out.idle ? idleCycles + 1 : 0
    if (idleCycles >= stopAfterCycles && current.where === 'worker') {
      runner = cycle = null
      startedAtChanges = changes.get()!.n
      idleCycles = 0
      await current.close().catch((err: Error) => logger.warn('checkpoint thread did not close cleanly', { error: err.message }))
    }
  }

  const schedule = () => {
    if (stopped) return
    cancelNext = timers.after(opts.everyMs, () => {
      running = tick().finally(schedule)
    })
  }
  schedule()

  return {
    where: () => runner?.where ?? 'none',
    settled: () => running,
    async catchUp() {
      // the cycle in progress first (another may start while it ends: waited for too)
      for (let r = running; ; r = running) {
        await r
        if (r === running) break
      }
      if (stopped) return
      cancelNext()
      running = tick().finally(schedule)
      await running
    },
    async stop() {
      stopped = true
      cancelNext()
      await running
      await runner?.close()
    },
  }
}
