import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { decodeBlock, encodeBlock, type BlockEntry, type DecodedBlock } from './metrics.block'
import { MINUTE_MS, RAW_TABLE, type MetricKind } from './metrics.fields'

/**
 * Ten minutes of a device's samples make one block (60 at the default 10 s). Longer blocks
 * compress a little better (measured on the real sample: 168 bytes per sample for an hour, 225
 * for ten minutes) but cost a read several times more to decode, and a block is sealed only
 * once its first sample is an hour old, so a longer one would keep older rows waiting.
 */
export const BLOCK_MS = 10 * MINUTE_MS
/** `kinds` bit of a row whose rest texts live in its block (a rest column still set wins: a part added later) */
export const SEALED_BIT = 4
/**
 * Decoded blocks kept at hand between reads (a history page spans one or two; a chart of a day
 * asks 360 evenly spread samples, one query each, walking forward through 144 blocks).
 */
const READ_CACHE = 8

export const blockStart = (ts: number) => Math.floor(ts / BLOCK_MS) * BLOCK_MS

/** A row the sealing job moves into its block. */
interface UnsealedRow {
  id: number
  hw_rest: string | null
  net_rest: string | null
}

function build(sqlite: Database) {
  const get = sqlite.query<{ data: Uint8Array }, [number, number]>('SELECT data FROM metric_blocks WHERE device_seq = ? AND start = ?')
  const put = sqlite.query('INSERT OR REPLACE INTO metric_blocks (device_seq, start, data) VALUES (?, ?, ?)')
  const unsealed = sqlite.query<UnsealedRow, [number, number, number]>(
    `SELECT id, hw_rest, net_rest FROM ${RAW_TABLE} WHERE device_seq = ? AND ts >= ? AND ts < ? AND (hw_rest IS NOT NULL OR net_rest IS NOT NULL)`,
  )
  const firstUnsealed = sqlite.query<{ ts: number }, [number, number, number]>(
    `SELECT ts FROM ${RAW_TABLE} WHERE device_seq = ? AND ts >= ? AND ts < ? AND (hw_rest IS NOT NULL OR net_rest IS NOT NULL) ORDER BY ts LIMIT 1`,
  )
  const seal = sqlite.query(
    `UPDATE ${RAW_TABLE} SET hw_rest = NULL, net_rest = NULL, kinds = kinds | ${SEALED_BIT} WHERE id IN (SELECT value FROM json_each(?))`,
  )
  const prune = sqlite.query<never, [number]>(`DELETE FROM metric_blocks WHERE start + ${BLOCK_MS} <= ?`)
  const stats = sqlite.query<{ n: number; bytes: number | null }, []>('SELECT count(*) AS n, sum(length(data)) AS bytes FROM metric_blocks')

  /** decoded blocks by device and start, each with the hash of the bytes it was decoded from */
  const cache = new Map<string, { hash: number | bigint; block: DecodedBlock }>()
  const decoded = (seq: number, start: number): DecodedBlock | null => {
    const row = get.get(seq, start)
    if (!row) return null
    const key = `${seq}:${start}`
    const hash = Bun.hash(row.data)
    const hit = cache.get(key)
    // a block sealed again with late data has other bytes: never served stale
    if (hit && hit.hash === hash) {
      cache.delete(key)
      cache.set(key, hit)
      return hit.block
    }
    const block = decodeBlock(row.data)
    if (cache.size >= READ_CACHE) cache.delete(cache.keys().next().value!)
    cache.set(key, { hash, block })
    return block
  }

  /** Moves a block's unsealed rows into it, in one transaction; returns how many rows moved. */
  const sealBlock = (seq: number, start: number): number => {
    const rows = unsealed.all(seq, start, start + BLOCK_MS)
    if (!rows.length) return 0
    const entries = new Map<string, BlockEntry>()
    const old = get.get(seq, start)
    // late samples and parts join the block: what it already holds is decoded and encoded again with them
    if (old) for (const e of decodeBlock(old.data).entries()) entries.set(`${e.id}:${e.kind}`, e)
    for (const r of rows) {
      if (r.hw_rest !== null) entries.set(`${r.id}:hardware`, { id: r.id, kind: 'hardware', text: r.hw_rest })
      if (r.net_rest !== null) entries.set(`${r.id}:network`, { id: r.id, kind: 'network', text: r.net_rest })
    }
    const data = encodeBlock([...entries.values()])
    sqlite.transaction(() => {
      put.run(seq, start, data)
      seal.run(JSON.stringify(rows.map((r) => r.id)))
    })()
    return rows.length
  }

  return {
    sealBlock,
    /** the time of the device's oldest row still to seal in [from, to), or null */
    firstUnsealed: (seq: number, from: number, to: number): number | null => firstUnsealed.get(seq, from, to)?.ts ?? null,
    /** drops the blocks wholly before `cutoff` (their rows are gone with raw retention) */
    prune: (cutoff: number) => prune.run(cutoff).changes,
    /** blocks stored and their bytes */
    stats: () => {
      const s = stats.get()!
      return { blocks: s.n, bytes: s.bytes ?? 0 }
    },
    /** For one read of a device: the rest text of a sealed row's part (null when it had none). */
    reader(seq: number) {
      return (id: number, ts: number, kind: MetricKind): string | null => decoded(seq, blockStart(ts))?.text(id, kind) ?? null
    },
  }
}

export type BlockStore = ReturnType<typeof build>
/** One store (prepared statements) per database connection. */
export const createBlockStore: (sqlite: Database) => BlockStore = perConnection(build)
