import { hostname } from 'node:os'
import type { SQL } from 'bun'
import type { JobClaims } from './claims'

/**
 * How long a claimed run keeps the other hubs off its job without renewing: the longest a job
 * waits after its hub died mid-run. The running hub renews it every third of that.
 */
export const JOB_LEASE_MS = 60_000
/** A claim older than this whose lease has run out is deleted by the job's next claim. */
export const JOB_CLAIMS_KEPT_MS = 60 * 60_000

/** This process as `job_runs.hub` names it: host and process id. */
export function hubName(): string {
  return `${hostname()}:${process.pid}`
}

export interface PostgresJobClaimsOptions {
  /** names this hub in `job_runs.hub` (host and process), for the operator */
  hub: string
  leaseMs?: number
  keptMs?: number
}

/**
 * Scheduled runs taken once across the hubs that share a PostgreSQL database, in `job_runs`
 * (src/db/pg/jobs.table.ts). A run is claimed by inserting its (job, slot): the slot is the time
 * croner names, identical on every hub, so hubs agree on it without agreeing on their clocks, and
 * the primary key lets one insert through (ON CONFLICT DO NOTHING). A run still going on holds a
 * lease the others respect: no hub starts a job whose previous run holds a live lease, as one
 * hub never starts a job still running. A hub that dies mid-run stops renewing; once its lease
 * has run out the job's next slot runs on another hub. The slot it died in is not run again:
 * its row stays.
 */
export function postgresJobClaims(sql: SQL, options: PostgresJobClaimsOptions): JobClaims {
  const leaseMs = options.leaseMs ?? JOB_LEASE_MS
  const keptMs = options.keptMs ?? JOB_CLAIMS_KEPT_MS
  const hub = options.hub.slice(0, 200)
  return {
    async claim(job, slotMs, now) {
      // one statement: forget this job's old claims, then insert the slot unless another of its runs holds a lease
      const rows = await sql`
        WITH forgotten AS (
          DELETE FROM job_runs WHERE job = ${job} AND slot < ${slotMs - keptMs}::bigint AND lease_until < ${now}::bigint
        )
        INSERT INTO job_runs (job, slot, hub, claimed_at, lease_until)
        SELECT ${job}, ${slotMs}::bigint, ${hub}, ${now}::bigint, ${now + leaseMs}::bigint
         WHERE NOT EXISTS (
           SELECT 1 FROM job_runs
            WHERE job = ${job} AND slot <> ${slotMs}::bigint AND finished_at IS NULL AND lease_until > ${now}::bigint
         )
        ON CONFLICT (job, slot) DO NOTHING
        RETURNING slot`
      return rows.length === 1
    },
    renewEveryMs: Math.max(1, Math.floor(leaseMs / 3)),
    async renew(job, slotMs, now) {
      await sql`UPDATE job_runs SET lease_until = ${now + leaseMs}::bigint
                 WHERE job = ${job} AND slot = ${slotMs}::bigint AND hub = ${hub} AND finished_at IS NULL`
    },
    async finish(job, slotMs, now) {
      await sql`UPDATE job_runs SET lease_until = ${now}::bigint, finished_at = ${now}::bigint
                 WHERE job = ${job} AND slot = ${slotMs}::bigint AND hub = ${hub}`
    },
  }
}
