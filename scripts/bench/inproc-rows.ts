/**
 * What making a part's row costs on the real sample, and the alternatives measured for its rest:
 * `bun scripts/bench/inproc-rows.ts [sample.json]` (the sample `dist/vigil agent --once` prints,
 * or the file given). Per sample (both parts), JSON.parse's own time taken out; every
 * alternative is checked to give the same text first.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIELDS, type MetricKind } from '../../src/modules/metrics/metrics.fields'
import { toSampleRow } from '../../src/modules/metrics/metrics.rows'
import { realSample } from './storage-samples'

const file = process.argv[2]
const sample = file ? JSON.parse(readFileSync(file, 'utf8')) : await realSample(join(import.meta.dir, '../../dist/vigil'))
const text = JSON.stringify(sample)
type Part = Record<string, unknown>

const HOT = { hardware: new Set(FIELDS.hardware.map((f) => f.name)), network: new Set(FIELDS.network.map((f) => f.name)) }
const SKIP: Record<MetricKind, Record<string, true>> = { hardware: Object.create(null), network: Object.create(null) }
for (const k of ['hardware', 'network'] as const) for (const n of [...HOT[k], 'device_id', 'recorded_at']) SKIP[k][n] = true

const ALTERNATIVES: Record<string, (kind: MetricKind, part: Part) => unknown> = {
  'the rest as an object, serialised (a Set per kind)': (kind, part) => {
    let rest: Part | null = null
    for (const k in part) if (part[k] !== undefined && !HOT[kind].has(k) && k !== 'device_id' && k !== 'recorded_at') (rest ??= {})[k] = part[k]
    return rest && JSON.stringify(rest)
  },
  'the same, one lookup per key': (kind, part) => {
    let rest: Part | null = null
    for (const k in part) if (part[k] !== undefined && !SKIP[kind][k]) (rest ??= {})[k] = part[k]
    return rest && JSON.stringify(rest)
  },
  'each member serialised apart and joined': (kind, part) => {
    let out = ''
    for (const k in part) if (part[k] !== undefined && !SKIP[kind][k]) out += `${out ? ',' : '{'}${JSON.stringify(k)}:${JSON.stringify(part[k])}`
    return out ? `${out}}` : null
  },
  'the whole part serialised, hot fields included (not the same text)': (_, part) => JSON.stringify(part),
  'the whole row (toSampleRow)': (kind, part) => toSampleRow(kind, part, 0).rest,
}

const check = JSON.parse(text)
for (const [name, fn] of Object.entries(ALTERNATIVES).slice(0, 3))
  for (const kind of ['hardware', 'network'] as const)
    if (fn(kind, check[kind]) !== toSampleRow(kind, check[kind], 0).rest) throw new Error(`${name}: not the same text`)

const N = 10_000
const ROUNDS = 7
/** one round of an alternative: µs per sample, JSON.parse's own time taken out */
const round = (fn: (kind: MetricKind, part: Part) => unknown) => {
  const t0 = performance.now()
  for (let i = 0; i < N; i++) {
    const s = JSON.parse(text)
    fn('hardware', s.hardware)
    fn('network', s.network)
  }
  const t1 = performance.now()
  for (let i = 0; i < N; i++) JSON.parse(text)
  const t2 = performance.now()
  return ((t1 - t0 - (t2 - t1)) * 1000) / N
}
// the alternatives take turns, round after round, so none is measured warmer than the others
const times = Object.keys(ALTERNATIVES).map(() => [] as number[])
const fns = Object.values(ALTERNATIVES)
for (let r = 0; r < ROUNDS; r++) for (let a = 0; a < fns.length; a++) times[a]!.push(round(fns[a]!))
console.log(`body ${text.length} B, median of ${ROUNDS} rounds of ${N}, taking turns`)
Object.keys(ALTERNATIVES).forEach((name, a) => {
  const t = times[a]!.sort((x, y) => x - y)
  console.log(`${t[ROUNDS >> 1]!.toFixed(2).padStart(6)} µs  ${name}`)
})
