import type { Exposition } from './observability.exposition'
import { labelText } from './observability.exposition'

/** Request latency bounds in seconds: from a cached read (~1 ms) to a slow language-model call. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const
/** Job duration bounds in seconds: the rollup takes milliseconds, a backup of a big file minutes. */
export const JOB_BUCKETS = [0.01, 0.1, 1, 10, 60, 300, 1800] as const

/** Per-bucket counts (the last slot is beyond the last bound), a sum and nothing else. */
export class Histogram {
  readonly counts: Float64Array
  sum = 0

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1)
  }

  observe(v: number) {
    let i = 0
    while (i < this.bounds.length && v > this.bounds[i]!) i++
    this.counts[i]!++
    this.sum += v
  }
}

/** Methods get their own series; anything else a client sends is one, so it cannot grow the set. */
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])

/** One route pattern and method: answers by status, and latency. */
interface RouteSeries {
  labels: string
  statuses: Map<number, number>
  latency: Histogram
}

interface JobSeries {
  ok: number
  failed: number
  duration: Histogram
  lastSuccess: number
}

/**
 * The service's own counters, fed from the request pipeline, the ingest path and the job runner.
 * The hot path costs two map lookups and a few increments: series are made on first use per
 * (method, route pattern) and the route label is the router's pattern (`/v1/devices/:id`),
 * never the raw path, so a scanner cannot grow the set.
 */
export function createRegistry() {
  const routes = new Map<string, Map<string, RouteSeries>>()
  const rateLimited = { client: 0, anonymous: 0 }
  let rateLimitFallbacks = 0
  const ingested = { hardware: 0, network: 0 }
  const jobs = new Map<string, JobSeries>()

  function seriesOf(method: string, route: string): RouteSeries {
    const m = METHODS.has(method) ? method : 'OTHER'
    let byRoute = routes.get(m)
    if (!byRoute) routes.set(m, (byRoute = new Map()))
    let s = byRoute.get(route)
    if (!s) {
      s = {
        labels: labelText([
          ['method', m],
          ['route', route],
        ]),
        statuses: new Map(),
        latency: new Histogram(LATENCY_BUCKETS),
      }
      byRoute.set(route, s)
    }
    return s
  }

  return {
    /** one answered request; `route` is the pattern, or 'unmatched' */
    request(method: string, route: string, status: number, seconds: number) {
      const s = seriesOf(method, route)
      s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1)
      s.latency.observe(seconds)
    },
    rateLimited(bucket: 'client' | 'anonymous') {
      rateLimited[bucket]++
    },
    /** a take the shared rate-limit store did not answer in time, answered by this hub's own limiter */
    rateLimitFallback() {
      rateLimitFallbacks++
    },
    ingested(kind: 'hardware' | 'network', samples: number) {
      ingested[kind] += samples
    },
    /** one job run; `at` (ms) is when it ended */
    job(name: string, seconds: number, ok: boolean, at: number) {
      let j = jobs.get(name)
      if (!j) jobs.set(name, (j = { ok: 0, failed: 0, duration: new Histogram(JOB_BUCKETS), lastSuccess: 0 }))
      if (ok) {
        j.ok++
        j.lastSuccess = at
      } else j.failed++
      j.duration.observe(seconds)
    },

    /** Writes every family, in a stable order. */
    write(out: Exposition) {
      const all = [...routes.values()].flatMap((m) => [...m.values()])
      out.family('vigil_http_requests_total', 'counter', 'HTTP requests answered, by method, route pattern and status code')
      for (const s of all) {
        for (const [status, n] of [...s.statuses].sort((a, b) => a[0] - b[0])) {
          out.sample('vigil_http_requests_total', `${s.labels.slice(0, -1)},status="${status}"}`, n)
        }
      }
      out.family('vigil_http_request_duration_seconds', 'histogram', 'Time from admission to the answer, by method and route pattern')
      for (const s of all) out.histogram('vigil_http_request_duration_seconds', s.labels, s.latency.bounds, s.latency.counts, s.latency.sum)

      out.family('vigil_rate_limit_rejections_total', 'counter', 'Requests refused with 429 by the per-client or per-address rate limit')
      for (const b of ['client', 'anonymous'] as const) out.sample('vigil_rate_limit_rejections_total', labelText([['bucket', b]]), rateLimited[b])

      out.family(
        'vigil_rate_limit_fallbacks_total',
        'counter',
        'Rate-limit checks this hub answered alone because the shared store (Redis or PostgreSQL) did not answer in time',
      )
      out.sample('vigil_rate_limit_fallbacks_total', '', rateLimitFallbacks)

      out.family('vigil_ingest_samples_total', 'counter', 'Metric samples stored from collectors, by kind')
      for (const k of ['hardware', 'network'] as const) out.sample('vigil_ingest_samples_total', labelText([['kind', k]]), ingested[k])

      const jobList = [...jobs].sort((a, b) => a[0].localeCompare(b[0]))
      out.family('vigil_job_runs_total', 'counter', 'Scheduled job runs, by job and result')
      for (const [name, j] of jobList) {
        out.sample(
          'vigil_job_runs_total',
          labelText([
            ['job', name],
            ['result', 'success'],
          ]),
          j.ok,
        )
        out.sample(
          'vigil_job_runs_total',
          labelText([
            ['job', name],
            ['result', 'failure'],
          ]),
          j.failed,
        )
      }
      out.family('vigil_job_duration_seconds', 'histogram', 'Duration of scheduled job runs')
      for (const [name, j] of jobList)
        out.histogram('vigil_job_duration_seconds', labelText([['job', name]]), j.duration.bounds, j.duration.counts, j.duration.sum)
      out.family('vigil_job_last_success_timestamp_seconds', 'gauge', 'When each job last ended well (Unix time)')
      for (const [name, j] of jobList)
        if (j.lastSuccess) out.sample('vigil_job_last_success_timestamp_seconds', labelText([['job', name]]), j.lastSuccess / 1000)
    },
  }
}

export type Registry = ReturnType<typeof createRegistry>
