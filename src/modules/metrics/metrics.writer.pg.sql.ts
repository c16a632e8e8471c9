import type { SQL } from 'bun'
import { FIELDS, KIND_BIT, type MetricKind } from './metrics.fields'
import type { HotPart } from './metrics.hot'
import type { RecordCodec } from './metrics.records.pg'
import { RECORDS, dayOf } from '../../db/pg/metrics.partitions'
import type { Pending } from './metrics.group-commit'

/* The rows of the PostgreSQL group commit (metrics.writer.pg.ts): what it inserts, reads under FOR UPDATE and updates. */

/** the reference records of one group's transaction (metrics.records.pg.ts) */
export type Refs = ReturnType<RecordCodec['scope']>

/** One row to write: a sample's parts of one time (a batch's two parts share it). */
export interface Slot {
  p: Pending
  seq: number
  ts: number
  stamped: boolean
  /** indexes into the job's samples */
  idx: number[]
}

const HW = FIELDS.hardware.map((f) => f.name)
const NET = FIELDS.network.map((f) => f.name)
export const COLS = ['device_seq', 'ts', 'kinds', ...HW, ...NET, 'rec']

/** the parts of a slot as records and columns take them */
export const partsOf = (s: Slot): HotPart[] =>
  s.idx.map((i) => {
    const x = s.p.job.samples[i]!
    return { kind: x.kind, values: x.values, rest: x.rest }
  })

/** a new row's parameters, in COLS order */
export function rowParams(s: Slot, kinds: number, parts: HotPart[], params: unknown[], refs: Refs) {
  const hw = parts.find((x) => x.kind === 'hardware')
  const net = parts.find((x) => x.kind === 'network')
  params.push(s.seq, s.ts, kinds)
  for (let i = 0; i < HW.length; i++) params.push(hw ? hw.values[i] : null)
  for (let i = 0; i < NET.length; i++) params.push(net ? net.values[i] : null)
  params.push(refs.encode(s.seq, s.ts, parts))
}

/** the stored rows of these slots' times, locked: [id, kinds, rec] by "seq:ts" */
export async function existing(tx: SQL, slots: Slot[]) {
  const rows: [string, string, string, number, Uint8Array | null][] = await tx`
    SELECT device_seq, ts, id, kinds, rec FROM metric_records
    WHERE (device_seq, ts) IN (SELECT * FROM unnest(${tx.array(
      slots.map((s) => s.seq),
      'int8',
    )}::int8[], ${tx.array(
      slots.map((s) => s.ts),
      'int8',
    )}::int8[]))
    FOR UPDATE`.values()
  return new Map(rows.map((r) => [`${r[0]}:${r[1]}`, { id: Number(r[2]), kinds: Number(r[3]), rec: r[4] }]))
}

/** a part added to a stored sample (late data, or the other part sent apart): its columns and its text join the row */
export async function addParts(tx: SQL, s: Slot, e: { id: number; kinds: number; rec: Uint8Array | null }, added: HotPart[], refs: Refs) {
  await refs.refsOf(tx, [{ seq: s.seq, ts: s.ts }])
  const had = refs.decode(s.seq, s.ts, e.rec ? new Uint8Array(e.rec) : null)
  const parts: HotPart[] = (['hardware', 'network'] as MetricKind[])
    .filter((k) => e.kinds & KIND_BIT[k])
    .map((k) => ({ kind: k, values: [], rest: had[k] ?? null }))
  parts.push(...added)
  await refs.refsFor(tx, [{ seq: s.seq, day: dayOf(s.ts), parts }])
  const sets: string[] = []
  const params: unknown[] = []
  for (const x of added) {
    const names = x.kind === 'hardware' ? HW : NET
    names.forEach((n, i) => {
      params.push(x.values[i])
      sets.push(`${n} = $${params.length}`)
    })
  }
  params.push(
    added.reduce((k, x) => k | KIND_BIT[x.kind], e.kinds),
    refs.encode(s.seq, s.ts, parts),
    s.seq,
    s.ts,
  )
  const n = params.length
  await tx.unsafe(`UPDATE ${RECORDS} SET ${sets.join(', ')}, kinds = $${n - 3}, rec = $${n - 2} WHERE device_seq = $${n - 1} AND ts = $${n}`, params)
}
