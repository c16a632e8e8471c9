import type { Timers } from '../../lib/timers'
import type { MetricKind } from './metrics.fields'
import { GATHER_BYTES, GATHER_MS, GATHER_REQUESTS, recentDevices } from './metrics.gather'
import type { SampleRow } from './metrics.rows'

/*
 * What the two metric writers share (metrics.writer.ts on SQLite, metrics.writer.pg.ts on
 * PostgreSQL): the queue of submitted requests and when a group of them goes, and the notes kept
 * of what was written. Each writer brings its engine's commit of one group.
 */

/** One request's write: its samples are stored together or not at all. */
export interface WriteJob {
  deviceSeq: number
  samples: SampleRow[]
}

/**
 * Per sample of a job, in its order: the row id, and whether the sample was already stored (a
 * repeat: the existing row's id, nothing written). `duplicate` is null when none was.
 */
export interface WriteResult {
  ids: number[]
  duplicate: boolean[] | null
}

/** A submitted request until its group settles it. */
export interface Pending {
  job: WriteJob
  resolve(result: WriteResult): void
  reject(err: unknown): void
  result?: WriteResult
  error?: unknown
}

/**
 * The queue and its gathering. A group goes on the next turn of the event loop when a pending
 * request's device had a sample committed lately (metrics.gather.ts: a client posting again as
 * soon as it is answered; waiting would only hold it back), or when GATHER_REQUESTS requests or
 * GATHER_BYTES are pending; else GATHER_MS after the first pending request, so requests arriving
 * close together share a commit.
 *
 * `commit` writes one group and settles every request in it. It may be synchronous (SQLite: the
 * group is written before anything else runs) or return a promise (PostgreSQL): then one group is
 * in flight at a time, as on SQLite, and requests arriving meanwhile go together as the next
 * group, at once.
 */
export function createGroupCommit(commit: (batch: Pending[]) => void | Promise<void>, timers: Timers, elapsed: () => number) {
  let queue: Pending[] = []
  /** the rest texts' length of the pending requests (what they will write, roughly) */
  let queuedBytes = 0
  /** a flush is due on the next turn of the event loop */
  let scheduled = false
  /** cancels the gathering timer while one runs */
  let gathering: (() => void) | null = null
  /** a flush came while writes were held or a group was in flight: it goes as soon as they end */
  let overdue = false
  /** a pending request's client came back right after its answer: the group goes on the next turn */
  let urgent = false
  /** while above zero, groups wait (the checkpointer is copying the WAL's tail; see db/checkpointer.ts) */
  let holds = 0
  /** an asynchronous commit's group is under way */
  let flushing = false
  const recent = recentDevices(elapsed)

  const settled = () => {
    flushing = false
    if (queue.length) schedule()
  }

  function flush() {
    scheduled = false
    gathering?.()
    gathering = null
    if (holds > 0 || flushing) {
      overdue = true // the release, or the group in flight, schedules it again at once
      return
    }
    overdue = false
    const batch = queue
    queue = []
    queuedBytes = 0
    urgent = false
    for (const p of batch) recent.committed(p.job.deviceSeq)
    const done = commit(batch)
    if (done) {
      flushing = true
      void done.finally(settled)
    }
  }

  function schedule() {
    if (scheduled || holds > 0) return
    if (overdue || urgent || queue.length >= GATHER_REQUESTS || queuedBytes >= GATHER_BYTES) {
      gathering?.()
      gathering = null
      scheduled = true
      setImmediate(flush)
    } else gathering ??= timers.after(GATHER_MS, flush)
  }

  return {
    submit(job: WriteJob): Promise<WriteResult> {
      return new Promise<WriteResult>((resolve, reject) => {
        queue.push({ job, resolve, reject })
        for (const x of job.samples) queuedBytes += x.rest?.length ?? 0
        if (recent.has(job.deviceSeq)) urgent = true
        schedule()
      })
    },
    /** Holds group commits until the returned release is called: requests queue, none is refused. */
    hold(): () => void {
      holds++
      let released = false
      return () => {
        if (released) return
        released = true
        holds--
        if (queue.length) schedule()
      }
    },
    /** requests waiting for the next group commit */
    queued: () => queue.length,
  }
}

