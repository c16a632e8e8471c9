import type { Database } from 'bun:sqlite'
import { AppError } from '../../http/errors'
import type { Clock } from '../../lib/clock'
import { systemTimers, type Timers } from '../../lib/timers'
import { FIELDS, KIND_BIT, RAW_TABLE, type MetricKind } from './metrics.fields'
import type { HotPart } from './metrics.hot'
import { createHotStore } from './metrics.hot.store'
import { createLateStore } from './metrics.late.store'
import { HOT_BIT, HOT_ROWS, RAW_MAIN } from './metrics.hot.rows'
import type { SampleRow } from './metrics.rows'
import { LIVE_MS, createGroupCommit, createSeenSweep, createWrittenNotes, type Pending } from './metrics.group-commit'

/** The devices domain's last_seen_at, written in the group's transaction (same connection). */
export interface DeviceSeen {
  markSeen(seq: number, at: number): void
}

/**
 * Group commit. Requests waiting together share one IMMEDIATE transaction, each inside its own
 * SAVEPOINT (a failing request rolls back only itself), and every promise settles only after
 * the group's records are written to their segment file (one write, metrics.hot.log.ts) and its
 * COMMIT went through: a 201 is never sent for a sample that is not durable against a process
 * crash (see db/connection.ts). One commit per group instead of one per request is where the
 * ingest throughput comes from.
 *
 * When a group goes (the queue and its gathering are metrics.group-commit.ts's, shared with the
 * PostgreSQL writer): on the next turn of the event loop when a pending request's device had a
 * sample committed within RETURN_MS (a client posting again as soon as it is answered: a replay,
 * a script, a full load of clients; waiting would only hold them back), or when GATHER_REQUESTS
 * requests or GATHER_BYTES are pending; else GATHER_MS after the first pending request, so
 * requests arriving close together (collectors posting within the same few tens of ms) share a
 * commit.
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
  const late = createLateStore(sqlite)
  const hw = FIELDS.hardware.map((f) => f.name)
  const net = FIELDS.network.map((f) => f.name)
  // what the hot tables' missing foreign key would check (see metrics.table.ts): a device deleted
  // between its lookup and this write is a 404, not a sample stored for nobody
  const deviceExists = sqlite.prepare<{ one: number }, [number]>('SELECT 1 AS one FROM devices WHERE seq = ?')
  // through the raw table's view: a sample already stored, sealed or hot
  const existing = sqlite.prepare<{ id: number; kinds: number }, [number, number]>(`SELECT id, kinds FROM ${RAW_TABLE} WHERE device_seq = ? AND ts = ?`)
  // each from its table's (device, time) index alone: a view over both would read every row of the device
  const newestSealed = sqlite.prepare<{ t: number | null }, [number]>(`SELECT max(ts) AS t FROM ${RAW_MAIN} WHERE device_seq = ?`)
  const newestHot = sqlite.prepare<{ t: number | null }, [number]>(`SELECT max(ts) AS t FROM ${HOT_ROWS} WHERE device_seq = ?`)
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

  /**
   * Per device, the last time the hub stamped on a sample of its own (no recorded_at). A sample
   * stamped in a millisecond already used takes the next one straight away, so a burst costs one
   * INSERT per request instead of a walk over every millisecond the burst has taken; the times run
   * ahead of the clock only by the burst's excess and fall back to the clock once it passes them.
   */
  const lastStamp = new Map<number, number>()
  /**
   * Per device, a time no stored sample of it is newer than: read from the tables at the device's
   * first sample since the start, then raised by every sample written. Samples enter the raw table
   * and its hot rows only through this writer (sealing moves them, keeping their times; pruning
   * and a rolled-back group only leave the bound higher than it need be), so a sample after it is
   * new without a lookup: what a collector sends, each sample newer than the last. Any other time
   * (a replay, late data, a millisecond the hub's clock gave twice) is looked up as before.
   */
  const newestOf = new Map<number, number>()
  function newest(seq: number): number {
    let n = newestOf.get(seq)
    if (n === undefined) {
      n = Math.max(newestSealed.get(seq)?.t ?? Number.NEGATIVE_INFINITY, newestHot.get(seq)?.t ?? Number.NEGATIVE_INFINITY)
      newestOf.set(seq, n)
    }
    return n
  }
  /** the sample of this device and time, sealed or hot, if any */
  const stored = (seq: number, ts: number) => (ts > newest(seq) ? null : existing.get(seq, ts))
  const seen = createSeenSweep()
  const notes = createWrittenNotes(elapsed)
  const group = createGroupCommit(commitGroup, timers, elapsed)

  /**
   * One sample per distinct time: a batch's two parts (same recorded_at) share it and its id.
   * `guard` (a request sharing its group) is called before the request's first write unless that
   * write is its only one: one statement is all-or-nothing by itself.
   */
  function writeOne(p: Pending, now: number, guard: (() => void) | null) {
    const samples = p.job.samples
    const seq = p.job.deviceSeq
    if (!deviceExists.get(seq)) throw new AppError('not_found', 'Device not found')
    const ids: number[] = new Array(samples.length)
    let duplicate: boolean[] | null = null
    const single = oneSample(samples)
    const beforeWrite = (more: boolean) => {
      if (guard && (more || !single)) {
        guard()
        guard = null
      }
    }
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
      let e = stored(seq, ts)
      // the hub's own clock gave two samples one millisecond (a sent time holds it, or the hub restarted): both are kept
      if (!s.stamped) while (e && e.kinds & kinds) e = stored(seq, ++ts)
      let id: number
      if (!e) {
        id = hot.takeId(seq)
        const parts: HotPart[] = []
        for (const x of [h, n]) if (x) parts.push({ kind: x.kind, values: x.values, rest: x.rest })
        beforeWrite(false) // the row with every part in one statement
        hot.append(seq, id, ts, parts, now, true)
      } else {
        // the sample exists: add the parts it lacks, recognise the ones it has
        id = e.id
        const lacking = kinds & ~e.kinds
        if (lacking) beforeWrite(lacking === (KIND_BIT.hardware | KIND_BIT.network)) // a statement per part it lacks
        for (const k of j === -1 ? [i] : [i, j]) {
          const x = samples[k]!
          if (e.kinds & KIND_BIT[x.kind]) (duplicate ??= new Array<boolean>(samples.length).fill(false))[k] = true
          else if (e.kinds & HOT_BIT) hot.append(seq, id, ts, [{ kind: x.kind, values: x.values, rest: x.rest }], now, false)
          else addPart[x.kind].run(...x.values, x.rest, id)
        }
      }
      ids[i] = id
      if (j !== -1) ids[j] = id
      if (ts > newest(seq)) newestOf.set(seq, ts)
      if (!s.stamped && ts > (lastStamp.get(seq) ?? Number.NEGATIVE_INFINITY)) lastStamp.set(seq, ts)
      for (const x of [h, n]) {
        if (!x || duplicate?.[x === s ? i : j]) continue
        if (ts < now - LIVE_MS) notes.late(x.kind, ts)
        notes.written(seq, ts)
      }
      if (ts !== s.ts) {
        s.ts = ts
        if (j !== -1) samples[j]!.ts = ts
      }
    }
    p.result = { ids, duplicate }
  }

  /** one group, synchronously: nothing else runs until its requests are settled */
  function commitGroup(batch: Pending[]) {
    const touched = new Set<number>()
    const now = clock.now()
    notes.takeSpans() // a span left by a group that failed was never stored
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
            writeOne(p, now, null)
          } catch (err) {
            if (sqlite.inTransaction) rollback.run() // a full disk makes SQLite roll back by itself
            hot.end(false)
            p.reject(mapError(err))
            return
          }
        } else {
          // a failing request undoes only itself: what it did in memory by the hot store's journal, in
          // SQLite by a savepoint, unless it writes one statement (one sample: its row in the mirror,
          // or a part added to it), which SQLite undoes by itself when it fails
          const mark = hot.mark()
          let guarded = false
          try {
            writeOne(p, now, () => {
              savepoint.run()
              guarded = true
            })
            if (guarded) release.run()
          } catch (err) {
            if (!sqlite.inTransaction) throw err
            if (guarded) {
              rollbackTo.run()
              release.run()
            }
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
      for (const seq of seen.due(touched, t)) devices.markSeen(seq, t)
      // the late samples' span with them: a restart before the rollup job's next run still re-rolls them
      late.note(notes.takeSpans())
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

  return {
    submit: group.submit,
    hold: group.hold,
    queued: group.queued,
    takeWrittenSince: notes.takeWrittenSince,
    newestWrittenWithin: notes.newestWrittenWithin,
    /** the late samples of a kind stored and not rolled up yet, claimed by a rollup run and finished once rolled */
    claimLateSpan: late.claim,
    finishLateSpan: late.finish,
  }
}

/** Whether a job's samples are one sample (a part, or both parts of one time): its write is one statement. */
function oneSample(samples: SampleRow[]): boolean {
  if (samples.length === 1) return true
  return samples.length === 2 && samples[0]!.ts === samples[1]!.ts && samples[0]!.kind !== samples[1]!.kind
}

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
