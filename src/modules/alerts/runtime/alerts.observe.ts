import { applies, paramsFor, type ClientRules, type CompiledRule } from './alerts.compiled-rules'
import { nextInterval, onMissing, onSample, STALE_MS, type SeriesState, type ThresholdParams } from './alerts.evaluator'
import { dispatch } from './alerts.dispatch'
import type { NoticeItem } from './alerts.notice-text'
import { deviceState, scoped, type DeviceRuntime, type Observation, type Runtime } from './alerts.runtime-state'
import { apply, cancel, resolve, type At } from './alerts.transitions'

/**
 * The observation path: a device's new reading from any source, evaluated against the client's
 * rules that watch that source. O(rules of that client and source); no SQL unless a state
 * changes. A metric sample, a service check's result or a container's state
 * all come this way. The decisions are made at once; the changes they call for are written
 * after, one by one (a promise then; nothing when no state changes, the common case).
 */
export function observe(rt: Runtime, o: Observation): Promise<void> | undefined {
  const now = rt.deps.clock.now()
  rt.state.lastObservedAt = now
  const dev = deviceState(rt, o.clientId, o.deviceId)
  dev.lastSeen = now
  if (dev.lastTs !== null && o.ts > dev.lastTs) dev.interval = nextInterval(dev.interval, o.ts - dev.lastTs)
  if (dev.lastTs === null || o.ts >= dev.lastTs) dev.lastTs = o.ts
  const prev = dev.last.get(o.source)
  // a replayed or late reading says the device is alive, but old values trip nothing now
  if (now - o.ts > STALE_MS || (prev && o.ts < prev.ts)) return
  dev.last.set(o.source, { ts: o.ts, values: o.values })
  const cr = rt.state.clients.get(o.clientId)
  if (!cr) return
  const batch: NoticeItem[] = []
  const work: Work = []
  if (cr.offline.length && dev.series.size) {
    for (const rule of cr.offline) {
      const s = dev.series.get(rule.id)?.get('')
      if (s) work.push(() => resolve(rt, batch, { cr, rule, dev, series: '' }, s, null, now, 'reporting again'))
    }
  }
  const groups = cr.bySource.get(o.source)
  if (groups?.length) {
    const device = scoped(rt, cr, dev, now)
    for (const g of groups) {
      // the value is read once for every rule that watches it
      const sel = g.selector
      const v = sel.wildcard ? null : sel.read(o.values)
      const pairs = sel.wildcard ? sel.each(o.values) : null
      for (const rule of g.rules) {
        if (!applies(rule, device)) continue
        const states = dev.series.size ? dev.series.get(rule.id) : undefined
        // the common case: nothing open and nothing past the threshold
        if (!states && v === null && !pairs) continue
        evaluate(rt, work, batch, cr, rule, dev, o, v, pairs, states)
      }
    }
  }
  return work.length ? write(rt, work, batch, now) : undefined
}

/** the changes decided, each written before the next */
type Work = (() => Promise<void>)[]

async function write(rt: Runtime, work: Work, batch: NoticeItem[], now: number) {
  for (const w of work) await w()
  if (batch.length) await dispatch(rt, batch, now)
}

function evaluate(
  rt: Runtime,
  work: Work,
  batch: NoticeItem[],
  cr: ClientRules,
  rule: CompiledRule,
  dev: DeviceRuntime,
  o: Observation,
  v: number | null,
  pairs: [string, number][] | null,
  states: Map<string, SeriesState> | undefined,
) {
  const p = paramsFor(rule, dev.id)
  const at = (series: string): At => ({ cr, rule, dev, series })
  if (!pairs) {
    const s = states?.get('') ?? null
    if (v === null) {
      if (s) missing(rt, work, batch, at(''), s, o.ts)
    } else step(rt, work, batch, at(''), o.source, s, p, v, o.ts)
    return
  }
  for (const [series, x] of pairs) step(rt, work, batch, at(series), o.source, states?.get(series) ?? null, p, x, o.ts)
  if (states?.size) {
    for (const [series, s] of states) if (!pairs.some(([k]) => k === series)) missing(rt, work, batch, at(series), s, o.ts)
  }
}

function step(rt: Runtime, work: Work, batch: NoticeItem[], at: At, source: string, s: SeriesState | null, p: ThresholdParams, v: number, ts: number) {
  const d = onSample(s, p, v, ts)
  if (s) {
    s.value = v
    s.lastAt = ts
    s.misses = 0
  }
  if (d !== 'none') work.push(() => apply(rt, batch, at, s, d, v, ts, source))
}

/** A reading of the source that lacked the series (a partition unmounted): its alert resolves after a few. */
function missing(rt: Runtime, work: Work, batch: NoticeItem[], at: At, s: SeriesState, ts: number) {
  const d = onMissing(s)
  s.misses++
  if (d === 'resolve') work.push(() => resolve(rt, batch, at, s, null, ts, 'no longer reported'))
  else if (d === 'cancel') work.push(() => cancel(rt, at, s))
}
