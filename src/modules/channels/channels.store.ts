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

export function createChannelsStore(sqlite: Database) {
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
  const someOf = sqlite.query<ChannelRow, [string, string]>('SELECT c.* FROM json_each(?) j JOIN channels c ON c.id = j.value WHERE c.client_id = ?')

  const addDelivery = sqlite.query(
    'INSERT INTO channel_deliveries (id, client_id, channel_id, event, severity, notification, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)',
  )
  const delivery = sqlite.query<DeliveryRow, [string]>('SELECT * FROM channel_deliveries WHERE id = ?')
  const due = dueQueries(sqlite, 'channel_deliveries', 'channel_id')
  const nextDue = sqlite.query<{ at: number | null }, []>("SELECT MIN(next_attempt_at) AS at FROM channel_deliveries WHERE status = 'pending'")
  const claim = sqlite.query<DeliveryRow, [string]>("UPDATE channel_deliveries SET status = 'sending' WHERE id = ? AND status = 'pending' RETURNING *")
  // only a row this process holds: a delivery deleted with its channel meanwhile is left alone
  const settle = sqlite.query(
    "UPDATE channel_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, finished_at = ? WHERE id = ? AND status = 'sending'",
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
    'SELECT a.* FROM json_each(?) j JOIN channel_attempts a ON a.delivery_id = j.value ORDER BY a.delivery_id, a.attempt',
  )

  return {
    channel: (clientId: string, id: string) => byId.get(id, clientId),
    channels: (clientId: string) => all.all(clientId),
    /** these of the client's channels (others' ids are skipped) */
    channelsIn: (clientId: string, ids: string[]) => someOf.all(JSON.stringify(ids), clientId),
    insertChannel(r: ChannelRow) {
      insert.run(r.id, r.client_id, r.name, r.kind, r.config, r.secrets_enc, r.enabled, r.min_severity, r.created_at, r.updated_at)
    },
    updateChannel(r: ChannelRow) {
      update.run(r.name, r.config, r.secrets_enc, r.enabled, r.min_severity, r.updated_at, r.id, r.client_id)
    },
    deleteChannel: (clientId: string, id: string) => remove.run(id, clientId).changes > 0,
    count: (clientId: string) => countChannels.get(clientId)!.n,

    /** all of them or none: a notification is queued for every channel it goes to in one transaction */
    addDeliveries(rows: NewDelivery[]) {
      sqlite.transaction(() => {
        for (const r of rows) addDelivery.run(r.id, r.client_id, r.channel_id, r.event, r.severity, r.notification, r.status, r.next_attempt_at, r.created_at)
      })()
    },
    delivery: (id: string) => delivery.get(id),
    /** the clients with a delivery due at `now` */
    dueAccounts: due.dueAccounts,
    /** up to `limit` of a client's due deliveries, oldest first, none to the channels in `skip` */
    dueOf: due.dueOf,
    nextDueAt: () => nextDue.get()?.at ?? null,
    /** the row, now sending, when this worker took it (it was still pending); else null */
    claim: (id: string) => claim.get(id),
    /** rows a stopped process was sending go back to the queue: sent at least once, maybe twice */
    unclaimAll(now: number) {
      abandonTests.run(now)
      return unclaimAll.run().changes
    },
    /** an attempt's result on the row this process is sending; false (nothing written) when the row is gone */
    settle(id: string, r: { status: string; attempts: number; nextAttemptAt: number | null; finishedAt: number | null }, attempt: AttemptRow & { id: string }) {
      return sqlite.transaction(() => {
        if (!settle.run(r.status, r.attempts, r.nextAttemptAt, r.finishedAt, id).changes) return false
        addAttempt.run(attempt.id, id, attempt.attempt, attempt.at, attempt.duration_ms, attempt.http_status, attempt.outcome, attempt.error, attempt.excerpt)
        return true
      })()
    },
    deliveries(clientId: string, channelId: string, status: string | null, limit: number, offset: number) {
      const items = page.all(clientId, channelId, status, status, limit, offset)
      const attempts = items.length ? attemptsOf.all(JSON.stringify(items.map((d) => d.id))) : []
      return { items, attempts, total: count.get(clientId, channelId, status, status)!.n }
    },
  }
}

export type ChannelsStore = ReturnType<typeof createChannelsStore>
