import type { SQL } from 'bun'
import { AppError } from '../../http/errors'
import type { Clock } from '../../lib/clock'
import { systemTimers, type Timers } from '../../lib/timers'
import { KIND_BIT, type MetricKind } from './metrics.fields'
import { LIVE_MS, createGroupCommit, createSeenSweep, createWrittenNotes, type Pending } from './metrics.group-commit'
import type { LateSpan } from './metrics.late.store'
import { createRecordCodec, type RecordCodec } from './metrics.records.pg'
import { RECORDS, dayOf, ensureMetricDay, metricTables } from '../../db/pg/metrics.partitions'
import { COLS, addParts, existing, partsOf, rowParams, type Refs, type Slot } from './metrics.writer.pg.sql'

/** rows per INSERT: PostgreSQL takes at most 65,535 parameters per statement */
const ROWS_PER_INSERT = 1_000

/**
 * The group commit on PostgreSQL, with the SQLite writer's interface (metrics.writer.ts): the
 * requests of one gathering go in one transaction, their new samples in one multi-row INSERT
 * (per 1,000 rows) with the devices' last_seen_at, and every request is answered after COMMIT.
 *
 * Two hubs may write the same device and time at once: the INSERT skips a (device, ts) that
 * exists (`ON CONFLICT DO NOTHING`), and the samples it skipped are read again under
 * `FOR UPDATE` and answered as a repeat (or their missing part added), exactly as one hub
 * answers a repeat. A day's partition is made before its first write (db/pg/metrics.partitions.ts);
 * a sample older than raw retention is refused, since its day would be dropped at once.
 */
