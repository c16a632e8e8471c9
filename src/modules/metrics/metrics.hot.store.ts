import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { FIELDS, HOT_TABLES, MINUTE_MS, RAW_TABLE, hotTable, type MetricKind } from './metrics.fields'
import { decodeHot, encodeHot, type HotPart, type HotRef } from './metrics.hot'

/**
 * The newest samples, from ingest until the sealing job moves them into their long-lived form
 * (rows of hot values plus a compressed block, see metrics.block.store.ts).
 *
 * On disk: HOT_TABLES append-only tables metric_hot_0..n whose only key is their increasing
 * rowid, used in turn, one segment (about SEGMENT_MS of writing) each. Each record is one
 * request's part(s) of one sample, coded against the device's previous record of the same
 * segment (metrics.hot.ts); every RESTART_EVERY-th record of a device's chain stands alone, so
 * reading any record decodes at most that many. Once every
 * sample of a segment is sealed, its table is emptied by one DELETE without a condition, which
 * SQLite carries out by handing the pages to the free list without writing them (a DELETE by
 * rows, or one checking a foreign key, would rewrite every page: that is why these tables have
 * none; a deleted device's records go with their segment).
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
 * How long a segment collects records before the next table takes over. Its samples are sealed
 * within about 70 minutes of being written, so a table is empty again well before its turn comes
 * back (HOT_TABLES segments later); if it is not, the current segment goes on.
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

/** `kinds` bit of a row whose parts live in metric_hot (the in-memory mirror only) */
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

/** A record on disk; its key is rowid * HOT_TABLES + its table. */
interface Record_ {
  key: number
  deviceSeq: number
  segment: number
  /** its place in its device's chain */
  at: number
}

const tableOf = (segment: number) => ((segment % HOT_TABLES) + HOT_TABLES) % HOT_TABLES
const keyOf = (rowid: number, table: number) => rowid * HOT_TABLES + table

type Undo = () => void

function build(sqlite: Database) {
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
  const tables = Array.from({ length: HOT_TABLES }, (_, i) => ({
    append: sqlite.prepare(`INSERT INTO main.${hotTable(i)} (device_seq, sample_id, ts, kinds, segment, data) VALUES (?, ?, ?, ?, ?, ?)`),
    data: sqlite.query<{ data: Uint8Array }, [number]>(`SELECT data FROM main.${hotTable(i)} WHERE id = ?`),
    empty: sqlite.prepare(`DELETE FROM main.${hotTable(i)}`),
    // kinds 0: the sample was pruned while hot; the record stays in its chain (a later record is coded against it)
    pruned: sqlite.prepare(`UPDATE main.${hotTable(i)} SET kinds = 0 WHERE id = ?`),
  }))
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
  const allTables = (cols: string) => Array.from({ length: HOT_TABLES }, (_, i) => `SELECT ${cols} FROM main.${hotTable(i)}`).join(' UNION ALL ')
  const maxIds = sqlite.query<{ a: number | null; b: number | null }, []>(
    `SELECT (SELECT max(id) FROM ${RAW_MAIN}) AS a, (SELECT max(sample_id) FROM (${allTables('sample_id')})) AS b`,
  )

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
      const k = keys[i]!
      return decodeHot(tables[k % HOT_TABLES]!.data.get(Math.floor(k / HOT_TABLES))!.data, i === start ? null : texts[i - start - 1]!)
    }
    for (let i = start + texts.length; i < rec.at; i++) texts.push(read(i).ref)
    const r = read(rec.at)
    if (texts.length === rec.at - start) texts.push(r.ref)
    return r.parts
  }

  function rebuild() {
    const m = maxIds.get()!
    nextId = Math.max(m.a ?? 0, m.b ?? 0) + 1
    const all = sqlite.query<{ id: number; device_seq: number; sample_id: number; ts: number; kinds: number; segment: number; data: Uint8Array }, []>(
      `SELECT id, device_seq, sample_id, ts, kinds, segment, data FROM (${allTables('id, device_seq, sample_id, ts, kinds, segment, data')}) ORDER BY segment, id`,
    )
    for (const r of all.iterate()) {
      if (r.segment !== segment) {
        segment = r.segment
        segments.push(segment)
      }
      const chainKey = `${r.device_seq}:${r.segment}`
      let c = chains.get(chainKey)
      if (!c) chains.set(chainKey, (c = { records: [], ref: null }))
      const { parts, ref } = decodeHot(r.data, c.records.length % RESTART_EVERY === 0 ? null : c.ref)
      c.ref = ref
      const key = keyOf(r.id, tableOf(r.segment))
      remember({ key, deviceSeq: r.device_seq, segment: r.segment, at: c.records.length }, r.sample_id)
      c.records.push(key)
      // a sample pruned while hot stays pruned; one already sealed (its record waits for its
      // segment to go) is read from the raw table
      if (r.kinds === 0 || inMain.get(r.sample_id)) continue
      mirror(r.sample_id, r.device_seq, r.ts, r.segment, parts)
    }
  }

  function mirror(sampleId: number, seq: number, ts: number, seg: number, parts: HotPart[]) {
    reloadRow.run(sampleId, seq, ts, seg)
    for (const p of parts) setValues[p.kind].run(...p.values, sampleId)
  }

  let nextId = 1
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
      // the next table takes over once the segment is old enough and that table was emptied
      const turn = !segments.length || (now - segmentSince >= SEGMENT_MS && segments.length < HOT_TABLES)
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
      const table = tableOf(segment)
      const key = keyOf(Number(tables[table]!.append.run(seq, sampleId, ts, kinds, segment, data).lastInsertRowid), table)
      if (isNew) {
        const hw = parts.find((p) => p.kind === 'hardware')
        const net = parts.find((p) => p.kind === 'network')
        insertRow.run(sampleId, seq, ts, HOT_BIT | kinds, segment, ...(hw?.values ?? noValues.hardware), ...(net?.values ?? noValues.network))
      } else for (const p of parts) setValues[p.kind].run(...p.values, sampleId)
      const prevRef = c.ref
      remember({ key, deviceSeq: seq, segment, at: c.records.length }, sampleId)
      c.records.push(key)
      c.ref = ref
      chains.set(chainKey, c)
      journal?.push(() => {
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
    end(committed: boolean) {
      if (!committed) this.undoTo(0)
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
      for (const id of sampleIds) for (const key of bySample.get(id) ?? []) tables[key % HOT_TABLES]!.pruned.run(Math.floor(key / HOT_TABLES))
    },
    /** Empties the tables of the segments whose samples are all sealed, oldest first; returns how many segments went. */
    dropSealed(): number {
      orphans.run()
      let dropped = 0
      // a segment goes once nothing in it or before it is unsealed (the newest too: the next record starts a new one)
      while (segments.length && unsealedIn.get(segments[0]!)!.n === 0) {
        const gone = segments.shift()!
        tables[tableOf(gone)]!.empty.run()
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
    /** records on disk and segments in use */
    stats: () => ({ records: records.size, segments: segments.length }),
  }
}

export type HotStore = ReturnType<typeof build>
/** One store per database connection: the in-memory mirror lives on that connection. */
export const createHotStore: (sqlite: Database) => HotStore = perConnection(build)
