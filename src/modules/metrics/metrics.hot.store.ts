import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { MINUTE_MS, type MetricKind } from './metrics.fields'
import { decodeHot, decodeHotText, encodeHot, hotRest, type HotPart, type HotRef } from './metrics.hot'
import { HEADER } from './metrics.hot.log'
import type { SegmentFiles } from './metrics.segment-files'
import { decodePayload, encodeMark, importTables, openHotLog, recordData, recordFrame } from './metrics.hot.records'
import { openHotRows, syncWal } from './metrics.hot.rows'

const fromUtf8 = new TextDecoder()

/**
 * The newest samples, from ingest until the sealing job moves them into their long-lived form
 * (rows of hot values plus a compressed block, see metrics.block.store.ts).
 *
 * On disk: one append-only file per segment of writing (about SEGMENT_MS each) beside the
 * database (metrics.hot.log.ts: why not a table). Each record is one request's part(s) of one
 * sample, coded against the device's previous record of the same segment (metrics.hot.ts);
 * every RESTART_EVERY-th record of a device's chain stands alone, so reading any record decodes
 * at most that many. The writer's group puts its records in the file before its COMMIT
 * (`persist`). Once every sample of a segment is sealed, its file is removed (a deleted device's
 * records go with their segment). Records still in the metric_hot tables (a database from the
 * release that kept them there, a restored backup) move into the files at start.
 *
 * In memory, per connection: `temp.metric_hot_rows`, the same columns as the raw table with the
 * hot values (their rest texts stay in the records), indexed on (device_seq, ts), rebuilt from
 * the tables when the store is made; and the temp view named as the raw table, the union of
 * both, which every read of the raw table on this connection goes through (a temp object takes
 * precedence over main's of the same name). Writes name `main.` explicitly.
 */

/** Ids handed to a device at a time (see takeId): about a block's samples at the default 10 s. */
const ID_RUN = 64
/**
 * How long a segment collects records before the next one takes over. Its samples are sealed
 * within about 70 minutes of being written, so two or three segments exist at a time.
 */
export const SEGMENT_MS = 30 * MINUTE_MS
/**
 * A device's chain starts again with a record standing alone this often (10 minutes at 10 s):
 * about 16 B more per record on average for the real sample (1.2 KB alone against ~290 B
 * chained, once in 60), and a read of one record never decodes more than 60.
 */
export const RESTART_EVERY = 60
/** Decoded runs (a restart and the records after it) kept at hand for reads and sealing. */
const DECODED_RUNS = 4

const KIND_BIT: Record<MetricKind, number> = { hardware: 1, network: 2 }

interface Chain {
  /** the record keys of this device's records in the segment, in order */
  records: number[]
  ref: HotRef | null
}

/** A record on disk, by a key of its own (handed out in order). */
interface Record_ {
  key: number
  deviceSeq: number
  segment: number
  /** its place in its device's chain */
  at: number
  /** where its frame starts in the segment, and its payload's length */
  pos: number
  length: number
}

type Undo = () => void

export interface HotStoreOptions {
  /** where the segments' bytes go (tests: a disk that fills up); default files beside the database */
  files?: SegmentFiles
}