export function createMetricWriterPg(
  sql: SQL,
  clock: Clock,
  opts: { rawRetentionMs: number; codec?: RecordCodec },
  timers: Timers = systemTimers,
  elapsed: () => number = () => performance.now(),
) {
  const codec = opts.codec ?? createRecordCodec()
  const knownDays = new Set<number>()
  const lastStamp = new Map<number, number>()
  const seen = createSeenSweep()
  /** the late samples' span per kind is the group's, kept in the database for whichever hub rolls up (metric_late) */
  const notes = createWrittenNotes(elapsed)
  const group = createGroupCommit(flushGroup, timers, elapsed)

  /** inserts the slots not yet stored; returns those another writer stored first */
  async function insert(tx: SQL, all: Slot[], refs: Refs): Promise<Slot[]> {
    const lost: Slot[] = []
    // a second slot of one time in the group (an item repeated in a replay) waits for the next round, where it is a repeat:
    // inserted beside the first, it would take an id from the sequence for nothing
    const seen = new Set<string>()
    const slots = all.filter((s) => {
      const key = `${s.seq}:${s.ts}`
      if (!seen.has(key)) return seen.add(key)
      lost.push(s)
      return false
    })
    for (let at = 0; at < slots.length; at += ROWS_PER_INSERT) {
      const chunk = slots.slice(at, at + ROWS_PER_INSERT)
      const params: unknown[] = []
      const rows = chunk.map((s) => {
        const parts = partsOf(s)
        const kinds = parts.reduce((k, x) => k | KIND_BIT[x.kind], 0)
        const first = params.length
        rowParams(s, kinds, parts, params, refs)
        return `(${COLS.map((_, c) => `$${first + c + 1}`).join(', ')})`
      })
      const got: [string, string, string][] = await tx
        .unsafe(`INSERT INTO ${RECORDS} (${COLS.join(', ')}) VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING RETURNING device_seq, ts, id`, params)
        .values()
      const ids = new Map(got.map((r) => [`${r[0]}:${r[1]}`, Number(r[2])]))
      for (const s of chunk) {
        const id = ids.get(`${s.seq}:${s.ts}`)
        if (id === undefined) lost.push(s)
        else setIds(s, id, null)
      }
    }
    return lost
  }

  function setIds(s: Slot, id: number, dup: boolean[] | null) {
    const r = (s.p.result ??= { ids: new Array(s.p.job.samples.length), duplicate: null })
    for (let k = 0; k < s.idx.length; k++) {
      const i = s.idx[k]!
      r.ids[i] = id
      if (dup?.[k]) (r.duplicate ??= new Array<boolean>(s.p.job.samples.length).fill(false))[i] = true
      else noteWritten(s.seq, s.ts, s.p.job.samples[i]!.kind)
    }
  }

  function noteWritten(seq: number, ts: number, kind: MetricKind) {
    if (ts < clock.now() - LIVE_MS) notes.late(kind, ts)
    notes.written(seq, ts)
  }

  async function writeGroup(tx: SQL, slots: Slot[], refs: Refs) {
    let todo = slots
    for (let round = 0; todo.length; round++) {
      if (round > 8) throw new Error('metric writer: a sample time kept moving')
      const found = await existing(tx, todo)
      const fresh: Slot[] = []
      const moved: Slot[] = []
      for (const s of todo) {
        const e = found.get(`${s.seq}:${s.ts}`)
        if (!e) {
          fresh.push(s)
          continue
        }
        const parts = partsOf(s)
        const bits = parts.reduce((k, x) => k | KIND_BIT[x.kind], 0)
        // the hub's own clock gave two samples one millisecond: the later moves on (metrics.writer.ts)
        if (!s.stamped && e.kinds & bits) {
          s.ts++
          for (const i of s.idx) s.p.job.samples[i]!.ts = s.ts
          if (s.ts > (lastStamp.get(s.seq) ?? Number.NEGATIVE_INFINITY)) lastStamp.set(s.seq, s.ts)
          moved.push(s)
          continue
        }
        const dup = parts.map((x) => (e.kinds & KIND_BIT[x.kind]) !== 0)
        const added = parts.filter((_, k) => !dup[k])
        if (added.length) await addParts(tx, s, e, added, refs)
        setIds(s, e.id, dup)
      }
      // in key order: two hubs inserting overlapping groups then wait on each other instead of deadlocking
      fresh.sort((a, b) => a.seq - b.seq || a.ts - b.ts)
      await refs.refsFor(
        tx,
        fresh.map((s) => ({ seq: s.seq, day: dayOf(s.ts), parts: partsOf(s) })),
      )
      todo = [...(await insert(tx, fresh, refs)), ...moved]
    }
  }

  /**
   * One slot per distinct time of a request, a part joining the slot of the other kind at its time
   * (a batch's two parts); the hub's own times, per slot, taken past the last it stamped.
   */
  function slotsOf(p: Pending): Slot[] {
    const samples = p.job.samples
    const seq = p.job.deviceSeq
    const out: Slot[] = []
    const byTs = new Map<number, Slot>()
    samples.forEach((x, i) => {
      const s = byTs.get(x.ts)
      if (s && s.stamped === x.stamped && s.idx.every((k) => samples[k]!.kind !== x.kind)) s.idx.push(i)
      else {
        const slot: Slot = { p, seq, ts: x.ts, stamped: x.stamped, idx: [i] }
        byTs.set(x.ts, slot)
        out.push(slot)
      }
    })
    for (const s of out) {
      if (s.stamped) continue
      const last = lastStamp.get(seq)
      if (last !== undefined && s.ts <= last) s.ts = last + 1
      lastStamp.set(seq, s.ts)
      for (const i of s.idx) samples[i]!.ts = s.ts
    }
    return out
  }

  /** makes the partitions of the group's days; a day past raw retention refuses its request */
  async function days(batch: Pending[], now: number) {
    await metricTables(sql, clock.now)
    const oldest = dayOf(now - opts.rawRetentionMs)
    for (const p of batch) {
      for (const x of p.job.samples) {
        const day = dayOf(x.ts)
        if (day < oldest) {
          p.error = new AppError('invalid_parameter', 'recorded_at is older than what the hub keeps', 'recorded_at')
          break
        }
        if (knownDays.has(day)) continue
        await ensureMetricDay(sql, day)
        knownDays.add(day)
        if (knownDays.size > 400) knownDays.clear()
      }
    }
  }

  /** one group in one transaction; the shared queue keeps one in flight at a time (metrics.group-commit.ts) */
  async function flushGroup(batch: Pending[]) {
    const now = clock.now()
    notes.takeSpans() // a span left by a group that failed was never stored
    try {
      await days(batch, now)
      const refs = codec.scope()
      await sql.begin(async (tx) => {
        const live = batch.filter((p) => !p.error)
        const seqs = [...new Set(live.map((p) => p.job.deviceSeq))]
        const have: [string][] = seqs.length ? await tx`SELECT seq FROM devices WHERE seq IN ${tx(seqs)}`.values() : []
        const exists = new Set(have.map((r) => Number(r[0])))
        const slots: Slot[] = []
        for (const p of live) {
          if (!exists.has(p.job.deviceSeq)) p.error = new AppError('not_found', 'Device not found')
          else slots.push(...slotsOf(p))
        }
        await writeGroup(tx, slots, refs)
        await touch(
          tx,
          live.filter((p) => !p.error).map((p) => p.job.deviceSeq),
        )
        const spans = notes.takeSpans()
        for (const kind of ['hardware', 'network'] as const) {
          const o = spans[kind]
          if (!o) continue
          // LEAST and GREATEST pass over a NULL: the span a run claimed is empty here
          await tx`INSERT INTO metric_late (kind, from_ts, to_ts) VALUES (${kind}, ${o.from}, ${o.to})
            ON CONFLICT (kind) DO UPDATE SET from_ts = LEAST(metric_late.from_ts, EXCLUDED.from_ts), to_ts = GREATEST(metric_late.to_ts, EXCLUDED.to_ts)`
        }
      })
      refs.commit()
    } catch (err) {
      for (const p of batch) if (!p.error) p.reject(err)
      for (const p of batch) if (p.error) p.reject(p.error)
      return
    }
    for (const p of batch) {
      if (p.error) p.reject(p.error)
      else p.resolve(p.result ?? { ids: [], duplicate: null })
    }
  }

  /**
   * last_seen_at in the group's transaction, as on SQLite: a device's first sample at once, then
   * all together every 30 s; never back (another hub's clock may be ahead of this one's)
   */
  async function touch(tx: SQL, seqs: number[]) {
    const t = clock.now()
    const now = seen.due(seqs, t)
    if (now.length) await tx`UPDATE devices SET last_seen_at = ${t} WHERE seq IN ${tx(now)} AND (last_seen_at IS NULL OR last_seen_at < ${t})`
  }

  return {
    submit: group.submit,
    hold: group.hold,
    queued: group.queued,
    takeWrittenSince: notes.takeWrittenSince,
    newestWrittenWithin: notes.newestWrittenWithin,
    /** the late samples of a kind any hub stored, joined to a span a run left unfinished (see metrics.late.store.ts) */
    async claimLateSpan(kind: MetricKind): Promise<LateSpan | null> {
      const [r] = await sql`UPDATE metric_late SET rolling_from = LEAST(rolling_from, from_ts), rolling_to = GREATEST(rolling_to, to_ts),
          from_ts = NULL, to_ts = NULL WHERE kind = ${kind} RETURNING rolling_from, rolling_to`.values()
      return r && r[0] !== null && r[1] !== null ? { from: Number(r[0]), to: Number(r[1]) } : null
    },
    async finishLateSpan(kind: MetricKind): Promise<void> {
      await sql.begin(async (tx) => {
        await tx`UPDATE metric_late SET rolling_from = NULL, rolling_to = NULL WHERE kind = ${kind}`
        await tx`DELETE FROM metric_late WHERE kind = ${kind} AND from_ts IS NULL AND rolling_from IS NULL`
      })
    },
  }
}

export type MetricWriterPg = ReturnType<typeof createMetricWriterPg>
