import { Database } from 'bun:sqlite'
import { HOUR_MS } from './metrics.fields'
import { HEADER, createHotLog } from './metrics.hot.log'
import { fileSegments, memorySegments, type SegmentFiles } from './metrics.segment-files'
import { syncWal, syncWalOffLoop } from './metrics.hot.rows'

/**
 * Where the sealed blocks' bytes live: appended, framed (length and CRC-32, metrics.hot.log.ts),
 * to one file per hour of the blocks' starts beside the database, `<database>-blocks/<hour>.log`,
 * with a small row per block in `metric_block_index` saying where (file, offset, lengths).
 *
 * Why files and not BLOBs in SQLite: SQLite writes each page of a block twice, to the WAL and again
 * when the checkpoint copies it into the database (sealing wrote 2.1 times what it kept,
 * docs/storage.md); a file takes the block's bytes once. A group of blocks is appended by one write
 * per file and synced (fdatasync) before the transaction that points to it commits: a crash before
 * the COMMIT leaves bytes nothing points to (cut off at the next start), never a row pointing to
 * bytes that are not there. A block sealed again (late data) is appended anew and its row moved;
 * the old bytes are garbage until their file goes, which is once no row points into it (retention,
 * the disk budget) and the WAL holding the rows' deletion is synced. A deleted device's blocks are
 * overwritten with zeros in place and synced by the sealing job's next run (metric_block_wipes,
 * filled by a trigger in the delete's own transaction, so a crash cannot lose the wipe).
 *
 * Blocks of an earlier release (and those a backup carries) are BLOBs in metric_blocks and
 * metric_nested: read where the index has no row, moved into a file when sealed again, pruned
 * with the rest; they age out with retention.
 */

/** Files the sweep at start looks at between two pauses (about 1 ms of the event loop here). */
export const SWEEP_SLICE = 64
/** Each file holds the blocks starting within one hour: retention and the budget free space an hour at a time. */
export const BLOCK_FILE_MS = HOUR_MS
export const blockFileOf = (start: number) => Math.floor(start / BLOCK_FILE_MS)
/** Where a database file's block files live. */
export const blockLogDir = (dbPath: string) => `${dbPath}-blocks`

export interface BlockPlace {
  file: number
  at: number
  length: number
  nestedLength: number
}

/** The bytes of a block and its frames' total length on disk. */
export const placeBytes = (p: Pick<BlockPlace, 'length' | 'nestedLength'>) => 2 * HEADER + p.length + p.nestedLength

/** A stored block: what identifies its bytes (a new version has another identity), and the bytes. */
export interface StoredBytes {
  id: string
  load(): Uint8Array
}

export class BlockBytesError extends Error {
  override name = 'BlockBytesError'
}

