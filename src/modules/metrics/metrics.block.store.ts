import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { decodeBlock, encodeBlock, type BlockEntry, type DecodedBlock } from './metrics.block'
import { blockFileOf, openBlockLog } from './metrics.block.log'
import { KIND_BIT, MINUTE_MS, RAW_TABLE, type MetricKind } from './metrics.fields'
import { createHotStore } from './metrics.hot.store'
import { HOT_BIT, RAW_MAIN } from './metrics.hot.rows'
import { nestedMinutes, type BlockMinutes } from './metrics.minutes'
import { encodeMinutes } from './metrics.minutes.codec'
import { keptMinutes } from './metrics.minutes.kept'

/**
 * Ten minutes of a device's samples make one block (60 at the default 10 s). Longer blocks
 * compress a little better (measured on the real sample: 168 bytes per sample for an hour, 225
 * for ten minutes) but cost a read several times more to decode, and a block is sealed only
 * once its first sample is an hour old, so a longer one would keep older rows waiting.
 */
export const BLOCK_MS = 10 * MINUTE_MS
/** `kinds` bit of a row whose rest texts live in its block (a rest column still set wins: a part added later) */
export const SEALED_BIT = 4
/** a row whose rest texts are elsewhere: in its block, or in metric_hot (HOT_BIT) */
export const PARKED_BITS = SEALED_BIT | HOT_BIT
/**
 * Decoded blocks kept at hand between reads (a history page spans one or two; a chart of a day
 * asks 360 evenly spread samples, one query each, walking forward through 144 blocks).
 */
const READ_CACHE = 8
/** Blocks remembered as decoded once (their keys only), so that a second read keeps them. */
const READ_ONCE = 64

export const blockStart = (ts: number) => Math.floor(ts / BLOCK_MS) * BLOCK_MS

/** A block encoded and not yet written (see `prepare` and `commit`). */
export interface PreparedBlock {
  seq: number
  start: number
  /** what its samples held when it was encoded */
  key: string
  data: Uint8Array
  /** its samples' nested families per minute (metrics.minutes.ts) */
  nested: Uint8Array
  rowIds: number[]
  hotIds: number[]
  /** the characters of the rows' own rest texts it takes in (an earlier release's rows, late parts): what sealing rewrites of the raw table */
  restChars: number
}

/** A row the sealing job moves into its block. */
interface UnsealedRow {
  id: number
  kinds: number
  hw_rest: string | null
  net_rest: string | null
}

/**
 * Empties the texts of rows sealed into their block (an earlier release's rows, late parts), by
 * moving each row out and back without them rather than updating it in place. An earlier
 * release's rows lie about one a 4 KB page; an UPDATE left each page in place holding a row of
 * about 100 bytes, so a converted instance kept its whole file, and wrote every page to the WAL
 * again. A DELETE lets SQLite merge the emptied pages (their space goes to the free list, given
 * back by the retention job's vacuum) and the rows return, same ids, packed into a few pages: on
 * the previous release's rows of the real sample, 6,000 rows took 86 ms and 300 pages of WAL
 * instead of 190 ms and 6,000 pages, and freed 97 % of their pages instead of none.
 */
function sealRows(sqlite: Database): (ids: number[]) => void {
  const cols = sqlite
    .query<{ name: string }, []>(`PRAGMA main.table_info(${RAW_TABLE})`)
    .all()
    .map((c) => c.name)
  const emptied = cols.map((c) => (c === 'hw_rest' || c === 'net_rest' ? 'NULL' : c === 'kinds' ? `kinds | ${SEALED_BIT}` : c))
  sqlite.run(`CREATE TEMP TABLE IF NOT EXISTS metric_seal_moving AS SELECT ${cols.join(', ')} FROM ${RAW_MAIN} WHERE 0`)
  const inList = 'id IN (SELECT value FROM json_each(?))'
  const out = sqlite.query(`INSERT INTO temp.metric_seal_moving (${cols.join(', ')}) SELECT ${emptied.join(', ')} FROM ${RAW_MAIN} WHERE ${inList}`)
  const drop = sqlite.query(`DELETE FROM ${RAW_MAIN} WHERE ${inList}`)
  const back = sqlite.query(`INSERT INTO ${RAW_MAIN} (${cols.join(', ')}) SELECT ${cols.join(', ')} FROM temp.metric_seal_moving`)
  const clear = sqlite.query('DELETE FROM temp.metric_seal_moving')
  // runs inside the caller's transaction: the rows are never missing for a reader
  return (ids) => {
    const list = JSON.stringify(ids)
    out.run(list)
    drop.run(list)
    back.run()
    clear.run()
  }
}

