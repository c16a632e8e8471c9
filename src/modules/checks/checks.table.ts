import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex, blob } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'
import { devices } from '../devices/devices.table'

/**
 * A service check: what to probe (kind + settings, JSON), how often, and where it runs (the hub
 * and/or agents). The current state is kept on the row so lists read no results. `seq` is the
 * small integer result and summary rows are keyed on (a 36-character id on every row would
 * double their size). A heartbeat's token is stored as its SHA-256 only.
 */
export const checks = sqliteTable(
  'checks',
  {
    id: text('id').primaryKey(),
    seq: integer('seq').notNull(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind').notNull(),
    settings: text('settings').notNull(),
    intervalS: integer('interval_s').notNull(),
    timeoutMs: integer('timeout_ms').notNull(),
    downAfter: integer('down_after').notNull(),
    upAfter: integer('up_after').notNull(),
    runOnHub: integer('run_on_hub').notNull(),
    /** JSON array of device ids whose agents run it */
    deviceIds: text('device_ids').notNull().default('[]'),
    dependsOnDeviceId: text('depends_on_device_id').references(() => devices.id, { onDelete: 'set null' }),
    paused: integer('paused').notNull().default(0),
    hbTokenHash: text('hb_token_hash'),
    hbTokenHint: text('hb_token_hint'),
    /** pending | up | down | degraded (paused is the paused flag) */
    state: text('state').notNull().default('pending'),
    stateSince: integer('state_since'),
    lastCheckedAt: integer('last_checked_at'),
    lastResponseMs: real('last_response_ms'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    certExpiresAt: integer('cert_expires_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('checks_client').on(t.clientId), uniqueIndex('checks_seq').on(t.seq), uniqueIndex('checks_hb_token').on(t.hbTokenHash)],
)

/** Each place's own state machine (place 0 is the hub, else the running device's seq). */
export const checkPlaces = sqliteTable(
  'check_places',
  {
    checkSeq: integer('check_seq').notNull(),
    place: integer('place').notNull(),
    state: text('state').notNull().default('pending'),
    fails: integer('fails').notNull().default(0),
    successes: integer('successes').notNull().default(0),
    lastTs: integer('last_ts'),
    lastOk: integer('last_ok'),
    lastResponseMs: real('last_response_ms'),
    lastError: text('last_error'),
  },
  (t) => [primaryKey({ columns: [t.checkSeq, t.place] })],
)

/**
 * Raw attempts of the hours not yet packed (the current one, in practice): one row per attempt.
 * Unique per (check, place, time) so a replayed agent batch stores nothing twice. Response time
 * in whole ms; errors only on failures.
 */
export const checkResults = sqliteTable(
  'check_results',
  {
    checkSeq: integer('check_seq').notNull(),
    place: integer('place').notNull(),
    ts: integer('ts').notNull(),
    ok: integer('ok').notNull(),
    responseMs: integer('response_ms'),
    statusCode: integer('status_code'),
    error: text('error'),
  },
  (t) => [uniqueIndex('check_results_key').on(t.checkSeq, t.ts, t.place)],
)

/**
 * Raw attempts of finished hours, kept 48 hours: one row per check, place and hour holding every
 * attempt of it packed (checks.pack.ts), about 200 bytes for 60 attempts where their rows took
 * 2.5 KB. `n` and `ok` count its attempts and successes, so spans of whole hours read no blob.
 */
export const checkPacks = sqliteTable(
  'check_packs',
  {
    checkSeq: integer('check_seq').notNull(),
    hour: integer('hour').notNull(),
    place: integer('place').notNull(),
    n: integer('n').notNull(),
    ok: integer('ok').notNull(),
    data: blob('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.checkSeq, t.hour, t.place] })],
)

/**
 * Hour and day summaries (every place together): attempts, successes, the sum, count and maximum
 * of response times; a day also keeps a histogram of them (16 buckets × uint32, for percentiles
 * over long periods). Hours are kept 90 days, days 400.
 */
export const checkHours = sqliteTable(
  'check_hours',
  {
    checkSeq: integer('check_seq').notNull(),
    hour: integer('hour').notNull(),
    total: integer('total').notNull(),
    ok: integer('ok').notNull(),
    sumMs: integer('sum_ms').notNull(),
    nMs: integer('n_ms').notNull(),
    maxMs: integer('max_ms'),
  },
  (t) => [primaryKey({ columns: [t.checkSeq, t.hour] })],
)

export const checkDays = sqliteTable(
  'check_days',
  {
    checkSeq: integer('check_seq').notNull(),
    day: integer('day').notNull(),
    total: integer('total').notNull(),
    ok: integer('ok').notNull(),
    sumMs: integer('sum_ms').notNull(),
    nMs: integer('n_ms').notNull(),
    maxMs: integer('max_ms'),
    hist: blob('hist'),
  },
  (t) => [primaryKey({ columns: [t.checkSeq, t.day] })],
)

/** Each down period with what brought it down; ended_at null while it lasts. */
export const checkIncidents = sqliteTable(
  'check_incidents',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    checkId: text('check_id')
      .notNull()
      .references(() => checks.id, { onDelete: 'cascade' }),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
    cause: text('cause'),
  },
  (t) => [index('check_incidents_check').on(t.checkId, t.startedAt)],
)