/**
 * What a writer notes of the samples it stored, for the sealing job (the oldest time per device
 * since it last looked, a block still filling) and the rollup job (late samples' span per kind).
 */
export function createWrittenNotes(elapsed: () => number) {
  /** per device, the oldest sample time stored since the sealing job last looked (late data, replays) */
  let writtenSince = new Map<number, number>()
  /** per device, its newest sample time written and when (elapsed ms): a block still filling */
  const newestWritten = new Map<number, { ts: number; at: number }>()
  /** per kind, the oldest and newest late sample times stored since they were last taken */
  let span: Record<MetricKind, { from: number; to: number } | null> = { hardware: null, network: null }

  return {
    /** a sample of this device and time was stored */
    written(seq: number, ts: number): void {
      const w = writtenSince.get(seq)
      if (w === undefined || ts < w) writtenSince.set(seq, ts)
      const n = newestWritten.get(seq)
      if (n === undefined || ts >= n.ts) newestWritten.set(seq, { ts, at: elapsed() })
    },
    /** a late sample of this kind and time was stored (see LIVE_MS) */
    late(kind: MetricKind, ts: number): void {
      const o = span[kind]
      if (o === null) span[kind] = { from: ts, to: ts }
      else if (ts < o.from) o.from = ts
      else if (ts > o.to) o.to = ts
    },
    /** the late samples' span per kind since the last call (then forgotten): the writers keep it in metric_late with the group */
    takeSpans(): Record<MetricKind, { from: number; to: number } | null> {
      const o = span
      span = { hardware: null, network: null }
      return o
    },
    /** per device, the oldest sample time written since the last call (then forgotten) */
    takeWrittenSince(): Map<number, number> {
      const w = writtenSince
      writtenSince = new Map()
      return w
    },
    /**
     * The time of the newest sample this device had written within the last `withinMs` (elapsed),
     * or null: its block may still be filling. Older notes are forgotten as they are asked about.
     */
    newestWrittenWithin(seq: number, withinMs: number): number | null {
      const n = newestWritten.get(seq)
      if (!n) return null
      if (elapsed() - n.at <= withinMs) return n.ts
      newestWritten.delete(seq)
      return null
    },
  }
}

/**
 * A sample at most this old when written is one the rollup job's next run reaches anyway (it
 * rolls again from the minute before the last one it finished): only older ones are reported as
 * late, so that a replay two hours back beside live samples re-rolls the replay's buckets, not
 * every bucket from it to now.
 */
export const LIVE_MS = 60_000

/**
 * last_seen_at feeds an online/offline status with a 5-minute window: half a minute of precision
 * suffices. Each write rewrites a page in the WAL (and again at the checkpoint): written for
 * every device seen at once, every 30 s (on SQLite into the narrow `device_seen` table, one page
 * for a hundred devices), instead of by a commit every second or so as each device's turn came
 * (with the samples' records out of SQLite, that was about a third of what ingest wrote).
 */
export const TOUCH_EVERY_MS = 30_000

/** Which devices a group writes last_seen_at for: a device's first sample since the start at once, the others seen in between every TOUCH_EVERY_MS. */
export function createSeenSweep() {
  /** the devices whose last_seen_at was written since the hub started (a rolled-back group may leave one in early; harmless) */
  const touchedOnce = new Set<number>()
  /** the devices with a sample since last_seen_at was last written for them all, and when that was */
  let seenSince = new Set<number>()
  let lastSweep = Number.NEGATIVE_INFINITY
  return {
    /** the devices of `seqs` (a group's, written) whose last_seen_at is written now, at `t`, in the group's transaction */
    due(seqs: Iterable<number>, t: number): number[] {
      const now: number[] = []
      for (const seq of seqs) {
        if (touchedOnce.has(seq)) seenSince.add(seq)
        else {
          now.push(seq)
          touchedOnce.add(seq)
        }
      }
      if (Math.abs(t - lastSweep) >= TOUCH_EVERY_MS) {
        for (const seq of seenSince) now.push(seq)
        seenSince = new Set()
        lastSweep = t
      }
      return now
    },
  }
}
