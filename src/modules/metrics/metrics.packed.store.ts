import type { Database, Statement } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { packedTable, tierColumns, tierTable, type MetricKind } from './metrics.fields'
import { decodeSpan, encodeSpan, KEY_DEVICES, packedKey, SPAN_MS, spanMinutes, spanOf } from './metrics.packed'

/** A row of the 1-minute tier as the reads and the rollups take it: [bucket, n, ...tierColumns] (or the columns picked). */
type Row = (number | null)[]

/** Coded rows deleted per statement, as PRUNE_BATCH rows of the other tiers. */
const PRUNE_SPANS = 5_000

/**
 * SQLite's 1-minute tier: coded rows of ten minutes (metrics.packed.ts) in time order (packedKey),
 * and the rows of the earlier form (`metric_hw_1m`, `metric_net_1m`, keyed (device, minute)),
 * which an upgraded hub keeps reading until retention or the disk budget prunes them. A minute
 * held in both (a late sample re-rolled after the upgrade) is read from its coded row, the newer.
 * Every write goes through the rollup job's and the pruning's own transactions.
 */
function build(sqlite: Database) {
  const kinds = {} as Record<MetricKind, ReturnType<typeof statements>>
  function statements(kind: MetricKind) {
    const packed = packedTable(kind)
    const rows = tierTable(kind, '1m')
    const cols = ['n', ...tierColumns(kind)]
    const seqIn = 'device_seq IN (SELECT value FROM json_each(?3))'
    return {
      cols: cols.length,
      // one rowid seek per span, ?2 to ?3 the spans' numbers (the table is in time order: a range on device would read every device's rows)
      spansOf: sqlite.prepare<never, [number, number, number]>(
        `WITH RECURSIVE s(i) AS (SELECT ?2 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?3)
         SELECT p.span, p.data FROM s CROSS JOIN ${packed} p ON p.key = s.i * ${KEY_DEVICES} + ?1`,
      ),
      // a range of keys: every device's spans in a range of time
      spansIn: sqlite.prepare<never, [number, number, string]>(
        `SELECT device_seq, span, data FROM ${packed} WHERE key >= ?1 AND key < ?2 AND ${seqIn} ORDER BY device_seq, span`,
      ),
      rowsOf: sqlite.prepare<never, [number, number, number]>(
        `SELECT bucket, ${cols.join(', ')} FROM ${rows} WHERE device_seq = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`,
      ),
      rowsIn: sqlite.prepare<never, [number, number, string]>(
        `SELECT device_seq, bucket, ${cols.join(', ')} FROM ${rows} WHERE bucket >= ?1 AND bucket < ?2 AND ${seqIn} ORDER BY device_seq, bucket`,
      ),
      get: sqlite.prepare<{ data: Uint8Array }, [number]>(`SELECT data FROM ${packed} WHERE key = ?`),
      put: sqlite.prepare(`INSERT INTO ${packed} (key, span, device_seq, data) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET data = excluded.data`),
      drop: sqlite.prepare(`DELETE FROM ${packed} WHERE key = ?`),
      // the oldest span of these devices: the table is in time order, so the first match
      oldestSpan: sqlite.prepare<{ span: number; data: Uint8Array }, [string]>(
        `SELECT span, data FROM ${packed} WHERE device_seq IN (SELECT value FROM json_each(?)) ORDER BY key LIMIT 1`,
      ),
      newestSpan: sqlite.prepare<{ span: number; data: Uint8Array }, [string]>(
        `SELECT span, data FROM ${packed} WHERE device_seq IN (SELECT value FROM json_each(?)) ORDER BY key DESC LIMIT 1`,
      ),
      newestRow: sqlite.prepare<{ t: number | null }, [string]>(
        `SELECT max((SELECT bucket FROM ${rows} WHERE device_seq = d.value ORDER BY bucket DESC LIMIT 1)) AS t FROM json_each(?) d`,
      ),
      oldestRow: sqlite.prepare<{ t: number | null }, [string]>(
        `SELECT min((SELECT bucket FROM ${rows} WHERE device_seq = d.value ORDER BY bucket LIMIT 1)) AS t FROM json_each(?) d`,
      ),
      pruneSpans: sqlite.prepare<{ span: number; data: Uint8Array }, [number, string]>(
        `DELETE FROM ${packed} WHERE key IN
         (SELECT key FROM ${packed} WHERE key < ?1 AND device_seq IN (SELECT value FROM json_each(?2)) LIMIT ${PRUNE_SPANS})
         RETURNING span, data`,
      ),
      edge: sqlite.prepare<{ device_seq: number; data: Uint8Array }, [number, string]>(
        `SELECT device_seq, data FROM ${packed} WHERE key >= ?1 AND key < ?1 + ${KEY_DEVICES} AND device_seq IN (SELECT value FROM json_each(?2))`,
      ),
      pruneRows: sqlite.prepare(
        `DELETE FROM ${rows} WHERE rowid IN (SELECT rowid FROM ${rows} WHERE device_seq IN (SELECT value FROM json_each(?2)) AND bucket < ?1 LIMIT ${PRUNE_SPANS})`,
      ),
    }
  }
  const of = (kind: MetricKind) => (kinds[kind] ??= statements(kind))
  /** an earlier form's row [bucket, ...values] with only the columns picked */
  const project = (r: Row, pick?: number[]) => (pick ? [r[0]!, ...pick.map((c) => r[1 + c]!)] : r)
  /** `coded` with the earlier form's minutes it lacks, by time (both sorted) */
  const merge = (coded: Row[], older: Row[], at: (r: Row) => number) => {
    if (!older.length) return coded
    const have = new Set(coded.map(at))
    return [...coded, ...older.filter((r) => !have.has(at(r)))].sort((a, b) => at(a) - at(b))
  }
  /**
   * The first or last minute of these devices held, or null: the further out (`further`) of the
   * coded one (`end` of the minutes of the span `span` finds) and the earlier form's (`row`).
   */
  const bound = (
    span: Statement<{ span: number; data: Uint8Array }, [string]>,
    row: Statement<{ t: number | null }, [string]>,
    seqs: number[],
    end: (minutes: number[]) => number | undefined,
    further: (...t: number[]) => number,
  ): number | null => {
    const list = JSON.stringify(seqs)
    const p = span.get(list)
    const found = [p ? end(spanMinutes(p.span, p.data)) : undefined, row.get(list)?.t].filter((t) => t != null)
    return found.length ? further(...found) : null
  }

  return {
    /**
     * One device's rows [bucket, n, ...tierColumns] (or [bucket, ...the values `pick` lists,
     * indexes into n and the tier's columns]) in [from, to), oldest first.
     */
    deviceRows(kind: MetricKind, seq: number, from: number, to: number, pick?: number[]): Row[] {
      const s = of(kind)
      const coded: Row[] = []
      for (const [span, data] of s.spansOf.values(seq, spanOf(from) / SPAN_MS, Math.ceil(to / SPAN_MS)) as [number, Uint8Array][])
        for (const r of decodeSpan(span, data, s.cols, pick, from, to)) coded.push(r)
      const older = (s.rowsOf.values(seq, from, to) as Row[]).map((r) => project(r, pick))
      return merge(coded, older, (r) => r[0]!)
    },
    /** These devices' rows [device, bucket, ...as deviceRows] in [from, to), by device, then time. */
    rowsIn(kind: MetricKind, seqs: number[], from: number, to: number, pick?: number[]): Row[] {
      const s = of(kind)
      const list = JSON.stringify(seqs)
      const coded = new Map<number, Row[]>()
      for (const [seq, span, data] of s.spansIn.values(packedKey(spanOf(from), 0), packedKey(Math.ceil(to / SPAN_MS) * SPAN_MS, 0), list) as [
        number,
        number,
        Uint8Array,
      ][]) {
        let rows = coded.get(seq)
        if (!rows) coded.set(seq, (rows = []))
        for (const r of decodeSpan(span, data, s.cols, pick, from, to)) rows.push(r)
      }
      const older = new Map<number, Row[]>()
      for (const r of s.rowsIn.values(from, to, list) as Row[]) {
        let rows = older.get(r[0]!)
        if (!rows) older.set(r[0]!, (rows = []))
        rows.push(project(r.slice(1), pick))
      }
      const out: Row[] = []
      for (const seq of [...new Set([...coded.keys(), ...older.keys()])].sort((a, b) => a - b))
        for (const r of merge(coded.get(seq) ?? [], older.get(seq) ?? [], (x) => x[0]!)) out.push([seq, ...r])
      return out
    },
    /**
     * Writes one device's rolled minutes (rows [bucket, n, ...tierColumns]) into their spans,
     * keeping the minutes of each span not among them; a span whose bytes do not change is not
     * written (the look-back rolls the last minute again at every run). Runs in the caller's
     * transaction.
     */
    write(kind: MetricKind, seq: number, rows: Row[]) {
      const s = of(kind)
      const bySpan = new Map<number, Map<number, Row>>()
      for (const r of rows) {
        const span = spanOf(r[0]!)
        let m = bySpan.get(span)
        if (!m) bySpan.set(span, (m = new Map()))
        m.set(r[0]!, r)
      }
      for (const [span, minutes] of bySpan) {
        const key = packedKey(span, seq)
        const old = s.get.get(key)?.data
        if (old) for (const r of decodeSpan(span, old, s.cols)) if (!minutes.has(r[0]!)) minutes.set(r[0]!, r)
        const data = encodeSpan(span, [...minutes.values()], s.cols)
        if (old && Buffer.from(old.buffer, old.byteOffset, old.byteLength).equals(data)) continue
        s.put.run(key, span, seq, data)
      }
    },
    /** the first minute of these devices held, or null */
    oldest(kind: MetricKind, seqs: number[]): number | null {
      const s = of(kind)
      return bound(s.oldestSpan, s.oldestRow, seqs, (m) => m[0], Math.min)
    },
    /** the last minute of these devices held, or null */
    newest(kind: MetricKind, seqs: number[]): number | null {
      const s = of(kind)
      return bound(s.newestSpan, s.newestRow, seqs, (m) => m.at(-1), Math.max)
    },
    /**
     * Deletes up to a batch of these devices' rows and spans before `cutoff`; returns how many
     * minutes went (at least a batch's worth while a batch was full). A span the cut-off falls
     * within keeps only its minutes from the cut-off on (once the batches ran dry), so the tier
     * holds what a row per minute would.
     */
    prune(kind: MetricKind, seqs: number[], cutoff: number): number {
      const s = of(kind)
      const list = JSON.stringify(seqs)
      const rows = s.pruneRows.run(cutoff, list).changes
      const spans = s.pruneSpans.all(packedKey(spanOf(cutoff), 0), list)
      let n = rows
      for (const p of spans) n += spanMinutes(p.span, p.data).length
      const edge = spanOf(cutoff)
      if (rows >= PRUNE_SPANS || spans.length >= PRUNE_SPANS || edge === cutoff) return n
      // the spans the cut-off falls within, in one transaction (not a commit, and its pages, per device)
      sqlite.transaction(() => {
        for (const { device_seq: seq, data } of s.edge.all(packedKey(edge, 0), list)) {
          const minutes = spanMinutes(edge, data)
          const kept = minutes.filter((m) => m >= cutoff).length
          if (kept === minutes.length) continue
          n += minutes.length - kept
          if (kept) s.put.run(packedKey(edge, seq), edge, seq, encodeSpan(edge, decodeSpan(edge, data, s.cols, undefined, cutoff), s.cols))
          else s.drop.run(packedKey(edge, seq))
        }
      })()
      return n
    },
  }
}

export type PackedStore = ReturnType<typeof build>
/** One store (prepared statements) per database connection. */
export const createPackedStore: (sqlite: Database) => PackedStore = perConnection(build)
