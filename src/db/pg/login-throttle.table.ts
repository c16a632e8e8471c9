import { bigint, pgTable, text } from 'drizzle-orm/pg-core'

/**
 * Failed sign-ins counted across the hubs of one PostgreSQL (src/modules/users/users.throttle.pg.ts):
 * one row per account (`account:email:<email>`) or address (`address:ip:<address>`), updated by one
 * statement per failure. A row past its window and its lockout counts as nothing, so the
 * throttle deletes such rows from time to time.
 */
export const loginThrottle = pgTable('login_throttle', {
  key: text('key').primaryKey(),
  /** failures in a row since the count last started */
  failures: bigint('failures', { mode: 'number' }).notNull(),
  /** the last failure (ms since the epoch); it never moves back, whichever hub's clock is behind */
  lastFailure: bigint('last_failure', { mode: 'number' }).notNull(),
  /** no attempt before this time (ms since the epoch); 0 while the free attempts last */
  lockedUntil: bigint('locked_until', { mode: 'number' }).notNull(),
})
