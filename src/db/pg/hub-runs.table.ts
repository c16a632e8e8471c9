import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core'

/**
 * The hubs' runs, each from its start to its last sign of life (PostgreSQL only: one SQLite hub
 * keeps its own in hub-runs.json beside its database). When no hub ran, collectors could not
 * send, so the recommendation rules leave those stretches out of a device's packet loss
 * (src/modules/ai/ai.hub-runs.pg.ts). Kept eight days.
 */
export const hub_runs = pgTable(
  'hub_runs',
  {
    /** the hub's process: host, pid and a random part */
    hub: text('hub').primaryKey(),
    started_at: bigint('started_at', { mode: 'number' }).notNull(),
    last_beat_at: bigint('last_beat_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('hub_runs_last_beat_at').on(t.last_beat_at)],
)
