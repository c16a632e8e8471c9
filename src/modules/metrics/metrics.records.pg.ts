import type { SQL } from 'bun'
import { decodeHot, encodeHot, type HotPart } from './metrics.hot'
import type { MetricKind } from './metrics.fields'
import { REFS, dayOf } from '../../db/pg/metrics.partitions'

/** Reference texts kept per hub; past this many the cache starts over (one per device and day). */
const MAX_REFS = 20_000

/**
 * The compact records of samples on PostgreSQL (see db/pg/metrics.partitions.ts): each record is
 * coded with metrics.hot.ts's codec against its device's reference of the day, the text of the
 * first record a hub wrote for that device that day. Of two hubs making a day's reference at once,
 * the first INSERT wins and both code against it. References never change once written, so a
 * hub keeps those it has seen without hearing from the others.
 */
export function createRecordCodec() {
  const refs = new Map<string, Uint8Array>()
  const keep = (key: string, ref: Uint8Array) => {
    if (refs.size >= MAX_REFS) refs.clear()
    refs.set(key, ref)
  }
  return withRefs(refs, keep, (into) => ({
    /**
     * A write's view of the references: those it reads or makes inside its transaction are its
     * own until `commit` (a reference of a transaction rolled back was never there, and another
     * hub may make that day's reference with another text).
     */
    scope() {
      const pending = new Map<string, Uint8Array>()
      const lookup = (key: string) => refs.get(key) ?? pending.get(key)
      return {
        ...withRefs(
          { get: lookup, has: (key: string) => lookup(key) !== undefined },
          (key, ref) => void pending.set(key, ref),
          () => ({}),
        ),
        /** the transaction committed: its references are everyone's */
        commit() {
          for (const [key, ref] of pending) into(key, ref)
        },
      }
    },
  }))
}

type RefMap = Pick<Map<string, Uint8Array>, 'get' | 'has'>

/** The reads, writes and coding of records over one map of references (`extra`: what the caller adds). */
function withRefs<X>(refs: RefMap, keep: (key: string, ref: Uint8Array) => void, extra: (into: (key: string, ref: Uint8Array) => void) => X) {
  const keyOf = (seq: number, day: number) => `${seq}:${day}`

  /** the references of these (device, day) pairs, read or made in `tx` (the write's transaction) */
  async function refsFor(tx: SQL, wanted: { seq: number; day: number; parts: HotPart[] }[]): Promise<void> {
    const missing = new Map<string, { seq: number; day: number; parts: HotPart[] }>()
    for (const w of wanted) if (!refs.has(keyOf(w.seq, w.day))) missing.set(keyOf(w.seq, w.day), w)
    if (!missing.size) return
    const list = [...missing.values()]
    const params: unknown[] = []
    const values = list.map((m) => {
      params.push(m.seq, m.day, encodeHot(restOnly(m.parts), null).ref)
      return `($${params.length - 2}::int8, $${params.length - 1}::int8, $${params.length}::bytea)`
    })
    await tx.unsafe(`INSERT INTO ${REFS} (device_seq, day, ref) VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`, params)
    await readRefs(tx, list)
  }

  /** reads the references of these (device, day) pairs into the map */
  async function readRefs(sql: SQL, list: { seq: number; day: number }[]) {
    const rows: { device_seq: string; day: string; ref: Uint8Array }[] = await sql`SELECT device_seq, day, ref FROM metric_record_refs
      WHERE (device_seq, day) IN (SELECT * FROM unnest(${sql.array(
        list.map((l) => l.seq),
        'int8',
      )}::int8[], ${sql.array(
        list.map((l) => l.day),
        'int8',
      )}::int8[]))`
    for (const r of rows) keep(keyOf(Number(r.device_seq), Number(r.day)), new Uint8Array(r.ref))
  }

  /** the references of stored records about to be decoded */
  async function refsOf(sql: SQL, pairs: { seq: number; ts: number }[]): Promise<void> {
    const missing = new Map<string, { seq: number; day: number }>()
    for (const p of pairs) {
      const day = dayOf(p.ts)
      const key = keyOf(p.seq, day)
      if (!refs.has(key)) missing.set(key, { seq: p.seq, day })
    }
    if (missing.size) await readRefs(sql, [...missing.values()])
  }

  return {
    ...extra(keep),
    refsFor,
    refsOf,
    /** a record of these parts' texts (hot values stay in their columns); null when no part has one */
    encode(seq: number, ts: number, parts: HotPart[]): Uint8Array | null {
      if (parts.every((p) => p.rest === null)) return null
      return encodeHot(restOnly(parts), refs.get(keyOf(seq, dayOf(ts))) ?? null).data
    },
    /** each part's text of a stored record (refsOf read its reference first) */
    decode(seq: number, ts: number, rec: Uint8Array | null): Partial<Record<MetricKind, string | null>> {
      if (!rec) return {}
      const out: Partial<Record<MetricKind, string | null>> = {}
      for (const p of decodeHot(rec, refs.get(keyOf(seq, dayOf(ts))) ?? null).parts) out[p.kind] = p.rest
      return out
    },
  }
}

/** the parts without their hot values: those are columns of their own */
const restOnly = (parts: HotPart[]): HotPart[] => parts.map((p) => ({ kind: p.kind, values: [], rest: p.rest }))

export type RecordCodec = ReturnType<typeof createRecordCodec>
