import { bigint, pgTable, text } from 'drizzle-orm/pg-core'

/**
 * When each hub-run check is due next across the hubs (PostgreSQL only: one hub on SQLite needs
 * no claim). A hub runs a check only after moving `next_at` past now in one conditional write,
 * so of the hubs that find it due, one runs it; a hub that dies leaves `next_at` behind, and
 * the next hub whose own plan finds the check due takes it over (src/modules/checks/checks.claims.pg.ts).
 */
export const checkRuns = pgTable('check_runs', {
  checkId: text('check_id').primaryKey(),
  /** when the check may run next (ms since the epoch) */
  nextAt: bigint('next_at', { mode: 'number' }).notNull(),
  /** the hub that ran it last (host and process), for the operator */
  hub: text('hub').notNull(),
})
