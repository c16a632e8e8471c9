import type { HealthDeps } from './health.service'

/** reading time per hourly run: a share of a large file each hour, the whole of a small one */
export const INTEGRITY_BUDGET_MS = 2_000

/** The integrity check, one run at a time: damage it finds is logged and turns /health degraded. */
export async function integrityCheck(deps: Pick<HealthDeps, 'scan' | 'storage' | 'clock' | 'logger'>): Promise<void> {
  if (!deps.scan) return // PostgreSQL: no file of the hub's to scan
  const started = performance.now()
  const r = await deps.scan.run(INTEGRITY_BUDGET_MS)
  const ms = Math.round(performance.now() - started)
  if (r.problem === null) return void deps.logger.debug('integrity check', { ok: true, whole: r.whole, rows: r.rows, ms })
  deps.storage.record('corrupt', r.problem, deps.clock.now())
  deps.logger.error('the database is damaged: restore a backup (vigil backup) or move the file away', { problem: r.problem, ms })
}
