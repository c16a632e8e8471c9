import type { Database } from 'bun:sqlite'
import { dueQueries } from '../deliveries/deliveries.due'

export interface ChannelRow {
  id: string
  client_id: string
  name: string
  kind: string
  config: string
  secrets_enc: string | null
  enabled: number
  min_severity: string
  created_at: number
  updated_at: number
}

export interface DeliveryRow {
  id: string
  client_id: string
  channel_id: string
  event: string
  severity: string
  notification: string
  status: string
  attempts: number
  next_attempt_at: number | null
  created_at: number
  finished_at: number | null
}

export interface AttemptRow {
  delivery_id: string
  attempt: number
  at: number
  duration_ms: number
  http_status: number | null
  outcome: string
  error: string | null
  excerpt: string | null
}

export type NewDelivery = Pick<
  DeliveryRow,
  'id' | 'client_id' | 'channel_id' | 'event' | 'severity' | 'notification' | 'status' | 'next_attempt_at' | 'created_at'
>

/** What an attempt changes on its delivery. */
export interface Settled {
  status: string
  attempts: number
  nextAttemptAt: number | null
  finishedAt: number | null
}

/**
 * The channels, channel_deliveries and channel_attempts tables, on either engine (this file:
 * SQLite; channels.store.pg.ts: PostgreSQL). Every tenant-owned read and write filters by
 * client_id; the worker's writes name a delivery it claimed. Secrets arrive sealed
 * (channels.service) and are stored as given.
 */
export interface ChannelsStore {
  channel(clientId: string, id: string): Promise<ChannelRow | null>
  /** oldest first, ties by id */
  channels(clientId: string): Promise<ChannelRow[]>
  /** these of the client's channels (others' ids are skipped), oldest first */
  channelsIn(clientId: string, ids: string[]): Promise<ChannelRow[]>
  insertChannel(r: ChannelRow): Promise<void>
  /** false when the client has no such channel (nothing written) */
  updateChannel(r: ChannelRow): Promise<boolean>
  deleteChannel(clientId: string, id: string): Promise<boolean>
  count(clientId: string): Promise<number>
  /** all of them or none: a notification is queued for every channel it goes to in one transaction */
  addDeliveries(rows: NewDelivery[]): Promise<void>
  /** these deliveries (a worker's claim), in no particular order; ids that are gone are skipped */
  deliveriesIn(ids: string[]): Promise<DeliveryRow[]>
  /** when the next pending delivery is due; null when none is pending */
  nextDueAt(): Promise<number | null>
  /**
   * At a single hub's start: rows a stopped process was sending go back to the queue (sent at
   * least once, maybe twice); a test send cut short is failed. Returns how many went back.
   */
  unclaimAll(now: number): Promise<number>
  /**
   * An attempt's result and its log row, in one transaction, on a row still `sending` with the
   * next_attempt_at its claimer saw (`held`: the lease on PostgreSQL). False (nothing written)
   * when the row is gone or another worker holds it now.
   */
  settle(id: string, held: number | null, r: Settled, attempt: AttemptRow & { id: string }): Promise<boolean>
  /** a channel's deliveries, newest first, with their attempts (in order), and how many match */
  deliveries(
    clientId: string,
    channelId: string,
    status: string | null,
    limit: number,
    offset: number,
  ): Promise<{ items: DeliveryRow[]; attempts: AttemptRow[]; total: number }>
}

