import { bigint, boolean, doublePrecision, pgTable, text } from 'drizzle-orm/pg-core'

/**
 * The rate limit's token buckets when hubs share PostgreSQL (http/rate-limiter.pg.ts): one row
 * per client or anonymous address, refilled and taken from by one statement. A row untouched
 * for a whole window is a full bucket, so deleting it changes no answer: the limiter forgets
 * such rows once a window.
 */
export const rateLimitBuckets = pgTable('rate_limit_buckets', {
  /** `c:<client id>` or `ip:<address>`, as the request pipeline names buckets */
  key: text('key').primaryKey(),
  /** tokens left after the last take, fractional: the bucket refills continuously */
  tokens: doublePrecision('tokens').notNull(),
  /** the last take (ms since the epoch); it never moves back, whichever hub's clock is behind */
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  /** whether the last take got a token: RETURNING sees only the row's new values */
  allowed: boolean('allowed').notNull(),
})
