import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import type { AttemptRow, ChannelRow, ChannelsStore, DeliveryRow } from './channels.store'

const CHANNEL_COLS = 'id, client_id, name, kind, config, secrets_enc, enabled, min_severity, created_at, updated_at'
const DELIVERY_COLS = 'id, client_id, channel_id, event, severity, notification, status, attempts, next_attempt_at, created_at, finished_at'
const ATTEMPT_COLS = 'delivery_id, attempt, at, duration_ms, http_status, outcome, error, excerpt'

const channel = (r: Raw): ChannelRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  name: r.name as string,
  kind: r.kind as string,
  config: r.config as string,
  secrets_enc: (r.secrets_enc as string | null) ?? null,
  // boolean in PostgreSQL, 1/0 as SQLite stores it
  enabled: r.enabled ? 1 : 0,
  min_severity: r.min_severity as string,
  created_at: num(r.created_at),
  updated_at: num(r.updated_at),
})

const delivery = (r: Raw): DeliveryRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  channel_id: r.channel_id as string,
  event: r.event as string,
  severity: r.severity as string,
  notification: r.notification as string,
  status: r.status as string,
  attempts: num(r.attempts),
  next_attempt_at: numOrNull(r.next_attempt_at),
  created_at: num(r.created_at),
  finished_at: numOrNull(r.finished_at),
})

const attempt = (r: Raw): AttemptRow => ({
  delivery_id: r.delivery_id as string,
  attempt: num(r.attempt),
  at: num(r.at),
  duration_ms: num(r.duration_ms),
  http_status: numOrNull(r.http_status),
  outcome: r.outcome as string,
  error: (r.error as string | null) ?? null,
  excerpt: (r.excerpt as string | null) ?? null,
})

/**
 * The channels, channel_deliveries and channel_attempts tables on PostgreSQL: the same answers as
 * the SQLite store (channels.store.contract.test.ts). Text is ordered by its bytes (COLLATE "C"),
 * as SQLite orders it. Claiming is deliveries.due.pg.ts's; a claimed row's next_attempt_at is its
 * lease, so `settle` writes only for the worker whose lease still holds.
 */
