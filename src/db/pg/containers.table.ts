import { bigint, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core'

/**
 * The containers' rollup marks (PostgreSQL only: one SQLite hub keeps them in memory). Per device
 * and rollup level (1: minutes, 2: hours), the oldest source time written since the rollup job
 * last rolled that level up: a block stored on any hub lowers its device's level-1 mark, and the
 * job, on whichever hub runs it, takes the marks, rolls up from them and leaves marks for the
 * buckets still open, all in one transaction (src/modules/containers/containers.rollup.pg.ts).
 */
export const container_rollup_marks = pgTable(
  'container_rollup_marks',
  {
    device_seq: bigint('device_seq', { mode: 'number' }).notNull(),
    level: integer('level').notNull(),
    /** ms since the epoch */
    since: bigint('since', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.device_seq, t.level] })],
)