function build(sqlite: Database) {
  // the blocks' bytes: in files beside the database, or BLOBs of an earlier release (metrics.block.log.ts)
  const bytes = openBlockLog(sqlite)
  // every sample of a block's span, sealed or not, with the parts it carries (the raw table's view)
  const spanSamples = sqlite.query<{ id: number; ts: number; kinds: number }, [number, number, number]>(
    `SELECT id, ts, kinds FROM ${RAW_TABLE} WHERE device_seq = ? AND ts >= ? AND ts < ?`,
  )
  const hasRest = 'device_seq = ? AND ts >= ? AND ts < ? AND (hw_rest IS NOT NULL OR net_rest IS NOT NULL)'
  const unsealed = sqlite.query<UnsealedRow, [number, number, number]>(`SELECT id, kinds, hw_rest, net_rest FROM ${RAW_MAIN} WHERE ${hasRest}`)
  // the same rows without their texts: a rest is written once per part and kinds says which parts
  // a row has, so (id, kinds) tells whether a row changed, without reading 3.6 KB per row again
  const unsealedKinds = sqlite.query<{ id: number; kinds: number }, [number, number, number]>(`SELECT id, kinds FROM ${RAW_MAIN} WHERE ${hasRest}`)
  const hotRows = sqlite.query<{ id: number; kinds: number }, [number, number, number]>(
    'SELECT id, kinds FROM temp.metric_hot_rows WHERE device_seq = ? AND ts >= ? AND ts < ?',
  )
  // the oldest of: a row with a rest of its own (from an earlier release, or a part that came late), a hot sample.
  // Each side walks its index in time order and stops at its first match: a min() over the union read
  // every row of the range (and its text), so converting a device's backlog block by block was quadratic
  const firstUnsealed = sqlite.query<{ ts: number | null }, [number, number, number]>(
    `SELECT min(ts) AS ts FROM (
       SELECT * FROM (SELECT ts FROM ${RAW_MAIN} WHERE device_seq = ?1 AND ts >= ?2 AND ts < ?3 AND (hw_rest IS NOT NULL OR net_rest IS NOT NULL) ORDER BY ts LIMIT 1)
       UNION ALL SELECT * FROM (SELECT ts FROM temp.metric_hot_rows WHERE device_seq = ?1 AND ts >= ?2 AND ts < ?3 ORDER BY ts LIMIT 1))`,
  )
  const seal = sealRows(sqlite)
  // bounded by the files too: a block's file is the hour it starts in, so the index on files finds
  // the blocks past the cut-off without reading the whole table (which the hourly retention did)
  const prune = sqlite.query<never, [number, number]>(`DELETE FROM metric_block_index WHERE file <= ?2 AND start + ${BLOCK_MS} <= ?1`)
  const pruneLegacy = sqlite.query<never, [number]>(`DELETE FROM metric_blocks WHERE start + ${BLOCK_MS} <= ?`)
  const pruneNested = sqlite.query<never, [number]>(`DELETE FROM metric_nested WHERE start + ${BLOCK_MS} <= ?`)
  // a device's blocks wholly before its oldest row: every sample of theirs was pruned (an index range per device)
  const beforeOldestRow = `device_seq = ?1 AND start <= (SELECT coalesce(min(ts), ${Number.MAX_SAFE_INTEGER}) FROM ${RAW_MAIN} WHERE device_seq = ?1) - ${BLOCK_MS}`
  const orphanBlocks = sqlite.query<never, [number]>(`DELETE FROM metric_block_index WHERE ${beforeOldestRow}`)
  const orphanLegacy = sqlite.query<never, [number]>(`DELETE FROM metric_blocks WHERE ${beforeOldestRow}`)
  const orphanNested = sqlite.query<never, [number]>(`DELETE FROM metric_nested WHERE ${beforeOldestRow}`)

  const hot = createHotStore(sqlite)
  /** decoded blocks by device and start, each with the identity of the bytes it was decoded from */
  const cache = new Map<string, { id: string; block: DecodedBlock }>()
  /** blocks decoded lately and not kept, by key, oldest first */
  const once = new Set<string>()
  /** blocks decoded for reads since the store was made */
  let decodes = 0
  const minutes = keptMinutes()
  const decoded = (seq: number, start: number): DecodedBlock | null => {
    const stored = bytes.read(seq, start)
    if (!stored) return null
    const key = `${seq}:${start}`
    const hit = cache.get(key)
    // a block sealed again with late data is elsewhere (or, as a BLOB, other bytes): never served stale
    if (hit && hit.id === stored.id) {
      cache.delete(key)
      cache.set(key, hit)
      return hit.block
    }
    const block = decodeBlock(stored.load())
    decodes++
    // kept only when read again soon: a block read once (a page anywhere in the month) that was
    // kept outlived a young collection, and the old generation it filled was collected in full
    if (!once.delete(key)) {
      once.add(key)
      if (once.size > READ_ONCE) once.delete(once.keys().next().value!)
      return block
    }
    if (cache.size >= READ_CACHE) cache.delete(cache.keys().next().value!)
    cache.set(key, { id: stored.id, block })
    return block
  }

  /**
   * Per read of a device: a hot sample's text (as UTF-8 bytes when `bytes`), else the decoded
   * block its row's text is in (null when none).
   */
  const lookup = (seq: number, bytes: boolean) => {
    let at = Number.NaN
    let block: DecodedBlock | null = null
    return (id: number, ts: number, kind: MetricKind): string | Uint8Array | DecodedBlock | null => {
      const fresh = bytes ? hot.restBytes(id, kind) : hot.text(id, kind)
      if (fresh !== undefined) return fresh
      const start = blockStart(ts)
      if (start !== at) {
        block = decoded(seq, start)
        at = start
      }
      return block
    }
  }

  /**
   * What a block's samples hold now, as a key: the rows with a rest of their own by id and parts,
   * and the hot samples by id, parts and records (a part added to a hot sample adds a record).
   */
  const keyOf = (rows: { id: number; kinds: number }[], hotOnes: { id: number; kinds: number }[]) => {
    let key = ''
    for (const r of rows) key += `${r.id}:${r.kinds},`
    key += '|'
    for (const r of hotOnes) key += `${r.id}:${r.kinds}:${hot.records(r.id)},`
    return key
  }
  /** What a block is to be made of now: the rows with a rest of their own and the hot samples, with what they hold. */
  const inputs = (seq: number, start: number) => {
    const rows = unsealed.all(seq, start, start + BLOCK_MS)
    const hotOnes = hotRows.all(seq, start, start + BLOCK_MS)
    return { rows, hotOnes, key: keyOf(rows, hotOnes) }
  }
  const currentKey = (seq: number, start: number) => keyOf(unsealedKinds.all(seq, start, start + BLOCK_MS), hotRows.all(seq, start, start + BLOCK_MS))

  /**
   * Encodes a block's unsealed samples into it (no write yet; null when there are none). The
   * write is `commit`, which may take many blocks in one transaction.
   */
  const prepare = (seq: number, start: number): PreparedBlock | null => {
    const { rows, hotOnes, key } = inputs(seq, start)
    if (!rows.length && !hotOnes.length) return null
    const entries = new Map<string, BlockEntry>()
    let restChars = 0
    const old = bytes.read(seq, start)
    // late samples and parts join the block: what it already holds is decoded and encoded again with them
    if (old) for (const e of decodeBlock(old.load()).entries()) entries.set(`${e.id}:${e.kind}`, e)
    for (const r of rows) {
      if (r.hw_rest !== null) entries.set(`${r.id}:hardware`, { id: r.id, kind: 'hardware', text: r.hw_rest })
      if (r.net_rest !== null) entries.set(`${r.id}:network`, { id: r.id, kind: 'network', text: r.net_rest })
      restChars += (r.hw_rest?.length ?? 0) + (r.net_rest?.length ?? 0)
    }
    for (const r of hotOnes) {
      for (const kind of ['hardware', 'network'] as const) {
        if (!(r.kinds & KIND_BIT[kind])) continue
        const text = hot.text(r.id, kind)
        if (text) entries.set(`${r.id}:${kind}`, { id: r.id, kind, text })
      }
    }
    const text = (id: number, kind: MetricKind) => entries.get(`${id}:${kind}`)?.text ?? null
    const minutes = nestedMinutes(
      spanSamples
        .all(seq, start, start + BLOCK_MS)
        .map((r) => ({ ts: r.ts, kinds: r.kinds, rest: { hardware: text(r.id, 'hardware'), network: text(r.id, 'network') } })),
    )
    return {
      seq,
      start,
      key,
      data: encodeBlock([...entries.values()]),
      nested: encodeMinutes(minutes),
      rowIds: rows.map((r) => r.id),
      hotIds: hotOnes.map((r) => r.id),
      restChars,
    }
  }

  /**
   * Writes prepared blocks: their bytes appended to their files and synced, then one transaction
   * pointing the index to them and moving their samples (many devices' blocks share their pages
   * of the raw table and its index, which are then written once). A block whose samples changed
   * since it was prepared (a late part arrived in between, a pruning took its rows) is left out:
   * checked before the write and again after the sync, with nothing yielding between that check
   * and the COMMIT. Returns the blocks left out and the samples moved.
   */
  const commit = async (blocks: PreparedBlock[]): Promise<{ samples: number; stale: PreparedBlock[] }> => {
    let samples = 0
    const stale: PreparedBlock[] = []
    const unchanged = (b: PreparedBlock) => {
      if (currentKey(b.seq, b.start) === b.key) return true
      stale.push(b)
      return false
    }
    const ready = blocks.filter(unchanged)
    if (!ready.length) return { samples, stale }
    await bytes.write(ready, (point) => {
      const fresh = ready.filter(unchanged)
      sqlite.transaction(() => {
        for (const b of fresh) {
          point(b)
          if (b.rowIds.length) seal(b.rowIds)
          if (b.hotIds.length) hot.seal(b.hotIds, SEALED_BIT)
          samples += b.rowIds.length + b.hotIds.length
        }
      })()
    })
    return { samples, stale }
  }

  return {
    prepare,
    commit,
    /** the time of the device's oldest row still to seal in [from, to), or null */
    firstUnsealed: (seq: number, from: number, to: number): number | null => firstUnsealed.get(seq, from, to)?.ts ?? null,
    /** deletes the records of metric_hot whose samples are all sealed (whole segments) */
    dropHot: () => hot.dropSealed(),
    /**
     * Drops the blocks wholly before `cutoff` and their minutes (their rows are gone with raw
     * retention), in one transaction: no minutes outlive their block.
     */
    async prune(cutoff: number): Promise<number> {
      const lastFile = blockFileOf(cutoff - BLOCK_MS)
      const n = sqlite.transaction(() => {
        pruneNested.run(cutoff)
        return prune.run(cutoff, lastFile).changes + pruneLegacy.run(cutoff).changes
      })()
      // a file goes once no block points into it (its blocks all start within one hour), once
      // the deletes are on the disk; only files up to the cut-off's can have been emptied here
      if (n) await bytes.removeUnusedOffLoop(lastFile)
      return n
    },
    /**
     * Drops the blocks (and their minutes) of these devices whose rows are all gone: what a
     * pruning killed between deleting rows and deleting their blocks left behind (each is its own
     * statement, and the next pruning may find nothing to do). Returns how many blocks went.
     */
    dropOrphans(seqs: number[]): number {
      const n = sqlite.transaction(() => {
        let n = 0
        for (const seq of seqs) {
          orphanNested.run(seq)
          n += orphanBlocks.run(seq).changes + orphanLegacy.run(seq).changes
        }
        return n
      })()
      if (n) bytes.removeUnused()
      return n
    },
    /** zeroes a deleted device's blocks in their files and removes the files nothing points into (metrics.block.log.ts) */
    wipe: () => bytes.wipe(),
    /** at start: what a crash or a delete left in the files (bytes of a sealing that did not commit, a wipe not done) */
    sweep: (pause?: () => Promise<void>) => bytes.sweep(pause),
    /** the nested minutes of a device's blocks starting in [from, to), in time order, each decoded when asked for; shared answers (metrics.minutes.kept.ts) */
    nestedMinutes: (seq: number, from: number, to: number): BlockMinutes[] =>
      bytes.nestedRange(seq, from, to).map((m) => ({
        start: m.start,
        end: m.start + BLOCK_MS,
        minutes: () => minutes.get(m.place === null ? null : `${seq}:${m.start}:${m.place}`, m.load),
      })),
    /** blocks stored, their files and the bytes they take; blocks and minutes decoded for reads */
    stats: () => ({ ...bytes.stats(), decodes, minuteDecodes: minutes.stats().decodes }),
    /** the bytes of the block files (counted with the raw tier) */
    fileBytes: () => bytes.fileBytes(),
    /**
     * For one read of a device: the rest text of a sealed row's part (null when it had none). A
     * read's rows lie in one or two blocks, so each block is looked up (its bytes read and hashed
     * against the cache) once per read, not once per row: a history page of 120 read its block
     * 120 times. One read runs without yielding, so no block can be sealed again under it.
     */
    reader(seq: number) {
      const find = lookup(seq, false)
      return (id: number, ts: number, kind: MetricKind): string | null => {
        const found = find(id, ts, kind) as string | DecodedBlock | null
        return typeof found === 'string' || found === null ? found : (found.text(id, kind) ?? null)
      }
    },
    /**
     * The same for an answer written at once (a history page), no text made a string: a hot
     * sample's as the UTF-8 bytes of its decoded record, a sealed one's as the decoded block
     * itself, which writes it into the answer (DecodedBlock#writeMembers). Both stay what they
     * were decoded from whatever is sealed or dropped after the read.
     */
    writers: (seq: number): ((id: number, ts: number, kind: MetricKind) => Uint8Array | DecodedBlock | null) =>
      lookup(seq, true) as (id: number, ts: number, kind: MetricKind) => Uint8Array | DecodedBlock | null,
  }
}

export type BlockStore = ReturnType<typeof build>
/** One store (prepared statements) per database connection. */
export const createBlockStore: (sqlite: Database) => BlockStore = perConnection(build)