const ATTEMPT_COLS = 'delivery_id, attempt, at, duration_ms, http_status, outcome, error, excerpt'

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createChannelsStore(sqlite: Database): ChannelsStore {
  const byId = sqlite.query<ChannelRow, [string, string]>('SELECT * FROM channels WHERE id = ? AND client_id = ?')
  const all = sqlite.query<ChannelRow, [string]>('SELECT * FROM channels WHERE client_id = ? ORDER BY created_at, id')
  const insert = sqlite.query(
    'INSERT INTO channels (id, client_id, name, kind, config, secrets_enc, enabled, min_severity, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const update = sqlite.query(
    'UPDATE channels SET name = ?, config = ?, secrets_enc = ?, enabled = ?, min_severity = ?, updated_at = ? WHERE id = ? AND client_id = ?',
  )
  const remove = sqlite.query('DELETE FROM channels WHERE id = ? AND client_id = ?')
  const countChannels = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM channels WHERE client_id = ?')
  const someOf = sqlite.query<ChannelRow, [string, string]>(
    'SELECT c.* FROM channels c WHERE c.id IN (SELECT value FROM json_each(?)) AND c.client_id = ? ORDER BY c.created_at, c.id',
  )

  const addDelivery = sqlite.query(
    'INSERT INTO channel_deliveries (id, client_id, channel_id, event, severity, notification, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)',
  )
  const someDeliveries = sqlite.query<DeliveryRow, [string]>('SELECT * FROM channel_deliveries WHERE id IN (SELECT value FROM json_each(?))')
  const nextDue = sqlite.query<{ at: number | null }, []>("SELECT MIN(next_attempt_at) AS at FROM channel_deliveries WHERE status = 'pending'")
  // only a row this worker holds: a delivery deleted with its channel meanwhile is left alone
  const settle = sqlite.query(
    "UPDATE channel_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, finished_at = ? WHERE id = ? AND status = 'sending' AND next_attempt_at IS ?",
  )
  const unclaimAll = sqlite.query("UPDATE channel_deliveries SET status = 'pending' WHERE status = 'sending' AND next_attempt_at IS NOT NULL")
  // a test send has no due time: cut short by a stop, it is not sent again later
  const abandonTests = sqlite.query("UPDATE channel_deliveries SET status = 'failed', finished_at = ? WHERE status = 'sending' AND next_attempt_at IS NULL")
  const addAttempt = sqlite.query(
    'INSERT INTO channel_attempts (id, delivery_id, attempt, at, duration_ms, http_status, outcome, error, excerpt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const page = sqlite.query<DeliveryRow, [string, string, string | null, string | null, number, number]>(
    'SELECT * FROM channel_deliveries WHERE client_id = ? AND channel_id = ? AND (? IS NULL OR status = ?) ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?',
  )
  const count = sqlite.query<{ n: number }, [string, string, string | null, string | null]>(
    'SELECT COUNT(*) AS n FROM channel_deliveries WHERE client_id = ? AND channel_id = ? AND (? IS NULL OR status = ?)',
  )
  const attemptsOf = sqlite.query<AttemptRow, [string]>(
    `SELECT ${ATTEMPT_COLS} FROM channel_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, attempt`,
  )
  const addAll = sqlite.transaction((rows: NewDelivery[]) => {
    for (const r of rows) addDelivery.run(r.id, r.client_id, r.channel_id, r.event, r.severity, r.notification, r.status, r.next_attempt_at, r.created_at)
  })
  const settleTx = sqlite.transaction((id: string, held: number | null, r: Settled, a: AttemptRow & { id: string }) => {
    if (!settle.run(r.status, r.attempts, r.nextAttemptAt, r.finishedAt, id, held).changes) return false
    addAttempt.run(a.id, id, a.attempt, a.at, a.duration_ms, a.http_status, a.outcome, a.error, a.excerpt)
    return true
  })

  return {
    channel: async (clientId, id) => byId.get(id, clientId),
    channels: async (clientId) => all.all(clientId),
    channelsIn: async (clientId, ids) => someOf.all(JSON.stringify(ids), clientId),
    async insertChannel(r) {
      insert.run(r.id, r.client_id, r.name, r.kind, r.config, r.secrets_enc, r.enabled, r.min_severity, r.created_at, r.updated_at)
    },
    updateChannel: async (r) => update.run(r.name, r.config, r.secrets_enc, r.enabled, r.min_severity, r.updated_at, r.id, r.client_id).changes > 0,
    deleteChannel: async (clientId, id) => remove.run(id, clientId).changes > 0,
    count: async (clientId) => countChannels.get(clientId)!.n,
    async addDeliveries(rows) {
      addAll(rows)
    },
    deliveriesIn: async (ids) => (ids.length ? someDeliveries.all(JSON.stringify(ids)) : []),
    nextDueAt: async () => nextDue.get()?.at ?? null,
    async unclaimAll(now) {
      abandonTests.run(now)
      return unclaimAll.run().changes
    },
    settle: async (id, held, r, attempt) => settleTx(id, held, r, attempt),
    async deliveries(clientId, channelId, status, limit, offset) {
      const items = page.all(clientId, channelId, status, status, limit, offset)
      const attempts = items.length ? attemptsOf.all(JSON.stringify(items.map((d) => d.id))) : []
      return { items, attempts, total: count.get(clientId, channelId, status, status)!.n }
    },
  }
}

/**
 * The SQLite claim side of the channels' queue, for the worker's claimer (deliveries.claim.ts):
 * synchronous, run inside the worker's claim transaction. PostgreSQL claims with
 * deliveries.due.pg.ts instead.
 */
export function channelClaimSource(sqlite: Database) {
  const due = dueQueries(sqlite, 'channel_deliveries', 'channel_id')
  const claim = sqlite.query<DeliveryRow, [string]>("UPDATE channel_deliveries SET status = 'sending' WHERE id = ? AND status = 'pending' RETURNING *")
  return {
    /** the clients with a delivery due at `now` */
    dueAccounts: due.dueAccounts,
    /** up to `limit` of a client's due deliveries, oldest first, none to the channels in `skip` */
    dueOf: due.dueOf,
    /** the row, now sending, when this worker took it (it was still pending); else null */
    take: (id: string): DeliveryRow | null => claim.get(id),
  }
}
