import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core'

/**
 * Messages between hubs too large for a NOTIFY payload (PostgreSQL's limit is 8,000 bytes): the
 * sender writes the message here and notifies its id; each listening hub reads the row. Kept ten
 * minutes (a hub that has not read one by then missed it, and its link says so).
 */
export const hub_messages = pgTable(
  'hub_messages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** server time, ms */
    created_at: bigint('created_at', { mode: 'number' }).notNull(),
    /** the message as the NOTIFY payload would have carried it */
    body: text('body').notNull(),
  },
  (t) => [index('hub_messages_created_at').on(t.created_at)],
)
