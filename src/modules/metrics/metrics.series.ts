import { RequestValidationError } from '../../http/input'
import { toIso } from '../../lib/clock'
import {
  autoLevel,
  estimatePoints,
  gapThreshold,
  levelWidth,
  MAX_NESTED_POINTS,
  MAX_POINTS,
  medianGap,
  mergeColumns,
  SeriesBuilder,
  withGaps,
  type Columns,
} from './metrics.buckets'
import { FIELDS, HOUR_MS, LEVEL, MINUTE_MS, levelName, TIERS, type MetricKind } from './metrics.fields'
import { extractFamily, MAX_KEYS_PER_FAMILY, NESTED_FAMILIES } from './metrics.nested'
import { firstMinutes } from './metrics.minutes'
import type { KindMinutes } from './metrics.minutes.codec'
import type { SeriesQuery, SeriesResponse } from './metrics.series.model'
import { dueUntil, tierTail } from './metrics.rollup.tail'
import type { SeriesReads } from './metrics.series.reads'
import { stepsAwait } from './metrics.steps'
import type { MetricsDeps } from './metrics.service'

/**
 * Raw samples whose nested parts one answer reads at most at a tier resolution (each is a page
 * read, see MAX_NESTED_POINTS): about one per point of an `auto` chart. A wider range is
 * sampled: evenly spread samples per bucket (the first of each slot), so a week of a 10-second
 * device costs the same as a day. Hot fields never are: those come whole from the rollup tiers.
 */
export const MAX_NESTED_SAMPLES = 360
/** A bound on the raw rows completing a tier whose rollup lags far behind (it catches up within minutes). */
const MAX_RAW_EDGE = 100_000

export type SeriesDeps = Pick<MetricsDeps, 'reads' | 'seriesReads' | 'clock' | 'devices' | 'retentionMs'>

const refuse = (param: string, msg: string): never => {
  throw new RequestValidationError([{ loc: ['query', param], msg, type: 'value_error' }])
}

