import type { Database } from 'bun:sqlite'
import { Buffer } from 'node:buffer'
import { HOT_TABLES, hotTable } from './metrics.fields'
import { HEADER, createHotLog, sealFrame, type HotLog } from './metrics.hot.log'
import { fileSegments, memorySegments, type SegmentFiles } from './metrics.segment-files'

/**
 * What a hot segment's file holds (metrics.hot.log.ts), and the tables `metric_hot_0..n` that
 * carry the same records where a file cannot: a database from the release that kept them in
 * those tables, and a backup (one SQLite file). At start the store moves whatever those tables
 * hold into the files (`importTables`); a backup copies the files' records into them
 * (`copyRecordsInto`).
 *
 * A payload is a record (type 1: device, sample id, time, the parts it carries, its coded bytes)
 * or a mark (type 2: the record starting at that place of the segment was pruned while hot).
 */
export interface StoredRecord {
  deviceSeq: number
  sampleId: number
  ts: number
  /** the parts it carries (1 hardware, 2 network); 0 once its sample was pruned while hot */
  kinds: number
  segment: number
  data: Uint8Array
}

const RECORD = 1
const MARK = 2
/** type, device, sample id, time (f64 each: ids and times stay exact up to 2^53), kinds */
const RECORD_HEAD = 1 + 8 + 8 + 8 + 1

/** A record straight into its frame, as a segment holds it: its payload made in place, after the frame's header. */
export function recordFrame(r: Omit<StoredRecord, 'segment'>): Uint8Array {
  const buffer = new ArrayBuffer(HEADER + RECORD_HEAD + r.data.length)
  const frame = new Uint8Array(buffer)
  const v = new DataView(buffer)
  v.setUint8(HEADER, RECORD)
  v.setFloat64(HEADER + 1, r.deviceSeq, true)
  v.setFloat64(HEADER + 9, r.sampleId, true)
  v.setFloat64(HEADER + 17, r.ts, true)
  v.setUint8(HEADER + 25, r.kinds)
  frame.set(r.data, HEADER + RECORD_HEAD)
  return sealFrame(frame, v)
}

export function encodeMark(at: number): Uint8Array {
  const out = new Uint8Array(9)
  const v = new DataView(out.buffer)
  v.setUint8(0, MARK)
  v.setFloat64(1, at, true)
  return out
}

export type LogPayload = { type: 'record'; record: Omit<StoredRecord, 'segment'> } | { type: 'mark'; at: number }

export function decodePayload(p: Uint8Array): LogPayload {
  const v = new DataView(p.buffer, p.byteOffset, p.byteLength)
  if (v.getUint8(0) === MARK) return { type: 'mark', at: v.getFloat64(1, true) }
  return {
    type: 'record',
    record: {
      deviceSeq: v.getFloat64(1, true),
      sampleId: v.getFloat64(9, true),
      ts: v.getFloat64(17, true),
      kinds: v.getUint8(25),
      data: p.subarray(RECORD_HEAD),
    },
  }
}

/** The coded bytes of a record, out of its payload. */
export const recordData = (payload: Uint8Array) => payload.subarray(RECORD_HEAD)

/** Where a database file's hot segments live. */
export const hotLogDir = (dbPath: string) => `${dbPath}-hot`

/** The log of this connection's database: files beside it, or memory for a database in memory. */
export function openHotLog(sqlite: Database, files?: SegmentFiles): HotLog {
  const path = sqlite.filename
  const inMemory = path === '' || path === ':memory:'
  // synchronous=FULL promises that a commit survives a power cut: each group's records are synced too
  const full = (sqlite.query<{ synchronous: number }, []>('PRAGMA synchronous').get()?.synchronous ?? 1) >= 2
  return createHotLog(files ?? (inMemory ? memorySegments() : fileSegments(hotLogDir(path))), { sync: full })
}

/**
 * Every record in the log, oldest first, with the pruned ones' kinds set to 0: what a backup
 * carries. Reads the files only (nothing is cut off: the service may be appending).
 */
export function readRecords(dbPath: string): StoredRecord[] {
  const out: StoredRecord[] = []
  const byPlace = new Map<string, StoredRecord>()
  const log = createHotLog(fileSegments(hotLogDir(dbPath), true), { sync: false, readOnly: true })
  try {
    for (const e of log.scan()) {
      const p = decodePayload(e.payload)
      if (p.type === 'mark') {
        const r = byPlace.get(`${e.segment}:${p.at}`)
        if (r) r.kinds = 0
        continue
      }
      const r = { ...p.record, data: p.record.data.slice(), segment: e.segment }
      byPlace.set(`${e.segment}:${e.at}`, r)
      out.push(r)
    }
  } finally {
    log.close()
  }
  return out
}

/** Writes records into a database's metric_hot tables (a backup's copy), a segment's into its table. */
export function copyRecordsInto(db: Database, records: StoredRecord[]): void {
  const tables = Array.from({ length: HOT_TABLES }, (_, i) =>
    db.prepare(`INSERT INTO ${hotTable(i)} (device_seq, sample_id, ts, kinds, segment, data) VALUES (?, ?, ?, ?, ?, ?)`),
  )
  db.transaction(() => {
    for (const r of records) tables[tableOf(r.segment)]!.run(r.deviceSeq, r.sampleId, r.ts, r.kinds, r.segment, r.data)
  })()
  for (const t of tables) t.finalize()
}

const tableOf = (segment: number) => ((segment % HOT_TABLES) + HOT_TABLES) % HOT_TABLES

/**
 * Moves the records of the metric_hot tables into the log, before the log is read: each
 * segment's file is put in place whole, then the tables are emptied. A segment whose file is
 * already there was moved by a start that stopped before emptying the tables: its rows are
 * dropped, not added twice.
 */
export function importTables(sqlite: Database, log: HotLog): number {
  const parts = Array.from({ length: HOT_TABLES }, (_, i) => `SELECT device_seq, sample_id, ts, kinds, segment, data, id FROM main.${hotTable(i)}`)
  const any = sqlite.query<{ one: number }, []>(`SELECT 1 AS one FROM (${parts.join(' UNION ALL ')}) LIMIT 1`)
  if (!any.get()) return 0
  const present = new Set(log.segments())
  const frames = new Map<number, Uint8Array[]>()
  const all = sqlite.query<{ device_seq: number; sample_id: number; ts: number; kinds: number; segment: number; data: Uint8Array }, []>(
    `SELECT * FROM (${parts.join(' UNION ALL ')}) ORDER BY segment, id`,
  )
  let n = 0
  for (const r of all.iterate()) {
    if (present.has(r.segment)) continue
    let list = frames.get(r.segment)
    if (!list) frames.set(r.segment, (list = []))
    list.push(recordFrame({ deviceSeq: r.device_seq, sampleId: r.sample_id, ts: r.ts, kinds: r.kinds, data: r.data }))
    n++
  }
  for (const [segment, list] of frames) log.install(segment, Buffer.concat(list))
  sqlite.transaction(() => {
    for (let i = 0; i < HOT_TABLES; i++) sqlite.run(`DELETE FROM main.${hotTable(i)}`)
  })()
  return n
}