/** The index, the legacy tables and the files of one connection's database. */
export function openBlockLog(sqlite: Database, files?: SegmentFiles) {
  const path = sqlite.filename
  const inMemory = path === '' || path === ':memory:'
  // every group is synced: the transaction pointing to it commits only once the bytes are on the disk
  const log = createHotLog(files ?? (inMemory ? memorySegments() : fileSegments(blockLogDir(path))), { sync: true })
  const q = { index: 'metric_block_index', blocks: 'metric_blocks', nested: 'metric_nested', wipes: 'metric_block_wipes' }
  const place = sqlite.query<BlockPlace, [number, number]>(
    `SELECT file, at, length, nested_length AS nestedLength FROM ${q.index} WHERE device_seq = ? AND start = ?`,
  )
  const legacy = sqlite.query<{ data: Uint8Array }, [number, number]>(`SELECT data FROM ${q.blocks} WHERE device_seq = ? AND start = ?`)
  const nestedPlaces = sqlite.query<BlockPlace & { start: number }, [number, number, number]>(
    `SELECT start, file, at, length, nested_length AS nestedLength FROM ${q.index} WHERE device_seq = ? AND start >= ? AND start < ?`,
  )
  const nestedLegacy = sqlite.query<{ start: number; data: Uint8Array }, [number, number, number]>(
    `SELECT start, data FROM ${q.nested} WHERE device_seq = ? AND start >= ? AND start < ?`,
  )
  const putPlace = sqlite.query(`INSERT OR REPLACE INTO ${q.index} (device_seq, start, file, at, length, nested_length) VALUES (?, ?, ?, ?, ?, ?)`)
  const dropLegacy = sqlite.query(`DELETE FROM ${q.blocks} WHERE device_seq = ?1 AND start = ?2`)
  const dropLegacyNested = sqlite.query(`DELETE FROM ${q.nested} WHERE device_seq = ?1 AND start = ?2`)
  const used = sqlite.query<{ end: number | null }, [number]>(`SELECT max(at + ${2 * HEADER} + length + nested_length) AS end FROM ${q.index} WHERE file = ?`)
  const anyIn = sqlite.query<{ one: number }, [number]>(`SELECT 1 AS one FROM ${q.index} WHERE file = ? LIMIT 1`)
  const wipes = sqlite.query<{ id: number; file: number; at: number; length: number }, []>(`SELECT id, file, at, length FROM ${q.wipes} ORDER BY id`)
  const wiped = sqlite.query<never, [number]>(`DELETE FROM ${q.wipes} WHERE id <= ?`)
  const counts = sqlite.query<{ n: number; legacy: number; legacyBytes: number | null }, []>(
    `SELECT (SELECT count(*) FROM ${q.index}) AS n, (SELECT count(*) FROM ${q.blocks}) AS legacy,
       (SELECT sum(length(data)) FROM ${q.blocks}) + coalesce((SELECT sum(length(data)) FROM ${q.nested}), 0) AS legacyBytes`,
  )

  const payload = (p: BlockPlace, nested: boolean): Uint8Array => {
    const at = nested ? p.at + HEADER + p.length : p.at
    const out = log.readChecked(p.file, at, nested ? p.nestedLength : p.length)
    if (!out) throw new BlockBytesError(`a sealed block's bytes in ${blockLogDir(path)}/${p.file}.log at ${at} are missing or damaged`)
    return out
  }

  /** a file no row points into, and no group being written appends to (its rows are not committed yet) */
  const unused = (file: number) => !anyIn.get(file) && !log.isWriting(file)
  /** the files up to `upTo` no row points into */
  const unusedFiles = (upTo = Number.POSITIVE_INFINITY) => log.segments().filter((file) => file <= upTo && unused(file))
  /** removes those of `files` no row points into now; returns how many */
  const dropStillUnused = (files: number[]): number => {
    let gone = 0
    for (const file of files) {
      if (!unused(file)) continue
      log.drop(file)
      gone++
    }
    return gone
  }

  /** Removes those of `files` no row points into, once the WAL that deleted their rows is on the disk; returns how many. */
  const dropUnused = (files: number[]): number => {
    if (!files.length) return 0
    syncWal(sqlite)
    return dropStillUnused(files)
  }
  /** Removes the files no row points into, as dropUnused does; returns how many. */
  const removeUnused = (): number => dropUnused(unusedFiles())

  /**
   * removeUnused for a pruning, its flush of the WAL waited for off the event loop, looking at the
   * files up to `upTo` (those the pruning can have emptied: one query each, and a year of raw
   * retention is 8,760 files). Only files unused before the flush and still unused after it go: a
   * block sealed into one meanwhile keeps it, and one that another delete emptied meanwhile waits
   * for a flush of its own.
   */
  const removeUnusedOffLoop = async (upTo?: number): Promise<number> => {
    const unused = unusedFiles(upTo)
    if (!unused.length) return 0
    await syncWalOffLoop(sqlite)
    return dropStillUnused(unused)
  }

  return {
    /** the block's bytes (from its file, or a BLOB of an earlier release), or null when it has none */
    read(seq: number, start: number): StoredBytes | null {
      const p = place.get(seq, start)
      // bytes appended at a place never change (a deleted device's are zeroed once its rows are gone)
      if (p) return { id: `${p.file}:${p.at}`, load: () => payload(p, false) }
      const row = legacy.get(seq, start)
      return row ? { id: `legacy:${Bun.hash(row.data)}`, load: () => row.data } : null
    },
    /**
     * The minutes of a device's blocks starting in [from, to), in time order: each with its
     * block's start, where its bytes are (null: a BLOB of an earlier release) and its bytes, read
     * when loaded.
     */
    nestedRange(seq: number, from: number, to: number): { start: number; place: string | null; load: () => Uint8Array }[] {
      const out = nestedPlaces.all(seq, from, to).map((p) => ({ start: p.start, place: `${p.file}:${p.at}` as string | null, load: () => payload(p, true) }))
      const seen = new Set(out.map((r) => r.start))
      // a BLOB of an earlier release or a backup (sealing a block again moves it into a file)
      for (const r of nestedLegacy.all(seq, from, to)) if (!seen.has(r.start)) out.push({ start: r.start, place: null, load: () => r.data })
      return out.sort((a, b) => a.start - b.start)
    },
    /**
     * Appends blocks and their minutes to their files (one write and one fdatasync per file, the
     * sync waited for off the event loop), then runs `commit`, whose transaction points the index
     * to the blocks it keeps (`point`, called for each) and writes whatever else goes with them. A
     * block left out (it changed during the sync) leaves bytes nothing points to, garbage until
     * its file goes, as a block sealed again does. On failure nothing written stays and the error
     * is thrown. One write at a time: the caller (the sealing job) runs alone.
     */
    async write<B extends { seq: number; start: number; data: Uint8Array; nested: Uint8Array }>(
      blocks: B[],
      commit: (point: (block: B) => void) => void,
    ): Promise<void> {
      const places = new Map<B, { file: number; at: number }>()
      for (const b of blocks) {
        const file = blockFileOf(b.start)
        places.set(b, { file, at: log.append(file, b.data) })
        log.append(file, b.nested)
      }
      try {
        await log.persistOffLoop()
        commit((b) => {
          const p = places.get(b)!
          putPlace.run(b.seq, b.start, p.file, p.at, b.data.length, b.nested.length)
          dropLegacy.run(b.seq, b.start)
          dropLegacyNested.run(b.seq, b.start)
        })
        log.done()
      } catch (err) {
        log.undo()
        throw err
      }
    },
    /**
     * Overwrites a deleted device's blocks with zeros (synced), then removes the files no row
     * points into. The device's rows went in its delete's transaction, which is synced first, so a
     * power cut cannot bring back rows pointing to zeros. Returns the ranges wiped. With nothing
     * to wipe it looks at no file: a block sealed again goes to the file of its own hour, so only
     * a delete (here), a pruning (which removes what it emptied) or a crash between the two (the
     * sweep at start) leaves a file nothing points into, and probing each hourly file every
     * minute held the event loop 2 to 6 ms with a month of files.
     */
    wipe(): number {
      const list = wipes.all()
      if (!list.length) return 0
      syncWal(sqlite)
      const present = new Set(log.segments())
      for (const w of list) {
        if (!present.has(w.file)) continue
        const length = Math.max(0, Math.min(w.length, log.size(w.file) - w.at))
        if (length) log.overwrite(w.file, w.at, new Uint8Array(length))
      }
      wiped.run(list.at(-1)!.id)
      removeUnused()
      return list.length
    },
    /**
     * At start: wipes what a delete left, removes the files no row points into, and cuts each
     * file after its last block (bytes of a sealing whose transaction did not commit). A file at
     * a time, with `pause` after every SWEEP_SLICE of them: in one piece, a month of hourly files
     * held the event loop 17 ms here, a year's would hold it hundreds. The caller seals nothing
     * meanwhile (the sealer runs it before its blocks); a pruning in a pause may empty a file
     * already looked at, which that pruning removes itself.
     */
    async sweep(pause: () => Promise<void> = async () => {}): Promise<void> {
      this.wipe()
      const files = log.segments()
      const empty: number[] = []
      for (let i = 0; i < files.length; i++) {
        if (i > 0 && i % SWEEP_SLICE === 0) await pause()
        const file = files[i]!
        // a file rows point into is never removed, so it is still there after a pause
        const end = used.get(file)?.end ?? null
        if (end === null) empty.push(file)
        else if (log.size(file) > end) log.cut(file, end)
      }
      dropUnused(empty)
    },
    removeUnused,
    removeUnusedOffLoop,
    /** blocks stored (in files and as BLOBs) and the bytes they take (the files whole, garbage included) */
    stats() {
      const c = counts.get()!
      return { blocks: c.n + c.legacy, files: log.segments().length, bytes: log.bytes() + (c.legacyBytes ?? 0) }
    },
    /** the bytes of the block files */
    fileBytes: () => log.bytes(),
  }
}

