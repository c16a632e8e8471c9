import type { AppContext } from '../../context'
import { integrityScan } from '../../db/integrity'

/** reading time per hourly run: a share of a large file each hour, the whole of a small one */
export const INTEGRITY_BUDGET_MS = 2_000

/** The integrity check, one run at a time: damage it finds is logged and turns /health degraded. */
export function integrityCheck(ctx: Pick<AppContext, 'db' | 'clock' | 'logger'>): () => Promise<void> {
  const scan = integrityScan(ctx.db.sqlite)
  return async () => {
    const started = performance.now()
    const r = await scan.run(INTEGRITY_BUDGET_MS)
    const ms = Math.round(performance.now() - started)
    if (r.problem === null) return void ctx.logger.debug('integrity check', { ok: true, whole: r.whole, rows: r.rows, ms })
    ctx.db.health.record('corrupt', r.problem, ctx.clock.now())
    ctx.logger.error('the database is damaged: restore a backup (vigil backup) or move the file away', { problem: r.problem, ms })
  }
}
