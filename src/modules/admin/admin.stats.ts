import type { Logger } from '../../lib/logger'

/**
 * Counts one domain adds to GET /v1/admin/stats, e.g. the metrics domain's
 * `{ metric_rows_hardware, metric_rows_network, ingest_last_hour }`. The composition root
 * lists them; keep each cheap: it runs on every stats request.
 */
export type StatProvider = () => Record<string, number> | Promise<Record<string, number>>

/** Every provider's counts, in list order; a failing provider is logged and left out, never a 500. */
export async function collectStats(deps: { stats: StatProvider[]; logger: Logger }): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const provide of deps.stats) {
    try {
      Object.assign(out, await provide())
    } catch (err) {
      deps.logger.warn('stat provider failed', { error: (err as Error).message })
    }
  }
  return out
}
