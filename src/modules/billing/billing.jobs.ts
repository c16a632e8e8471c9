import type { BillingDeps } from './billing.service'

/** Stripe redelivers an event for up to 3 days; ids older than this cannot come back. */
const EVENT_RETENTION_MS = 30 * 86_400_000

/** Forgets the ids of handled Stripe events that Stripe can no longer redeliver. */
export async function pruneBillingEvents(deps: Pick<BillingDeps, 'store' | 'clock' | 'logger'>): Promise<void> {
  const removed = await deps.store.pruneEvents(deps.clock.now() - EVENT_RETENTION_MS)
  if (removed) deps.logger.debug('billing events pruned', { removed })
}
