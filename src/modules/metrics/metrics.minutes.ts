import { KIND_BIT, MINUTE_MS, type MetricKind } from './metrics.fields'
import type { KindMinutes, NestedMinutes, PackedMinutes } from './metrics.minutes.codec'
import { NESTED_FAMILIES, extractFamily } from './metrics.nested'

/**
 * The nested families of a block's samples, per minute, kept beside the block (metric_nested)
 * when it is sealed, so a chart of nested families over a day never decodes a block.
 *
 * A chart over a long range reads evenly spread samples: the first sample of each slot of whole
 * minutes (metrics.series.ts). So per kind and minute this keeps what that read would take
 * from the minute's first sample carrying the kind: its time, and per family the series it
 * expands into, in the order extractFamily emits them (a chart tracks series in that order).
 * Feeding those to a chart gives the very answer the sample's text gives.
 */

/** A sealed sample as the block sees it. */
export interface MinuteSample {
  ts: number
  kinds: number
  /** its rest text per kind (null: none) */
  rest: Record<MetricKind, string | null>
}

const KINDS: MetricKind[] = ['hardware', 'network']

/** The minutes' first samples of each kind in `samples` (any order), with their series. */
export function nestedMinutes(samples: MinuteSample[]): NestedMinutes {
  const sorted = [...samples].sort((a, b) => a.ts - b.ts)
  const names: string[] = []
  const index = new Map<string, number>()
  const out: NestedMinutes = { names, kinds: { hardware: [], network: [] } }
  for (const kind of KINDS) {
    let minute = Number.NaN
    for (const s of sorted) {
      if (!(s.kinds & KIND_BIT[kind])) continue
      const m = Math.floor(s.ts / MINUTE_MS)
      if (m === minute) continue
      minute = m
      const rest = s.rest[kind]
      const parsed = rest === null ? null : (JSON.parse(rest) as Record<string, unknown>)
      const families = NESTED_FAMILIES[kind].map((family) => {
        const v = parsed?.[family]
        if (v === undefined) return null
        const pairs: number[] = []
        extractFamily(family, v, (name, value) => {
          let i = index.get(name)
          if (i === undefined) index.set(name, (i = names.push(name) - 1))
          pairs.push(i, value)
        })
        return pairs
      })
      out.kinds[kind].push({ ts: s.ts, families })
    }
  }
  return out
}

/** One block's minutes, decoded only when asked for (a chart over a long range needs one block in a few). */
export interface BlockMinutes {
  start: number
  /** the block's end: each of its minutes is before it */
  end: number
  minutes(): PackedMinutes
}

/**
 * The first minute of `kind` in each slot [lo, hi) asked for, slots in time order, over blocks in
 * time order: what the first sample of each slot gives (metrics.series.ts). Only the block holding
 * `lo` is decoded, and the ones after it only while the slot reaches into them and no minute of it
 * came yet, so a chart of a month, a slot an hour, decodes one block in six.
 */
export function firstMinutes(blocks: BlockMinutes[], kind: MetricKind) {
  let b = 0
  let e = 0
  let minutes: KindMinutes | null = null
  let names: string[] = []
  return (lo: number, hi: number): { minutes: KindMinutes; e: number; names: string[] } | undefined => {
    while (b < blocks.length && blocks[b]!.start < hi) {
      const block = blocks[b]!
      if (block.end > lo) {
        if (!minutes) {
          const m = block.minutes()
          minutes = m.kinds[kind]
          names = m.names
          e = 0
        }
        const ts = minutes.ts
        while (e < ts.length && ts[e]! < lo) e++
        if (e < ts.length) return ts[e]! < hi ? { minutes, e, names } : undefined
      }
      b++
      minutes = null
    }
    return undefined
  }
}
