import type { MetricsReads } from './metrics.reads'
import type { MetricsStore } from './metrics.store'

/**
 * One read path for both engines. A computation over the metric reads is written once as a
 * generator that yields each read it needs; `stepsNow` runs it on SQLite's store, whose reads
 * answer at once (the synchronous ports of other domains: the AI's summary, the operator's
 * counts), `stepsAwait` on either engine's asynchronous reads (the routes).
 */
export type AnyReads = MetricsStore | MetricsReads
export type Step = (s: AnyReads) => unknown
export type Steps<R> = Generator<Step, R, unknown>

/** one read inside a computation: `const rows = yield* read((s) => s.rawValues(…))` */
export function* read<T>(f: (s: AnyReads) => T | Promise<T>): Steps<T> {
  return (yield f) as T
}

export function stepsNow<R>(steps: Steps<R>, store: MetricsStore): R {
  let r = steps.next()
  while (!r.done) {
    const v = r.value(store)
    if (v instanceof Promise) throw new Error('a synchronous read returned a promise')
    r = steps.next(v)
  }
  return r.value
}

export async function stepsAwait<R>(steps: Steps<R>, reads: MetricsReads): Promise<R> {
  let r = steps.next()
  while (!r.done) r = steps.next(await r.value(reads))
  return r.value
}
