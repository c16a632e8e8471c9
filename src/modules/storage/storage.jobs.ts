import type { Job } from '../../jobs/scheduler'
import { enforceBudget, measure, type StorageDeps } from './storage.service'

/**
 * The storage jobs. The budget runs every minute: a look at the disk and the page counts (free),
 * and a pruning only when the data passes the budget. The space per tier is a scan of the whole
 * file, so it is measured hourly (and after every pruning), off the hour and off the retention
 * job's minute. With several hubs on PostgreSQL (`deps.perHub`) both run on every hub: each
 * watches its own data dir's disk and keeps the figures its operator page and scrape show.
 */
export function storageJobs(deps: StorageDeps): Job[] {
  const everyHub = deps.perHub === true
  return [
    { name: 'storage.budget', cron: '50 * * * * *', everyHub, run: () => enforceBudget(deps) },
    { name: 'storage.measure', cron: '0 41 * * * *', everyHub, run: () => measure(deps) },
  ]
}