export type BlockLog = ReturnType<typeof openBlockLog>

/**
 * What a backup (one SQLite file, written by VACUUM INTO) carries of the blocks: the copy holds
 * the index rows, not the bytes, so each block's bytes are read from the source's files and
 * written into the copy as BLOBs of metric_blocks and metric_nested, the form an earlier release
 * kept them in, which a restored instance reads (and moves into its files when it seals a block
 * again). A block whose bytes went after the snapshot (pruned, or its device deleted, while the
 * backup ran) leaves the copy with the samples it held, as a backup taken a moment later would;
 * a deleted device leaves with all of it. Returns the blocks carried and those left out.
 */
export function carryBlocksInto(copy: Database, sourcePath: string): { blocks: number; gone: number } {
  // a database not migrated to the block files yet keeps its blocks as BLOBs already
  if (!copy.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'metric_block_index'").get()) return { blocks: 0, gone: 0 }
  const files = fileSegments(blockLogDir(sourcePath), true)
  const log = createHotLog(files, { sync: false, readOnly: true })
  const read = (file: number, at: number, length: number) => {
    try {
      return log.readChecked(file, at, length)
    } catch {
      return null // the file went
    }
  }
  const rows = copy
    .query<BlockPlace & { seq: number; start: number }, []>(
      // a file after another, in the order of their bytes: the source's files are opened a few at a time (fileSegments)
      'SELECT device_seq AS seq, start, file, at, length, nested_length AS nestedLength FROM metric_block_index ORDER BY file, at',
    )
    .all()
  const putBlock = copy.prepare('INSERT OR REPLACE INTO metric_blocks (device_seq, start, data) VALUES (?, ?, ?)')
  const putNested = copy.prepare('INSERT OR REPLACE INTO metric_nested (device_seq, start, data) VALUES (?, ?, ?)')
  const dropSamples = copy.prepare('DELETE FROM metric_samples WHERE device_seq = ? AND ts >= ? AND ts < ?')
  const gone = new Set<number>()
  let blocks = 0
  try {
    copy.transaction(() => {
      for (const r of rows) {
        const data = read(r.file, r.at, r.length)
        const nested = data && read(r.file, r.at + HEADER + r.length, r.nestedLength)
        if (data && nested) {
          putBlock.run(r.seq, r.start, data)
          putNested.run(r.seq, r.start, nested)
          blocks++
        } else {
          gone.add(r.seq)
          dropSamples.run(r.seq, r.start, r.start + 10 * 60_000)
        }
      }
      copy.run('DELETE FROM metric_block_index')
    })()
  } finally {
    for (const s of [putBlock, putNested, dropSamples]) s.finalize()
    log.close()
  }
  if (gone.size) dropDevicesGone(copy, sourcePath, [...gone])
  // the wipes name the source's files, not the copy's
  copy.run('DELETE FROM metric_block_wipes')
  return { blocks, gone: rows.length - blocks }
}

/** Deletes from the copy the devices the source no longer has (deleted while the backup ran). */
function dropDevicesGone(copy: Database, sourcePath: string, seqs: number[]) {
  const source = new Database(sourcePath, { readonly: true })
  try {
    const has = source.query<{ one: number }, [number]>('SELECT 1 AS one FROM devices WHERE seq = ?')
    const deleted = seqs.filter((s) => !has.get(s))
    if (!deleted.length) return
    copy.run('PRAGMA foreign_keys = ON')
    const drop = copy.prepare('DELETE FROM devices WHERE seq = ?')
    copy.transaction(() => {
      for (const s of deleted) drop.run(s)
    })()
    drop.finalize()
  } finally {
    source.close()
  }
}
