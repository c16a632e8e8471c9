import { RequestValidationError } from '../../http/input'
import { toIso } from '../../lib/clock'
import { SERIES_FIELDS, type ContainerSeries, type ContainerSeriesQuery } from './containers.model'
import { float32Figure, RAW_WIDTH, rollUp, unpack } from './containers.pack'
import { HOUR_MS, LEVEL_WIDTH } from './containers.jobs'
import { findContainer, type ContainersDeps } from './containers.service'

const RANGE_MS: Record<string, number> = { '1h': HOUR_MS, '6h': 6 * HOUR_MS, '24h': 24 * HOUR_MS, '7d': 7 * 24 * HOUR_MS, '30d': 30 * 24 * HOUR_MS }
const LEVEL_NAME = ['raw', '1m', '1h'] as const

const refuse = (param: string, msg: string): never => {
  throw new RequestValidationError([{ loc: ['query', param], msg, type: 'value_error' }])
}

/** The level fitted to a range: raw up to 6 hours, minutes up to 3 days, hours beyond (within the default retentions). */
export const levelFor = (spanMs: number): 0 | 1 | 2 => (spanMs <= 6 * HOUR_MS ? 0 : spanMs <= 72 * HOUR_MS ? 1 : 2)

/**
 * One container's series over a range. Rollup levels are completed on the right by the finer
 * level rolled up on the fly, so the newest minutes show before the rollup job has run.
 */
export async function containerSeries(
  deps: ContainersDeps,
  clientId: string,
  deviceId: string,
  containerId: string,
  q: ContainerSeriesQuery,
): Promise<ContainerSeries> {
  const { device, row } = await findContainer(deps, clientId, deviceId, containerId)
  const to = q.end ? Date.parse(q.end) : deps.clock.now()
  const from = q.start ? Date.parse(q.start) : to - RANGE_MS[q.range ?? '1h']!
  if (from >= to) refuse('start', 'start must be before end')
  if (to - from > 400 * 24 * HOUR_MS) refuse('start', 'a range spans at most 400 days')
  const level = levelFor(to - from)
  const width = LEVEL_WIDTH[level]
  const points: { ts: number; data: Uint8Array }[] = await deps.store.series(device.seq, level, from, to + 1)
  if (level > 0) {
    // the tail the rollup job has not reached yet, from the level below
    const done = points.length ? points.at(-1)!.ts + width : from
    const buckets = new Map<number, Uint8Array[]>()
    for (const r of await deps.store.series(device.seq, level - 1, Math.max(from, done), to + 1)) {
      const b = Math.floor(r.ts / width) * width
      const list = buckets.get(b)
      if (list) list.push(r.data)
      else buckets.set(b, [r.data])
    }
    for (const [b, list] of buckets) points.push({ ts: b, data: rollUp(list) })
  }
  const out: ContainerSeries = {
    container_id: row.id,
    name: row.name,
    resolution: LEVEL_NAME[level],
    step_seconds: 0,
    start: toIso(from),
    end: toIso(to),
    t: [],
    values: Object.fromEntries(SERIES_FIELDS.map((f) => [f, []])),
    max: level ? { cpu_percent: [], memory_used_bytes: [] } : {},
  }
  for (const p of points) {
    const e = unpack(p.data, row.seq)[0]
    if (!e) continue
    out.t.push(Math.floor(p.ts / 1000))
    for (let i = 0; i < SERIES_FIELDS.length; i++) out.values[SERIES_FIELDS[i]!]!.push(float32Figure(e.values[i]))
    if (level) {
      out.max.cpu_percent!.push(float32Figure(e.values[RAW_WIDTH]))
      out.max.memory_used_bytes!.push(float32Figure(e.values[RAW_WIDTH + 1]))
    }
  }
  out.step_seconds = level ? width / 1000 : medianGap(out.t)
  return out
}

function medianGap(t: number[]): number {
  if (t.length < 2) return 0
  const gaps = t.slice(1).map((x, i) => x - t[i]!)
  gaps.sort((a, b) => a - b)
  return gaps[Math.floor(gaps.length / 2)]!
}
