import type { Job } from '../../jobs/scheduler'
import type { BillingDeps } from './billing.service'
import { pruneEvents } from './billing.store'

/** Stripe redelivers an event for up to 3 days; ids older than this cannot come back. */
const EVENT_RETENTION_MS = 30 * 86_400_000

export function billingJobs(deps: BillingDeps): Job[] {
  return [
    {
      name: 'billing-prune-events',
      cron: '0 17 3 * * *', // daily, 03:17
      run() {
        const removed = pruneEvents(deps.db.sqlite, deps.clock.now() - EVENT_RETENTION_MS)
        if (removed) deps.logger.debug('billing events pruned', { removed })
      },
    },
  ]
}
