import type { Database } from 'bun:sqlite'
import { AppError } from '../../http/errors'
import type { Clock } from '../../lib/clock'
import { systemTimers, type Timers } from '../../lib/timers'
import { FIELDS, KIND_BIT, RAW_TABLE, type MetricKind } from './metrics.fields'
import type { HotPart } from './metrics.hot'
import { HOT_BIT, RAW_MAIN, createHotStore } from './metrics.hot.store'
import type { SampleRow } from './metrics.rows'
import { GATHER_BYTES, GATHER_MS, GATHER_REQUESTS, recentDevices } from './metrics.gather'

/** The devices domain's last_seen_at, written in the group's transaction (same connection). */
export interface DeviceSeen {
  markSeen(seq: number, at: number): void
}

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

interface Pending {
  job: WriteJob
  resolve(result: WriteResult): void
  reject(err: unknown): void
  result?: WriteResult
  error?: unknown
}

/**
 * Group commit. Requests waiting together share one IMMEDIATE transaction, each inside its own
 * SAVEPOINT (a failing request rolls back only itself), and every promise settles only after
 * the group's records are written to their segment file (one write, metrics.hot.log.ts) and its
 * COMMIT went through: a 201 is never sent for a sample that is not durable against a process
 * crash (see db/connection.ts). One commit per group instead of one per request is where the
 * ingest throughput comes from.
 *
 * When a group goes (see schedule): on the next turn of the event loop when a pending request's
 * device had a sample committed within RETURN_MS (a client posting again as soon as it is
 * answered: a replay, a script, a full load of clients; waiting would only hold them back), or
 * when GATHER_REQUESTS requests or GATHER_BYTES are pending; else GATHER_MS after the first
 * pending request, so requests arriving close together (collectors posting within the same few
 * tens of ms) share a commit.
 *
 * The raw table's write side: build one per database, and hand it to everything that writes
 * samples or must hold writes (the checkpointer), so all of them share its queue.
 */
