import { bigint, pgTable, text } from 'drizzle-orm/pg-core'

/**
 * The setup token the hubs of one PostgreSQL agree on while no account exists
 * (src/modules/users/users.signup.pg.ts): the first hub to start inserts its token's hash, the
 * others read it, so the operator's first registration works on whichever hub a proxy sends it
 * to. One row at most (`slot` is always 'operator'); only the hash is stored.
 */
export const setupTokens = pgTable('setup_tokens', {
  slot: text('slot').primaryKey(),
  /** SHA-256 of the token, hex */
  hash: text('hash').notNull(),
  /** when the hub that made it started (ms since the epoch) */
  madeAt: bigint('made_at', { mode: 'number' }).notNull(),
  /** that hub (host and process), for the operator looking for its log */
  hub: text('hub').notNull(),
})
