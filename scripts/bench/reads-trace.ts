/**
 * Where a read's slow requests spend their time, from the client's times (reads.ts with `times`)
 * lined up with the hub's trace (VIGIL_TRACE_REQUESTS, src/lib/request-trace.ts) of the same
 * requests: both use wall-clock milliseconds on one machine. Each measured request is split into
 * the client's side and loopback before the hub runs anything for it, admission (credential,
 * session check, rate limit), routing and validation up to the handler, the handler (the read
 * itself), the handler's end to the answer being handed to Bun, and from there to the client
 * holding the whole answer; and each is tagged with what else held the hub's event loop during it.
 */
import type { TraceFile } from '../../src/lib/request-trace'

export const SEGMENTS = ['before the hub', 'admission', 'to the handler', 'handler', 'to the answer', 'after the answer'] as const

export interface Attributed {
  /** the client's time, ms */
  ms: number
  /** ms in each of SEGMENTS (their sum is `ms`) */
  parts: number[]
  /** the event loop's longest stretch over 1 ms that ended inside the request, ms (0: none) */
  lagMs: number
  /** during that stretch: the main thread's CPU ms, all threads' CPU ms, involuntary switches, minor faults (zeros: none) */
  lagUsage: [number, number, number, number]
  /** jobs, shrinks and hand-backs that overlapped the request */
  events: string[]
}

/** Each client request matched to the hub's record of it (the one that arrived while it was out); unmatched ones left out. */
export function attribute(times: [number, number][], file: TraceFile, path: string): Attributed[] {
  const records = file.requests.filter((r) => r[0] === path).sort((a, b) => a[1] - b[1])
  const out: Attributed[] = []
  let i = 0
  for (const [at, ms] of times) {
    const end = at + ms
    while (i < records.length && records[i]![1] < at) i++
    const r = records[i]
    if (!r || r[1] > end) continue
    const [, arrived, admitted, began, ended, answered] = r
    // a stage not reached (NaN) is put where the next one reached is: the part before it takes the time
    const marks = [at, arrived, admitted, began, ended, answered, end]
    for (let k = marks.length - 2; k > 0; k--) if (Number.isNaN(marks[k])) marks[k] = marks[k + 1]!
    const parts = SEGMENTS.map((_, k) => marks[k + 1]! - marks[k]!)
    const lag = file.lags.filter(([t]) => t > at && t <= end + 1).sort((a, b) => b[1] - a[1])[0]
    const events = file.events.filter(([, s, e]) => s < end && e > at).map(([n]) => n)
    out.push({ ms, parts, lagMs: lag?.[1] ?? 0, lagUsage: lag ? [lag[2], lag[3], lag[4], lag[5]] : [0, 0, 0, 0], events })
    i++
  }
  return out
}

/**
 * The slowest 1 % against the median half, per segment (mean ms), with how many of the slow ones
 * met a stretch of the loop over 1 ms or an event, as a line for the bench's report.
 */
export function summarize(all: Attributed[]): string {
  if (all.length < 100) return `${all.length} requests matched: too few to tell`
  const sorted = [...all].sort((a, b) => a.ms - b.ms)
  const slow = sorted.slice(Math.floor(sorted.length * 0.99) - 1)
  const mid = sorted.slice(Math.floor(sorted.length * 0.25), Math.floor(sorted.length * 0.75))
  const mean = (xs: Attributed[], k: number) => xs.reduce((a, x) => a + x.parts[k]!, 0) / xs.length
  const cells = SEGMENTS.map((s, k) => `${s} ${mean(mid, k).toFixed(3)} → ${mean(slow, k).toFixed(3)}`)
  const lagged = slow.filter((x) => x.lagMs > 0)
  const evented = slow.filter((x) => x.events.length)
  const names = [...new Set(evented.flatMap((x) => x.events))]
  return (
    `${all.length} matched; mean ms, middle half → slowest ${slow.length}: ${cells.join(', ')}; ` +
    `slow ones that met a loop stretch over 1 ms: ${lagged.length} (longest ${Math.max(0, ...lagged.map((x) => x.lagMs)).toFixed(2)} ms)` +
    `, an event: ${evented.length}${names.length ? ` (${names.join(', ')})` : ''}`
  )
}