/** The requested names split into hot fields (in FIELDS order, so statements are shared) and nested families. */
export function parseFields(kind: MetricKind, list: string): { hot: string[]; families: string[] } {
  const names = new Set(
    list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  const families = NESTED_FAMILIES[kind].filter((f) => names.has(f))
  const hot = FIELDS[kind].map((f) => f.name).filter((f) => names.has(f))
  const unknown = [...names].filter((n) => !hot.includes(n) && !families.includes(n))
  if (unknown.length || !names.size) {
    refuse(
      'fields',
      `${unknown.length ? `Unknown ${kind} field ${unknown.join(', ')}. ` : 'Name at least one field. '}` +
        `Fields: ${FIELDS[kind].map((f) => f.name).join(', ')}; families: ${NESTED_FAMILIES[kind].join(', ')}`,
    )
  }
  return { hot, families }
}

/**
 * One device's series over a range, as columns a chart takes as they are. Hot fields come from
 * the chosen rollup tier, completed by the finer levels (down to raw samples) for the part the
 * tier has not rolled up yet, so the right edge is current; nested families from raw samples'
 * JSON. A gap longer than ~2 steps gets a null point.
 */
export async function deviceSeries(deps: SeriesDeps, clientId: string, deviceId: string, q: SeriesQuery): Promise<SeriesResponse> {
  const device = await deps.devices.ref(clientId, deviceId)
  const kind = q.kind
  const { hot, families } = parseFields(kind, q.fields)
  const now = deps.clock.now()
  const to = q.end ? Date.parse(q.end) : now
  const from = q.start ? Date.parse(q.start) : to - HOUR_MS
  if (from >= to) refuse('start', 'start must be before end')

  const interval = medianGap(await deps.seriesReads.recentTimes(device.seq))
  const maxPoints = families.length ? MAX_NESTED_POINTS : MAX_POINTS
  const level = q.resolution === 'auto' ? autoLevel({ from, to, now, intervalMs: interval, retentionMs: deps.retentionMs, maxPoints }) : LEVEL[q.resolution]
  const points = estimatePoints(level, from, to, interval)
  if (points > maxPoints) {
    refuse(
      'resolution',
      `${levelName(level)} over this range gives about ${points} points; at most ${maxPoints}${families.length ? ' with nested families' : ''}: ` +
        'choose a coarser resolution or a shorter range',
    )
  }
  const width = levelWidth(level)
  const oldestRaw = await deps.reads.oldestTs(kind, device.seq)
  let cols: Columns
  if (level === LEVEL.raw) {
    cols = await rawPoints(deps.seriesReads, kind, hot, families, device.seq, from, to, maxPoints)
  } else {
    const start = Math.floor(from / width) * width
    cols = await tierBuckets(deps, kind, hot, device.seq, level, start, to)
    if (families.length && oldestRaw !== null) {
      cols = mergeColumns(cols, await nestedBuckets(deps.seriesReads, kind, families, device.seq, width, Math.max(start, oldestRaw), to, interval))
    }
  }
  const step = width || interval || 0
  cols = withGaps(cols, gapThreshold(step, interval), step)
  const raw = level === LEVEL.raw
  return {
    device_id: device.id,
    kind,
    resolution: levelName(level),
    step_seconds: step / 1000,
    start: toIso(from),
    end: toIso(to),
    t: cols.t.map((x) => x / 1000),
    values: cols.values,
    min: raw ? {} : cols.min,
    max: raw ? {} : cols.max,
    raw_from: oldestRaw === null ? null : toIso(oldestRaw),
  }
}

/**
 * Adds each family's series of one sample at the builder's current point: from its JSON text per
 * family (`row`), or from the series a sealed minute kept of it (`minute`), which emit the same.
 */
function nestedFeeder(b: SeriesBuilder, families: string[]) {
  const perFamily = new Map<string, number>()
  const ids = new Map<string, number>()
  let family = ''
  const emit = (name: string, v: number) => {
    let i = ids.get(name)
    if (i === undefined) {
      const n = perFamily.get(family) ?? 0
      if (n >= MAX_KEYS_PER_FAMILY) return
      perFamily.set(family, n + 1)
      i = b.track(name)
      ids.set(name, i)
    }
    b.add(i, v)
  }
  return {
    row(row: unknown[], offset: number) {
      for (let f = 0; f < families.length; f++) {
        const text = row[offset + f]
        if (typeof text !== 'string') continue
        family = families[f]!
        extractFamily(family, JSON.parse(text), emit)
      }
    },
    /** minute `e` of a block's `minutes`; `at`: each requested family's place in NESTED_FAMILIES (the minute's order) */
    minute(minutes: KindMinutes, e: number, names: string[], at: number[]) {
      for (let f = 0; f < families.length; f++) {
        // a family added after the block was sealed: none of its series there
        if (at[f]! >= minutes.families) continue
        const i = e * minutes.families + at[f]!
        family = families[f]!
        for (let k = minutes.at[i]!; k < minutes.at[i + 1]!; k++) emit(names[minutes.name[k]!]!, minutes.value[k]!)
      }
    },
  }
}

/** Raw resolution: every sample is a point (at most maxPoints, else 422). */
async function rawPoints(
  store: SeriesReads,
  kind: MetricKind,
  hot: string[],
  families: string[],
  seq: number,
  from: number,
  to: number,
  maxPoints: number,
): Promise<Columns> {
  const rows = await store.rawRows(kind, hot, families, seq, from, to, maxPoints + 1)
  if (rows.length > maxPoints) refuse('resolution', `raw over this range gives more than ${maxPoints} points: choose a coarser resolution or a shorter range`)
  const b = new SeriesBuilder(0, hot)
  const nested = nestedFeeder(b, families)
  const F = hot.length
  for (const row of rows) {
    b.at(row[0] as number)
    for (let i = 0; i < F; i++) {
      const v = row[i + 1]
      if (v !== null) b.add(i, v as number)
    }
    if (families.length) nested.row(row, F + 1)
  }
  return b.finish()
}

/**
 * Hot fields in buckets of `level` over [start, to) (start on a bucket bound): the tier's rows
 * up to where it is rolled up, then each finer level's up to where it is, then raw samples:
 * the levels nest (a 1h bucket is six 10m buckets), so the buckets are exact.
 */
async function tierBuckets(deps: SeriesDeps, kind: MetricKind, hot: string[], seq: number, level: number, start: number, to: number): Promise<Columns> {
  const b = new SeriesBuilder(levelWidth(level), hot)
  if (!hot.length) return b.finish()
  const done = await deps.reads.doneUntil(kind)
  // what a run of the rollup every minute would have rolled: the stored tier's rows up to its own
  // mark, then the buckets it rolls in its next span, from the levels below (metrics.rollup.tail.ts)
  const due = dueUntil(deps.clock.now())
  const F = hot.length
  const take = (rows: (number | null)[][], at: number[]) => {
    for (const row of rows) {
      b.at(row[0]!)
      for (let i = 0; i < F; i++) {
        const o = at[i]!
        const avg = row[o]
        const n = row[o + 3]
        if (avg !== null && avg !== undefined && n) b.addAggregate(i, avg, n, row[o + 1]!, row[o + 2]!)
      }
    }
  }
  const selected = hot.map((_, i) => 1 + i * 4)
  // a completed row has every column ([bucket, n, ...tierColumns]): each field's avg at 2 + 4 × its place
  const whole = hot.map((f) => 2 + 4 * FIELDS[kind].findIndex((x) => x.name === f))
  let a = start
  for (let lv = level; lv > LEVEL.raw && a < to; lv--) {
    const tier = TIERS[lv - 1]!
    const e = Math.min(to, done[tier.name])
    if (e > a) {
      take(await deps.seriesReads.tierRows(kind, tier.name, hot, seq, a, e), selected)
      a = e
    }
    const d = Math.min(to, due[tier.name])
    if (d > a) {
      take(await stepsAwait(tierTail(kind, lv, seq, a, Math.ceil(d / tier.ms) * tier.ms, done), deps.reads), whole)
      a = d
    }
  }
  if (a < to) {
    for (const row of await deps.seriesReads.rawRows(kind, hot, [], seq, a, to, MAX_RAW_EDGE)) {
      b.at(row[0] as number)
      for (let i = 0; i < F; i++) {
        const v = row[i + 1]
        if (v !== null) b.add(i, v as number)
      }
    }
  }
  return b.finish()
}

/**
 * How many slots a bucket of `width` is cut into when its samples are too many to read: at most
 * `most`, and for a bucket of whole minutes a number that cuts it into whole minutes, at least one
 * each, so each slot's first sample, once sealed, comes from the minutes kept beside its block
 * (metrics.minutes.ts) instead of a block decoded for one sample. A day's chart of a device that
 * had sent four hours took 15 slots of 40 s in each 10-minute bucket and decoded a block for each:
 * about 50 ms a read, where a device with a month of samples takes 2 ms.
 */
export function slotsPerBucket(width: number, most: number): number {
  if (width % MINUTE_MS !== 0) return most
  const minutes = width / MINUTE_MS
  for (let n = Math.min(most, minutes); n > 1; n--) if (minutes % n === 0) return n
  return 1
}

/**
 * Nested families in buckets of `width` from raw samples in [from, to): all of them when they
 * are at most MAX_NESTED_SAMPLES, else evenly spread ones (see MAX_NESTED_SAMPLES).
 */
async function nestedBuckets(
  store: SeriesReads,
  kind: MetricKind,
  families: string[],
  seq: number,
  width: number,
  from: number,
  to: number,
  interval: number | null,
): Promise<Columns> {
  const b = new SeriesBuilder(width)
  const feed = nestedFeeder(b, families)
  const take = (rows: unknown[][]) => {
    for (const row of rows) {
      b.at(row[0] as number)
      feed.row(row, 1)
    }
  }
  if (from >= to) return b.finish()
  const rows =
    estimatePoints(LEVEL.raw, from, to, interval) <= MAX_NESTED_SAMPLES ? await store.rawRows(kind, [], families, seq, from, to, MAX_NESTED_SAMPLES + 1) : null
  if (rows && rows.length <= MAX_NESTED_SAMPLES) {
    take(rows)
    return b.finish()
  }
  const buckets = Math.ceil(to / width) - Math.floor(from / width)
  const slot = width / slotsPerBucket(width, Math.max(1, Math.floor(MAX_NESTED_SAMPLES / buckets)))
  // A slot of whole minutes before the oldest sample still to seal takes its first sample from
  // the sealed minutes (metrics.minutes.ts: each minute's first sample, as the query below would
  // find it), so a long range decodes no block; the other slots read the sample itself.
  const sealedUntil = slot % MINUTE_MS === 0 ? ((await store.firstUnsealed(seq, from, to)) ?? to) : from
  const first = sealedUntil > from ? firstMinutes(await store.nestedMinutes(seq, from, sealedUntil), kind) : null
  const at = families.map((f) => NESTED_FAMILIES[kind].indexOf(f))
  for (let s = Math.floor(from / width) * width; s < to; s += slot) {
    if (s + slot <= from) continue
    const lo = Math.max(s, from)
    const hi = Math.min(s + slot, to)
    if (first && hi <= sealedUntil && lo % MINUTE_MS === 0) {
      const found = first(lo, hi)
      if (found) {
        b.at(found.minutes.ts[found.e]!)
        feed.minute(found.minutes, found.e, found.names, at)
      }
      continue
    }
    take(await store.rawRows(kind, [], families, seq, lo, hi, 1))
  }
  return b.finish()
}
