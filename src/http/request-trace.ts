import { writeFileSync } from 'node:fs'

/**
 * Where each request's time goes inside the hub, for the reads bench (scripts/bench/reads-trace.ts):
 * off unless VIGIL_TRACE_REQUESTS names a file, which the hub writes when it stops. Each request
 * records when admission began (the first thing the hub runs for it), when it ended, when its
 * handler began and ended and when the answer was handed to Bun; beside them, what else held the
 * event loop: every stretch of over 1 ms between two ticks of a 1 ms timer, each job run, the
 * memory reducer and the executable's hand-back. Times are wall-clock milliseconds with
 * sub-millisecond precision (performance.timeOrigin + performance.now()), so a client on the same
 * machine can line its own times up with them. Nothing is recorded, and no timer runs, when off.
 */
export interface RequestTrace {
  readonly on: boolean
  /** a stage of a request reached now: 0 arrived, 1 admitted, 2 handler began, 3 handler ended, 4 answered */
  mark(request: Request, stage: 0 | 1 | 2 | 3 | 4): void
  /** something other than a request that ran from `start` to now (a job, a shrink) */
  event(name: string, start: number): void
  now(): number
  /** writes what was recorded to the file and stops the loop's sampler */
  flush(): void
}

/** one request's record: its path, then the times of stages 0..4 (NaN where a stage was not reached) */
export type TracedRequest = [string, number, number, number, number, number]

export interface TraceFile {
  requests: TracedRequest[]
  /** [end, ms]: a stretch the event loop was held past the sampler's 1 ms period */
  lags: [number, number][]
  /** [name, start, end] */
  events: [string, number, number][]
}

/** at most this many requests are kept (the newest dropped beyond it): a bench run is a few thousand */
const MAX_REQUESTS = 200_000

const now = () => performance.timeOrigin + performance.now()

const OFF: RequestTrace = { on: false, mark() {}, event() {}, now, flush() {} }

export function requestTrace(file: string | undefined): RequestTrace {
  if (!file) return OFF
  const byRequest = new WeakMap<Request, TracedRequest>()
  const out: TraceFile = { requests: [], lags: [], events: [] }
  let last = now()
  const sampler = setInterval(() => {
    const t = now()
    if (t - last > 2) out.lags.push([t, t - last - 1])
    last = t
  }, 1)
  sampler.unref()
  return {
    on: true,
    now,
    mark(request, stage) {
      let r = byRequest.get(request)
      if (!r) {
        if (out.requests.length >= MAX_REQUESTS) return
        r = [new URL(request.url).pathname, Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN]
        byRequest.set(request, r)
        out.requests.push(r)
      }
      r[stage + 1] = now()
    },
    event(name, start) {
      out.events.push([name, start, now()])
    },
    flush() {
      clearInterval(sampler)
      writeFileSync(file, JSON.stringify(out))
    },
  }
}

/** the hub's one trace, from its environment (read once: a debug setting, not part of Config) */
export const trace: RequestTrace = requestTrace(process.env.VIGIL_TRACE_REQUESTS)
