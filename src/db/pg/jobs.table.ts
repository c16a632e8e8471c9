import { bigint, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'

/**
 * Which hub runs each scheduled run of a job (PostgreSQL only: one hub on SQLite needs no claim).
 * A slot is the time croner names for the run, the same on every hub whatever its clock says, so
 * the primary key lets one hub alone insert it. `lease_until` keeps the other hubs from starting
 * the job's next runs while this one goes on: the hub renews it while the run lasts, a finished
 * run sets it to the time it ended, and a hub that died mid-run lets it run out. A job's rows
 * older than an hour whose lease is over are deleted by its later claims (src/jobs/claims.pg.ts).
 */
export const jobRuns = pgTable(
  'job_runs',
  {
    job: text('job').notNull(),
    /** the scheduled time of the run (ms since the epoch, UTC) */
    slot: bigint('slot', { mode: 'number' }).notNull(),
    /** the hub that claimed it (host and process), for the operator */
    hub: text('hub').notNull(),
    claimedAt: bigint('claimed_at', { mode: 'number' }).notNull(),
    leaseUntil: bigint('lease_until', { mode: 'number' }).notNull(),
    finishedAt: bigint('finished_at', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.job, t.slot] }), index('job_runs_lease').on(t.job, t.leaseUntil)],
)
