import { readFileSync, writeFileSync } from 'node:fs'
import { openLibc, ownThreads } from './libc'

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
  /**
   * [end, ms, main thread's CPU ms, all threads' CPU ms, involuntary context switches, minor page faults]: a
   * stretch the event loop was held past the sampler's 1 ms period, with what the hub's main thread
   * did meanwhile (its CPU near `ms`: the hub was working; far below with switches: it was waiting
   * for a core) and what all its threads did (JIT compilers and collector helpers included).
   * The last four are NaN where the thread's own usage cannot be read (not Linux).
   */
  lags: [number, number, number, number, number, number][]
  /** [name, start, end] */
  events: [string, number, number][]
  /** when the file was written: each of the hub's threads, [its name, CPU ms since it started] (Linux) */
  threads?: [string, number][]
}

/** at most this many requests are kept (the newest dropped beyond it): a bench run is a few thousand */
const MAX_REQUESTS = 200_000

const now = () => performance.timeOrigin + performance.now()

const OFF: RequestTrace = { on: false, mark() {}, event() {}, now, flush() {} }

export function requestTrace(file: string | undefined): RequestTrace {
  if (!file) return OFF
  const byRequest = new WeakMap<Request, TracedRequest>()
  const out: TraceFile = { requests: [], lags: [], events: [] }
  const usage = threadUsage()
  let last = now()
  let lastUsage = usage()
  let lastCpu = process.cpuUsage()
  const sampler = setInterval(() => {
    const t = now()
    const u = usage()
    const cpu = process.cpuUsage()
    if (t - last > 2) {
      const all = (cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000
      out.lags.push([t, t - last - 1, u[0] - lastUsage[0], all, u[1] - lastUsage[1], u[2] - lastUsage[2]])
    }
    last = t
    lastUsage = u
    lastCpu = cpu
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
      writeFileSync(file, JSON.stringify({ ...out, threads: threadTimes() }))
    },
  }
}

/**
 * The calling thread's [CPU ms, involuntary context switches, minor page faults], from
 * getrusage(RUSAGE_THREAD) (Linux; about a microsecond a call), or NaNs elsewhere.
 */
function threadUsage(): () => [number, number, number] {
  const none = (): [number, number, number] => [Number.NaN, Number.NaN, Number.NaN]
  const libc = openLibc({ getrusage: { args: ['i32', 'ptr'], returns: 'i32' } })
  if (!libc) return none
  const { ptr } = require('bun:ffi') as typeof import('bun:ffi')
  const buf = new BigInt64Array(18)
  const at = ptr(buf)
  return () => {
    libc.getrusage(1, at) // RUSAGE_THREAD
    const cpu = Number(buf[0]! + buf[2]!) * 1000 + Number(buf[1]! + buf[3]!) / 1000
    // struct rusage on 64-bit Linux: two timevals, then 14 longs (ru_minflt the 5th, ru_nivcsw the 14th)
    return [cpu, Number(buf[17]!), Number(buf[8]!)]
  }
}

/** each thread of this process with its CPU time so far (ms), from /proc/self/task; [] where there is none */
function threadTimes(): [string, number][] {
  try {
    const tick = 10 // ms per clock tick (USER_HZ is 100 on Linux)
    return ownThreads().flatMap(({ tid, name }) => {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
        // the fields after the name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return [[name, (Number(f[11]) + Number(f[12])) * tick] as [string, number]]
      } catch {
        return [] // ended meanwhile
      }
    })
  } catch {
    return []
  }
}

/** the hub's one trace, from its environment (read once: a debug setting, not part of Config) */
export const trace: RequestTrace = requestTrace(process.env.VIGIL_TRACE_REQUESTS)