export function createChannelsStorePg(sql: SQL): ChannelsStore {
  return {
    async channel(clientId, id) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${CHANNEL_COLS} FROM channels WHERE id = $1 AND client_id = $2`, [id, clientId])
      return r ? channel(r) : null
    },
    async channels(clientId) {
      const rows: Raw[] = await sql.unsafe(`SELECT ${CHANNEL_COLS} FROM channels WHERE client_id = $1 ORDER BY created_at, id COLLATE "C"`, [clientId])
      return rows.map(channel)
    },
    async channelsIn(clientId, ids) {
      if (!ids.length) return []
      const rows: Raw[] = await sql.unsafe(
        `SELECT ${CHANNEL_COLS} FROM channels WHERE id IN (SELECT jsonb_array_elements_text($1::text::jsonb)) AND client_id = $2
          ORDER BY created_at, id COLLATE "C"`,
        [JSON.stringify(ids), clientId],
      )
      return rows.map(channel)
    },
    async insertChannel(r) {
      await sql`INSERT INTO channels (id, client_id, name, kind, config, secrets_enc, enabled, min_severity, created_at, updated_at)
        VALUES (${r.id}, ${r.client_id}, ${r.name}, ${r.kind}, ${r.config}, ${r.secrets_enc}, ${r.enabled === 1}, ${r.min_severity}, ${r.created_at}, ${r.updated_at})`
    },
    async updateChannel(r) {
      const rows: Raw[] = await sql`UPDATE channels SET name = ${r.name}, config = ${r.config}, secrets_enc = ${r.secrets_enc}, enabled = ${r.enabled === 1},
        min_severity = ${r.min_severity}, updated_at = ${r.updated_at} WHERE id = ${r.id} AND client_id = ${r.client_id} RETURNING id`
      return rows.length > 0
    },
    async deleteChannel(clientId, id) {
      const rows: Raw[] = await sql`DELETE FROM channels WHERE id = ${id} AND client_id = ${clientId} RETURNING id`
      return rows.length > 0
    },
    async count(clientId) {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM channels WHERE client_id = ${clientId}`
      return r!.n
    },
    async addDeliveries(rows) {
      if (!rows.length) return
      // one statement: all of them or none
      await sql.unsafe(
        `INSERT INTO channel_deliveries (id, client_id, channel_id, event, severity, notification, status, attempts, next_attempt_at, created_at)
         SELECT id, client_id, channel_id, event, severity, notification, status, 0, next_attempt_at, created_at
           FROM jsonb_to_recordset($1::text::jsonb) AS r(id text, client_id text, channel_id text, event text, severity text,
                notification text, status text, next_attempt_at bigint, created_at bigint)`,
        [JSON.stringify(rows)],
      )
    },
    async deliveriesIn(ids) {
      if (!ids.length) return []
      const rows: Raw[] = await sql.unsafe(`SELECT ${DELIVERY_COLS} FROM channel_deliveries WHERE id IN (SELECT jsonb_array_elements_text($1::text::jsonb))`, [
        JSON.stringify(ids),
      ])
      return rows.map(delivery)
    },
    async nextDueAt() {
      const [r]: Raw[] = await sql`SELECT min(next_attempt_at) AS at FROM channel_deliveries WHERE status = 'pending'`
      return numOrNull(r?.at)
    },
    unclaimAll(now) {
      return sql.begin(async (tx) => {
        await tx`UPDATE channel_deliveries SET status = 'failed', finished_at = ${now} WHERE status = 'sending' AND next_attempt_at IS NULL`
        const back: Raw[] = await tx`UPDATE channel_deliveries SET status = 'pending' WHERE status = 'sending' AND next_attempt_at IS NOT NULL RETURNING id`
        return back.length
      })
    },
    settle(id, held, r, a) {
      return sql.begin(async (tx) => {
        const done: Raw[] = await tx`UPDATE channel_deliveries SET status = ${r.status}, attempts = ${r.attempts}, next_attempt_at = ${r.nextAttemptAt},
            finished_at = ${r.finishedAt}
          WHERE id = ${id} AND status = 'sending' AND next_attempt_at IS NOT DISTINCT FROM ${held}::bigint RETURNING id`
        if (!done.length) return false
        await tx`INSERT INTO channel_attempts (id, delivery_id, attempt, at, duration_ms, http_status, outcome, error, excerpt)
          VALUES (${a.id}, ${id}, ${a.attempt}, ${a.at}, ${a.duration_ms}, ${a.http_status}, ${a.outcome}, ${a.error}, ${a.excerpt})`
        return true
      })
    },
    async deliveries(clientId, channelId, status, limit, offset) {
      const items: Raw[] = await sql.unsafe(
        `SELECT ${DELIVERY_COLS} FROM channel_deliveries WHERE client_id = $1 AND channel_id = $2 AND ($3::text IS NULL OR status = $3)
          ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $4 OFFSET $5`,
        [clientId, channelId, status, limit, offset],
      )
      const ids = items.map((d) => d.id as string)
      const attempts: Raw[] = ids.length
        ? await sql.unsafe(
            `SELECT ${ATTEMPT_COLS} FROM channel_attempts WHERE delivery_id IN (SELECT jsonb_array_elements_text($1::text::jsonb))
              ORDER BY delivery_id COLLATE "C", attempt`,
            [JSON.stringify(ids)],
          )
        : []
      const [c]: { n: number }[] = await sql.unsafe(
        'SELECT count(*)::int AS n FROM channel_deliveries WHERE client_id = $1 AND channel_id = $2 AND ($3::text IS NULL OR status = $3)',
        [clientId, channelId, status],
      )
      return { items: items.map(delivery), attempts: attempts.map(attempt), total: c!.n }
    },
  }
}
