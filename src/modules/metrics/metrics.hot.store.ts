import type { Database } from 'bun:sqlite'
import { closeSync, fdatasyncSync, openSync } from 'node:fs'
import { perConnection } from '../../db/per-connection'
import { FIELDS, MINUTE_MS, RAW_TABLE, type MetricKind } from './metrics.fields'
import { decodeHot, encodeHot, type HotPart, type HotRef } from './metrics.hot'
import type { SegmentFiles } from './metrics.hot.log'
import { decodePayload, encodeMark, encodeRecord, importTables, openHotLog, recordData } from './metrics.hot.records'

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

/** `kinds` bit of a row whose parts live in the hot records (the in-memory mirror only) */
export const HOT_BIT = 8
/** the raw table on disk, for writes (the unqualified name is the view on the writer's connection) */
export const RAW_MAIN = `main.${RAW_TABLE}`
/** the in-memory mirror of the hot samples' rows */
export const HOT_ROWS = 'temp.metric_hot_rows'

const HOT_COLS = [...FIELDS.hardware, ...FIELDS.network].map((f) => f.name)
const ROW_COLS = ['id', 'device_seq', 'ts', 'kinds', ...HOT_COLS, 'hw_rest', 'net_rest']
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
  const types = [...FIELDS.hardware, ...FIELDS.network].map((f) => `${f.name} ${f.integer ? 'INTEGER' : 'REAL'}`)
  sqlite.run(
    `CREATE TEMP TABLE IF NOT EXISTS metric_hot_rows (id INTEGER PRIMARY KEY, device_seq INTEGER NOT NULL, ts INTEGER NOT NULL, kinds INTEGER NOT NULL, ${types.join(', ')}, hw_rest TEXT, net_rest TEXT, segment INTEGER NOT NULL)`,
  )
  sqlite.run('CREATE UNIQUE INDEX IF NOT EXISTS temp.metric_hot_rows_device_ts ON metric_hot_rows (device_seq, ts)')
  sqlite.run(
    `CREATE TEMP VIEW IF NOT EXISTS ${RAW_TABLE} AS SELECT ${ROW_COLS.join(', ')} FROM ${RAW_MAIN} UNION ALL SELECT ${ROW_COLS.join(', ')} FROM temp.metric_hot_rows`,
  )
  // a deleted device's samples leave the reads with it (its records go with their segment)
  sqlite.run(
    'CREATE TEMP TRIGGER IF NOT EXISTS metric_hot_rows_device_gone AFTER DELETE ON main.devices BEGIN DELETE FROM temp.metric_hot_rows WHERE device_seq = OLD.seq; END',
  )
  const log = openHotLog(sqlite, opts?.files)
  // a new sample's row with all its hot values in one statement (the parts it lacks are null)
  const insertRow = sqlite.prepare(
    `INSERT INTO temp.metric_hot_rows (id, device_seq, ts, kinds, segment, ${HOT_COLS.join(', ')}) VALUES (${['?', '?', '?', '?', '?', ...HOT_COLS.map(() => '?')].join(', ')})`,
  )
  const noValues: Record<MetricKind, null[]> = { hardware: FIELDS.hardware.map(() => null), network: FIELDS.network.map(() => null) }
  const reloadRow = sqlite.prepare(`INSERT OR IGNORE INTO temp.metric_hot_rows (id, device_seq, ts, kinds, segment) VALUES (?, ?, ?, ${HOT_BIT}, ?)`)
  const setValues: Record<MetricKind, ReturnType<typeof sqlite.prepare>> = {
    hardware: sqlite.prepare(`UPDATE temp.metric_hot_rows SET kinds = kinds | 1, ${FIELDS.hardware.map((f) => `${f.name} = ?`).join(', ')} WHERE id = ?`),
    network: sqlite.prepare(`UPDATE temp.metric_hot_rows SET kinds = kinds | 2, ${FIELDS.network.map((f) => `${f.name} = ?`).join(', ')} WHERE id = ?`),
  }
  const inMain = sqlite.query<{ one: number }, [number]>(`SELECT 1 AS one FROM ${RAW_MAIN} WHERE id = ?`)
  const moveToMain = sqlite.prepare(
    `INSERT INTO ${RAW_MAIN} (${ROW_COLS.join(', ')}) SELECT id, device_seq, ts, (kinds & ~${HOT_BIT}) | ?2, ${HOT_COLS.join(', ')}, NULL, NULL
     FROM temp.metric_hot_rows WHERE id IN (SELECT value FROM json_each(?1))`,
  )
  const dropRows = sqlite.prepare('DELETE FROM temp.metric_hot_rows WHERE id IN (SELECT value FROM json_each(?1))')
  const orphans = sqlite.prepare('DELETE FROM temp.metric_hot_rows WHERE device_seq NOT IN (SELECT seq FROM main.devices)')
  const unsealedIn = sqlite.query<{ n: number }, [number]>('SELECT count(*) AS n FROM temp.metric_hot_rows WHERE segment <= ?')
  const dropRow = sqlite.prepare('DELETE FROM temp.metric_hot_rows WHERE id = ?')
  const maxId = sqlite.query<{ a: number | null }, []>(`SELECT max(id) AS a FROM ${RAW_MAIN}`)

  /** per device and segment (`seq:segment`) its chain */
  const chains = new Map<string, Chain>()
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

  /** the parts of a record, decoding its run from the last record standing alone as far as needed */
  function partsOf(key: number): HotPart[] | null {
    const rec = records.get(key)
    if (!rec) return null
    const keys = chains.get(`${rec.deviceSeq}:${rec.segment}`)!.records
    const start = rec.at - (rec.at % RESTART_EVERY)
    let texts = decoded.get(keys[start]!)
    if (texts)
      decoded.delete(keys[start]!) // moved to the newest end
    else if (decoded.size >= DECODED_RUNS) decoded.delete(decoded.keys().next().value!)
    decoded.set(keys[start]!, (texts ??= []))
    const read = (i: number) => {
      const r = records.get(keys[i]!)!
      return decodeHot(recordData(log.read(r.segment, r.pos, r.length)), i === start ? null : texts[i - start - 1]!)
    }
    for (let i = start + texts.length; i < rec.at; i++) texts.push(read(i).ref)
    const r = read(rec.at)
    if (texts.length === rec.at - start) texts.push(r.ref)
    return r.parts
  }

  function rebuild() {
    importTables(sqlite, log)
    let maxSample = maxId.get()!.a ?? 0
    /** the records by their place, for the marks that follow them */
    const byPlace = new Map<string, { key: number; sampleId: number }>()
    for (const e of log.scan()) {
      const p = decodePayload(e.payload)
      if (p.type === 'mark') {
        // its sample was pruned while hot: it stays pruned (the record stays in its chain)
        const r = byPlace.get(`${e.segment}:${p.at}`)
        if (r) dropRow.run(r.sampleId)
        continue
      }
      const r = p.record
      maxSample = Math.max(maxSample, r.sampleId)
      const chainKey = `${r.deviceSeq}:${e.segment}`
      let c = chains.get(chainKey)
      if (!c) chains.set(chainKey, (c = { records: [], ref: null }))
      const { parts, ref } = decodeHot(r.data, c.records.length % RESTART_EVERY === 0 ? null : c.ref)
      c.ref = ref
      const key = nextKey++
      remember({ key, deviceSeq: r.deviceSeq, segment: e.segment, at: c.records.length, pos: e.at, length: e.payload.length }, r.sampleId)
      byPlace.set(`${e.segment}:${e.at}`, { key, sampleId: r.sampleId })
      c.records.push(key)
      // a sample pruned while hot stays pruned; one already sealed (its record waits for its
      // segment to go) is read from the raw table
      if (r.kinds === 0 || inMain.get(r.sampleId)) continue
      mirror(r.sampleId, r.deviceSeq, r.ts, e.segment, parts)
    }
    segments.push(...log.segments())
    segment = segments.at(-1) ?? -1
    nextId = maxSample + 1
  }

  /**
   * Before a segment's file goes, the transactions that sealed its samples must be on the disk:
   * under synchronous=NORMAL SQLite does not sync its WAL at COMMIT, and a power cut could keep
   * the file's removal and lose the sealing. Once per segment, so it costs nothing.
   */
  function syncWal() {
    const path = sqlite.filename
    if (path === '' || path === ':memory:') return
    try {
      const fd = openSync(`${path}-wal`, 'r')
      try {
        fdatasyncSync(fd)
      } finally {
        closeSync(fd)
      }
    } catch {
      // no WAL file: the sealing is already in the database file, which the checkpoint synced
    }
  }

  function mirror(sampleId: number, seq: number, ts: number, seg: number, parts: HotPart[]) {
    reloadRow.run(sampleId, seq, ts, seg)
    for (const p of parts) setValues[p.kind].run(...p.values, sampleId)
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
      const chainKey = `${seq}:${segment}`
      const before = chains.get(chainKey)
      const c = before ?? { records: [], ref: null }
      const { data, ref } = encodeHot(parts, c.records.length % RESTART_EVERY === 0 ? null : c.ref)
      let kinds = 0
      for (const p of parts) kinds |= KIND_BIT[p.kind]
      const payload = encodeRecord({ deviceSeq: seq, sampleId, ts, kinds, data })
      const pos = log.append(segment, payload)
      const key = nextKey++
      const seg = segment
      if (isNew) {
        const hw = parts.find((p) => p.kind === 'hardware')
        const net = parts.find((p) => p.kind === 'network')
        insertRow.run(sampleId, seq, ts, HOT_BIT | kinds, segment, ...(hw?.values ?? noValues.hardware), ...(net?.values ?? noValues.network))
      } else for (const p of parts) setValues[p.kind].run(...p.values, sampleId)
      const prevRef = c.ref
      remember({ key, deviceSeq: seq, segment, at: c.records.length, pos, length: payload.length }, sampleId)
      c.records.push(key)
      c.ref = ref
      chains.set(chainKey, c)
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
        if (!before) chains.delete(chainKey)
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
      const list = bySample.get(sampleId)
      if (!list) return undefined
      let found: string | null | undefined
      for (const id of list) for (const p of partsOf(id) ?? []) if (p.kind === kind) found = p.rest
      return found
    },
    /** Moves hot samples into the raw table (their values; the caller puts their texts in a block), in the caller's transaction. */
    seal(ids: number[], sealedBit: number) {
      const json = JSON.stringify(ids)
      moveToMain.run(json, sealedBit)
      dropRows.run(json)
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
      orphans.run()
      let dropped = 0
      // a segment goes once nothing in it or before it is unsealed (the newest too: the next record starts a new one)
      while (segments.length && unsealedIn.get(segments[0]!)!.n === 0) {
        if (!dropped) syncWal()
        const gone = segments.shift()!
        log.drop(gone)
        dropped++
        for (const [key, rec] of records) if (rec.segment === gone) records.delete(key)
        for (const [sampleId, list] of bySample) {
          const kept = list.filter((key) => records.has(key))
          if (kept.length) bySample.set(sampleId, kept)
          else bySample.delete(sampleId)
        }
        const suffix = `:${gone}`
        for (const k of chains.keys()) if (k.endsWith(suffix)) chains.delete(k)
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