function build(sqlite: Database, opts: HotStoreOptions | undefined) {
  const rows = openHotRows(sqlite)
  const log = openHotLog(sqlite, opts?.files)

  /** per segment, per device its chain (a segment's go with it) */
  const chains = new Map<number, Map<number, Chain>>()
  const chainsOf = (seg: number) => {
    let m = chains.get(seg)
    if (!m) chains.set(seg, (m = new Map()))
    return m
  }
  /** every record on disk by key, and per sample id its records (one per request that sent a part) */
  const records = new Map<number, Record_>()
  const bySample = new Map<number, number[]>()
  /** the segments whose tables hold records, oldest first; the last takes new records */
  const segments: number[] = []
  /** the newest segment there was, and when it began taking records */
  let segment = -1
  let segmentSince = Number.NEGATIVE_INFINITY
  /** while a group is being written: how to take back what it did to the maps above */
  let journal: Undo[] | null = null
  /**
   * Decoded runs at hand, by the key of the run's first record: the texts of its records up to
   * where it was read (a record decodes from the one before it; a page of history or a block
   * being sealed reads a run's records one after another).
   */
  const decoded = new Map<number, HotRef[]>()

  function remember(rec: Record_, sampleId: number) {
    records.set(rec.key, rec)
    let list = bySample.get(sampleId)
    if (!list) bySample.set(sampleId, (list = []))
    list.push(rec.key)
  }

  /**
   * the text of a record, decoding its run from the last record standing alone as far as needed
   * (a record of the run decoded before is not decoded again)
   */
  function textOf(key: number): HotRef | null {
    const rec = records.get(key)
    if (!rec) return null
    const keys = chains.get(rec.segment)!.get(rec.deviceSeq)!.records
    const start = rec.at - (rec.at % RESTART_EVERY)
    let texts = decoded.get(keys[start]!)
    if (texts)
      decoded.delete(keys[start]!) // moved to the newest end
    else if (decoded.size >= DECODED_RUNS) decoded.delete(decoded.keys().next().value!)
    decoded.set(keys[start]!, (texts ??= []))
    const read = (i: number) => {
      const r = records.get(keys[i]!)!
      return decodeHotText(recordData(log.read(r.segment, r.pos, r.length)), i === start ? null : texts[i - start - 1]!)
    }
    for (let i = start + texts.length; i <= rec.at; i++) texts.push(read(i))
    return texts[rec.at - start]!
  }

  /**
   * The rest text of a hot sample's part as its UTF-8 bytes, a view of the record's decoded text
   * (no string made, for an answer written at once: a history page): undefined when the sample is
   * not hot, null when the part has none. A later record of the sample's (a part sent again) wins.
   */
  function restBytes(sampleId: number, kind: MetricKind): Uint8Array | null | undefined {
    const list = bySample.get(sampleId)
    if (!list) return undefined
    let found: Uint8Array | null | undefined
    for (const id of list) {
      const text = textOf(id)
      const rest = text ? hotRest(text, kind) : undefined
      if (rest !== undefined) found = rest
    }
    return found
  }

  function rebuild() {
    importTables(sqlite, log)
    let maxSample = rows.maxId()
    /** the records by their place, for the marks that follow them */
    const byPlace = new Map<string, { key: number; sampleId: number }>()
    for (const e of log.scan()) {
      const p = decodePayload(e.payload)
      if (p.type === 'mark') {
        // its sample was pruned while hot: it stays pruned (the record stays in its chain)
        const r = byPlace.get(`${e.segment}:${p.at}`)
        if (r) rows.drop(r.sampleId)
        continue
      }
      const r = p.record
      maxSample = Math.max(maxSample, r.sampleId)
      const bySeq = chainsOf(e.segment)
      let c = bySeq.get(r.deviceSeq)
      if (!c) bySeq.set(r.deviceSeq, (c = { records: [], ref: null }))
      const { parts, ref } = decodeHot(r.data, c.records.length % RESTART_EVERY === 0 ? null : c.ref)
      c.ref = ref
      const key = nextKey++
      remember({ key, deviceSeq: r.deviceSeq, segment: e.segment, at: c.records.length, pos: e.at, length: e.payload.length }, r.sampleId)
      byPlace.set(`${e.segment}:${e.at}`, { key, sampleId: r.sampleId })
      c.records.push(key)
      // a sample pruned while hot stays pruned; one already sealed (its record waits for its
      // segment to go) is read from the raw table
      if (r.kinds === 0 || rows.inMain(r.sampleId)) continue
      rows.reload(r.sampleId, r.deviceSeq, r.ts, e.segment, parts)
    }
    segments.push(...log.segments())
    segment = segments.at(-1) ?? -1
    nextId = maxSample + 1
  }

  let nextId = 1
  let nextKey = 1
  /** per device the run of ids it takes its next ones from */
  const runs = new Map<number, { next: number; end: number }>()
  rebuild()

  return {
    /**
     * The id a new sample of this device takes (a sample keeps it once sealed). Ids are handed to
     * each device ID_RUN at a time, so the rows the sealing job writes for one device's block have
     * neighbouring ids: they land on a page or two of the raw table, not one row on each of many.
     */
    takeId(seq: number): number {
      const before = runs.get(seq)
      const run = before && before.next < before.end ? before : { next: nextId, end: nextId + ID_RUN }
      const taken = run === before ? null : nextId
      if (taken !== null) nextId += ID_RUN
      const id = run.next
      runs.set(seq, { next: id + 1, end: run.end })
      journal?.push(() => {
        if (taken !== null) nextId = taken
        if (before) runs.set(seq, before)
        else runs.delete(seq)
      })
      return id
    },
    /** Stores parts of a sample (a new one, or parts added to a hot one); inside the writer's transaction. */
    append(seq: number, sampleId: number, ts: number, parts: HotPart[], now: number, isNew: boolean) {
      const prevSegment = segment
      const prevSince = segmentSince
      // the next segment takes over once this one is old enough
      const turn = !segments.length || now - segmentSince >= SEGMENT_MS
      if (turn) {
        segment += 1
        segmentSince = now
        segments.push(segment)
      }
      const bySeq = chainsOf(segment)
      const before = bySeq.get(seq)
      const c = before ?? { records: [], ref: null }
      const { data, ref } = encodeHot(parts, c.records.length % RESTART_EVERY === 0 ? null : c.ref)
      let kinds = 0
      for (const p of parts) kinds |= KIND_BIT[p.kind]
      const frame = recordFrame({ deviceSeq: seq, sampleId, ts, kinds, data })
      // the row first: should its statement fail, nothing of the record is left to undo
      try {
        if (isNew) rows.insert(sampleId, seq, ts, kinds, segment, parts)
        else rows.setParts(sampleId, parts)
      } catch (err) {
        if (turn) {
          segments.pop()
          segment = prevSegment
          segmentSince = prevSince
        }
        throw err
      }
      const pos = log.appendFrame(segment, frame)
      const key = nextKey++
      const seg = segment
      const prevRef = c.ref
      remember({ key, deviceSeq: seq, segment, at: c.records.length, pos, length: frame.length - HEADER }, sampleId)
      c.records.push(key)
      c.ref = ref
      bySeq.set(seq, c)
      journal?.push(() => {
        log.unappend(seg)
        nextKey = key
        records.delete(key)
        const list = bySample.get(sampleId)!
        list.pop()
        if (!list.length) bySample.delete(sampleId)
        const at = c.records.length - 1
        // a run read past this record would hand its text to the record taking its place
        decoded.get(c.records[at - (at % RESTART_EVERY)]!)?.splice(at % RESTART_EVERY)
        c.records.pop()
        c.ref = prevRef
        if (!before) bySeq.delete(seq)
        decoded.delete(key)
        if (turn) {
          segments.pop()
          segment = prevSegment
          segmentSince = prevSince
        }
      })
    },
    /** The writer's group: what `append` changes in memory is taken back if the transaction is. */
    begin() {
      journal = []
    },
    mark: () => journal?.length ?? 0,
    undoTo(mark: number) {
      if (!journal) return
      while (journal.length > mark) journal.pop()!()
    },
    /** Writes the group's records into their segments; before the group's COMMIT (throws when the disk refuses them). */
    persist() {
      log.persist()
    },
    /** After the COMMIT (or its failure): a failed group's records are taken back, in memory and in the files. */
    end(committed: boolean) {
      if (committed) log.done()
      else {
        this.undoTo(0)
        log.undo()
      }
      journal = null
    },
    /** how many records a hot sample has (one per request that sent a part of it) */
    records: (sampleId: number) => bySample.get(sampleId)?.length ?? 0,
    /** the rest text of a hot sample's part: undefined when the sample is not hot, null when the part has none */
    text(sampleId: number, kind: MetricKind): string | null | undefined {
      const bytes = restBytes(sampleId, kind)
      return bytes ? fromUtf8.decode(bytes) : bytes
    },
    restBytes,
    /** Moves hot samples into the raw table (their values; the caller puts their texts in a block), in the caller's transaction. */
    seal(ids: number[], sealedBit: number) {
      rows.seal(ids, sealedBit)
    },
    /**
     * Marks the records of samples pruned while hot (their rows already gone from the mirror), so
     * the rebuild at start leaves them out; their space goes with their segment.
     */
    forget(sampleIds: number[]) {
      for (const id of sampleIds)
        for (const key of bySample.get(id) ?? []) {
          const r = records.get(key)!
          log.write(r.segment, encodeMark(r.pos))
        }
    },
    /** Removes the files of the segments whose samples are all sealed, oldest first; returns how many segments went. */
    dropSealed(): number {
      rows.dropOrphans()
      let dropped = 0
      // a segment goes once nothing in it or before it is unsealed (the newest too: the next record starts a new one)
      while (segments.length && !rows.unsealedIn(segments[0]!)) {
        if (!dropped) syncWal(sqlite)
        const gone = segments.shift()!
        log.drop(gone)
        dropped++
        for (const [key, rec] of records) if (rec.segment === gone) records.delete(key)
        for (const [sampleId, list] of bySample) {
          const kept = list.filter((key) => records.has(key))
          if (kept.length) bySample.set(sampleId, kept)
          else bySample.delete(sampleId)
        }
        chains.delete(gone)
        for (const k of decoded.keys()) if (!records.has(k)) decoded.delete(k)
      }
      return dropped
    },
    /** records on disk, segments in use and the bytes of their files */
    stats: () => ({ records: records.size, segments: segments.length, bytes: log.bytes() }),
  }
}

export type HotStore = ReturnType<typeof build>
/** One store per database connection: the in-memory mirror lives on that connection. */
export const createHotStore: (sqlite: Database, opts?: HotStoreOptions) => HotStore = perConnection(build)