export function createMetricWriter(
  sqlite: Database,
  clock: Clock,
  devices: DeviceSeen,
  timers: Timers = systemTimers,
  /** real elapsed ms (how fast clients come back; the injected clock is the samples' time) */
  elapsed: () => number = () => performance.now(),
) {
  const hot = createHotStore(sqlite)
  const hw = FIELDS.hardware.map((f) => f.name)
  const net = FIELDS.network.map((f) => f.name)
  // what the hot tables' missing foreign key would check (see metrics.table.ts): a device deleted
  // between its lookup and this write is a 404, not a sample stored for nobody
  const deviceExists = sqlite.prepare<{ one: number }, [number]>('SELECT 1 AS one FROM devices WHERE seq = ?')
  // through the raw table's view: a sample already stored, sealed or hot
  const existing = sqlite.prepare<{ id: number; kinds: number }, [number, number]>(`SELECT id, kinds FROM ${RAW_TABLE} WHERE device_seq = ? AND ts = ?`)
  // a part added to a sample already sealed into the raw table (late data): its rest joins the block at the next sealing
  const addPart: Record<MetricKind, ReturnType<typeof sqlite.prepare>> = {
    hardware: sqlite.prepare(
      `UPDATE ${RAW_MAIN} SET kinds = kinds | ${KIND_BIT.hardware}, ${[...hw, 'hw_rest'].map((c) => `${c} = ?`).join(', ')} WHERE id = ?`,
    ),
    network: sqlite.prepare(
      `UPDATE ${RAW_MAIN} SET kinds = kinds | ${KIND_BIT.network}, ${[...net, 'net_rest'].map((c) => `${c} = ?`).join(', ')} WHERE id = ?`,
    ),
  }
  const begin = sqlite.prepare('BEGIN IMMEDIATE')
  const commit = sqlite.prepare('COMMIT')
  const rollback = sqlite.prepare('ROLLBACK')
  const savepoint = sqlite.prepare('SAVEPOINT req')
  const release = sqlite.prepare('RELEASE req')
  const rollbackTo = sqlite.prepare('ROLLBACK TO req')

  /** the devices whose last_seen_at was written since the hub started (a rolled-back group may leave one in early; harmless) */
  const touchedOnce = new Set<number>()
  /** the devices with a sample since last_seen_at was last written for them all, and when that was */
  let seenSince = new Set<number>()
  let lastSweep = Number.NEGATIVE_INFINITY
  /**
   * Per device, the last time the hub stamped on a sample of its own (no recorded_at). A sample
   * stamped in a millisecond already used takes the next one straight away, so a burst costs one
   * INSERT per request instead of a walk over every millisecond the burst has taken; the times run
   * ahead of the clock only by the burst's excess and fall back to the clock once it passes them.
   */
  const lastStamp = new Map<number, number>()
  let queue: Pending[] = []
  /** the rest texts' length of the pending requests (what they will write, roughly) */
  let queuedBytes = 0
  /** a flush is due on the next turn of the event loop */
  let scheduled = false
  /** cancels the gathering timer while one runs */
  let gathering: (() => void) | null = null
  /** a flush came while writes were held: it goes as soon as they are released */
  let overdue = false
  /** a pending request's client came back right after its answer: the group goes on the next turn */
  let urgent = false
  const recent = recentDevices(elapsed)
  /** while above zero, groups wait (the checkpointer is copying the WAL's tail; see db/checkpointer.ts) */
  let holds = 0
  /** per kind, the oldest and newest sample times stored since the rollup job last looked (late data) */
  const spanWritten: Record<MetricKind, { from: number; to: number } | null> = { hardware: null, network: null }
  /** per device, the oldest sample time stored since the sealing job last looked (late data, replays) */
  let writtenSince = new Map<number, number>()
  /** per device, its newest sample time written and when (elapsed ms): a block still filling */
  const newestWritten = new Map<number, { ts: number; at: number }>()

  /** one sample per distinct time: a batch's two parts (same recorded_at) share it and its id */
  function writeOne(p: Pending, now: number) {
    const samples = p.job.samples
    const seq = p.job.deviceSeq
    if (!deviceExists.get(seq)) throw new AppError('not_found', 'Device not found')
    const ids: number[] = new Array(samples.length)
    let duplicate: boolean[] | null = null
    for (let i = 0; i < samples.length; i++) {
      if (ids[i] !== undefined) continue
      const s = samples[i]!
      const j = partnerOf(samples, i, ids)
      const h = s.kind === 'hardware' ? s : j === -1 ? null : samples[j]!
      const n = s.kind === 'network' ? s : j === -1 ? null : samples[j]!
      const kinds = (h ? KIND_BIT.hardware : 0) | (n ? KIND_BIT.network : 0)
      let ts = s.ts
      if (!s.stamped) {
        const last = lastStamp.get(seq)
        if (last !== undefined && ts <= last) ts = last + 1
      }
      let e = existing.get(seq, ts)
      // the hub's own clock gave two samples one millisecond (a sent time holds it, or the hub restarted): both are kept
      if (!s.stamped) while (e && e.kinds & kinds) e = existing.get(seq, ++ts)
      let id: number
      if (!e) {
        id = hot.takeId(seq)
        const parts: HotPart[] = []
        for (const x of [h, n]) if (x) parts.push({ kind: x.kind, values: x.values, rest: x.rest })
        hot.append(seq, id, ts, parts, now, true)
      } else {
        // the sample exists: add the parts it lacks, recognise the ones it has
        id = e.id
        for (const k of j === -1 ? [i] : [i, j]) {
          const x = samples[k]!
          if (e.kinds & KIND_BIT[x.kind]) (duplicate ??= new Array<boolean>(samples.length).fill(false))[k] = true
          else if (e.kinds & HOT_BIT) hot.append(seq, id, ts, [{ kind: x.kind, values: x.values, rest: x.rest }], now, false)
          else addPart[x.kind].run(...x.values, x.rest, id)
        }
      }
      ids[i] = id
      if (j !== -1) ids[j] = id
      if (!s.stamped && ts > (lastStamp.get(seq) ?? Number.NEGATIVE_INFINITY)) lastStamp.set(seq, ts)
      for (const x of [h, n]) {
        if (!x || duplicate?.[x === s ? i : j]) continue
        if (ts < now - LIVE_MS) {
          const o = spanWritten[x.kind]
          if (o === null) spanWritten[x.kind] = { from: ts, to: ts }
          else if (ts < o.from) o.from = ts
          else if (ts > o.to) o.to = ts
        }
        const w = writtenSince.get(seq)
        if (w === undefined || ts < w) writtenSince.set(seq, ts)
        const n = newestWritten.get(seq)
        if (n === undefined || ts >= n.ts) newestWritten.set(seq, { ts, at: elapsed() })
      }
      if (ts !== s.ts) {
        s.ts = ts
        if (j !== -1) samples[j]!.ts = ts
      }
    }
    p.result = { ids, duplicate }
  }

  function flush() {
    scheduled = false
    gathering?.()
    gathering = null
    if (holds > 0) {
      overdue = true // the release schedules it again, at once
      return
    }
    overdue = false
    const batch = queue
    queue = []
    queuedBytes = 0
    urgent = false
    for (const p of batch) recent.committed(p.job.deviceSeq)
    const touched = new Set<number>()
    const now = clock.now()
    try {
      begin.run()
    } catch (err) {
      for (const p of batch) p.reject(err)
      return
    }
    hot.begin()
    try {
      for (const p of batch) {
        if (batch.length === 1) {
          // alone in its group: the transaction itself is the request's all-or-nothing
          try {
            writeOne(p, now)
          } catch (err) {
            if (sqlite.inTransaction) rollback.run() // a full disk makes SQLite roll back by itself
            hot.end(false)
            p.reject(mapError(err))
            return
          }
        } else {
          // a sample is a few statements (its record, its row in the mirror): a failing request undoes only itself
          const mark = hot.mark()
          savepoint.run()
          try {
            writeOne(p, now)
            release.run()
          } catch (err) {
            if (!sqlite.inTransaction) throw err
            rollbackTo.run()
            release.run()
            hot.undoTo(mark)
            p.error = err
            p.result = undefined
          }
        }
        if (!p.error) touched.add(p.job.deviceSeq)
      }
      // last_seen_at, in the same transaction: a device's first sample since the start at once,
      // then every device seen in between together, once per TOUCH_EVERY_MS
      const t = clock.now()
      for (const seq of touched) {
        if (touchedOnce.has(seq)) seenSince.add(seq)
        else {
          devices.markSeen(seq, t)
          touchedOnce.add(seq)
        }
      }
      if (Math.abs(t - lastSweep) >= TOUCH_EVERY_MS) {
        for (const seq of seenSince) devices.markSeen(seq, t)
        seenSince = new Set()
        lastSweep = t
      }
      // the records go into their segment's file first: should the COMMIT fail, they are cut off again
      hot.persist()
      commit.run()
      hot.end(true)
    } catch (err) {
      try {
        if (sqlite.inTransaction) rollback.run()
      } catch {}
      hot.end(false)
      for (const p of batch) p.reject(err)
      return
    }
    for (const p of batch) {
      if (p.error) p.reject(mapError(p.error))
      else p.resolve(p.result!)
    }
  }

  function schedule() {
    if (scheduled || holds > 0) return
    const now = overdue || urgent || queue.length >= GATHER_REQUESTS || queuedBytes >= GATHER_BYTES
    if (now) {
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
    /** the oldest and newest sample times written since the last call, per kind (then forgotten) */
    takeWrittenSpan(kind: MetricKind): { from: number; to: number } | null {
      const o = spanWritten[kind]
      spanWritten[kind] = null
      return o
    },
  }
}

/**
 * A sample at most this old when written is one the rollup job's next run reaches anyway (it
 * rolls again from the minute before the last one it finished): only older ones are reported as
 * late, so that a replay two hours back beside live samples re-rolls the replay's buckets, not
 * every bucket from it to now.
 */
const LIVE_MS = 60_000

/**
 * last_seen_at feeds an online/offline status with a 5-minute window: half a minute of precision
 * suffices. Each write rewrites a page of the devices table in the WAL (and again at the
 * checkpoint): written for every device seen at once, every 30 s, the devices' pages are written
 * once per 30 s instead of by a commit every second or so as each device's turn came (with the
 * samples' records out of SQLite, that was about a third of what ingest wrote).
 */
const TOUCH_EVERY_MS = 30_000

/** The index of the other part of sample i's row (the other kind, same time), -1 when none: usually the next one. */
function partnerOf(samples: SampleRow[], i: number, taken: number[]): number {
  const s = samples[i]!
  const next = samples[i + 1]
  if (next && next.ts === s.ts && next.kind !== s.kind) return i + 1
  if (samples.length <= 2) return -1
  return samples.findIndex((o, k) => k > i && taken[k] === undefined && o.ts === s.ts && o.kind !== s.kind)
}

/** A device deleted between lookup and write fails its foreign key: that is a 404, not a 500. */
function mapError(err: unknown): unknown {
  if (err instanceof Error && /FOREIGN KEY/i.test(err.message)) return new AppError('not_found', 'Device not found')
  return err
}

export type MetricWriter = ReturnType<typeof createMetricWriter>
