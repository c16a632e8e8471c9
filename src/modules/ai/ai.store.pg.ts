import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import { newId } from '../../lib/ids'
import { AI_CONFIG_COLS, type AiConfigRow, type AiStore, changedColumns, type ScheduleRow, USAGE_COLS, type UsageRow } from './ai.store'

const str = (v: unknown) => (v as string | null) ?? null
/** a boolean column as SQLite shows it */
const bit = (v: unknown) => (v === null || v === undefined ? null : v ? 1 : 0)

const configRow = (r: Raw): AiConfigRow => ({
  client_id: r.client_id as string,
  provider: str(r.provider),
  model: str(r.model),
  base_url: str(r.base_url),
  api_key_enc: str(r.api_key_enc),
  temperature: (r.temperature as number | null) ?? null,
  max_tokens: numOrNull(r.max_tokens),
  schedule: str(r.schedule),
  enabled: bit(r.enabled)!,
  prompt: str(r.prompt),
  last_run_at: numOrNull(r.last_run_at),
  updated_at: num(r.updated_at),
})

const usageRow = (r: Raw): UsageRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  device_id: str(r.device_id),
  kind: r.kind as string,
  provider: r.provider as string,
  model: str(r.model),
  tokens_in: numOrNull(r.tokens_in),
  tokens_out: numOrNull(r.tokens_out),
  latency_ms: numOrNull(r.latency_ms),
  status: r.status as string,
  error: str(r.error),
  created_at: num(r.created_at),
})

/**
 * The ai_configs and ai_usage tables on PostgreSQL: the same answers as the SQLite store
 * (ai.store.contract.test.ts). The sealed API key is stored as SQLite stores it, never opened here.
 */
export function createAiStorePg(sql: SQL): AiStore {
  return {
    async config(clientId) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${AI_CONFIG_COLS} FROM ai_configs WHERE client_id = $1`, [clientId])
      return r ? configRow(r) : null
    },
    update(clientId, changes, now) {
      return sql.begin(async (tx) => {
        await tx`INSERT INTO ai_configs (client_id, enabled, updated_at) VALUES (${clientId}, true, ${now}) ON CONFLICT (client_id) DO NOTHING`
        const cols = changedColumns(changes)
        const values = cols.map(([c, v]) => (c === 'enabled' ? v === 1 : v))
        const [r]: Raw[] = await tx.unsafe(
          `UPDATE ai_configs SET ${cols.map(([c], i) => `${c} = $${i + 1}, `).join('')}updated_at = CASE WHEN $${cols.length + 1} THEN $${cols.length + 2}::bigint ELSE updated_at END
           WHERE client_id = $${cols.length + 3} RETURNING ${AI_CONFIG_COLS}`,
          [...values, cols.length > 0, now, clientId],
        )
        return configRow(r!)
      })
    },
    async scheduleOf(clientIds) {
      const rows: Raw[] = await sql`SELECT d.id AS client_id, c.enabled, c.schedule, c.last_run_at
        FROM unnest(${clientIds}::text[]) WITH ORDINALITY AS d(id, n) LEFT JOIN ai_configs c ON c.client_id = d.id ORDER BY d.n`
      return rows.map(
        (r): ScheduleRow => ({ client_id: r.client_id as string, enabled: bit(r.enabled), schedule: str(r.schedule), last_run_at: numOrNull(r.last_run_at) }),
      )
    },
    async claimRun(clientId, seen, now) {
      // one statement: of two hubs, the second finds last_run_at moved (or the row just made) and sets nothing
      const rows: Raw[] = await sql`INSERT INTO ai_configs (client_id, enabled, updated_at, last_run_at) VALUES (${clientId}, true, ${now}, ${now})
        ON CONFLICT (client_id) DO UPDATE SET last_run_at = excluded.last_run_at
        WHERE ai_configs.last_run_at IS NOT DISTINCT FROM ${seen}::bigint RETURNING client_id`
      return rows.length > 0
    },
    reserveCall(clientId, budget, dayStart, entry, now) {
      return sql.begin(async (tx) => {
        // the client's reservations queue here, whichever hub makes them: the count below misses none in flight
        await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`vigil.ai.budget:${clientId}`}, 0))`
        const [c]: { n: number }[] = await tx`SELECT count(*)::int AS n FROM ai_usage WHERE client_id = ${clientId} AND created_at >= ${dayStart}`
        if (c!.n >= budget) return null
        const id = newId('aiu')
        await tx`INSERT INTO ai_usage (id, client_id, device_id, kind, provider, model, status, created_at)
          VALUES (${id}, ${clientId}, ${entry.deviceId}, ${entry.kind}, ${entry.provider}, ${entry.model}, 'pending', ${now})`
        return id
      })
    },
    async callsSince(clientId, since) {
      const [c]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM ai_usage WHERE client_id = ${clientId} AND created_at >= ${since}`
      return c!.n
    },
    async finishCall(id, r) {
      await sql`UPDATE ai_usage SET status = ${r.status}, error = ${r.error}, tokens_in = ${r.tokensIn}, tokens_out = ${r.tokensOut},
        latency_ms = ${r.latencyMs}, model = ${r.model} WHERE id = ${id}`
    },
    async usage(clientId, from, to, limit, offset) {
      const items: Raw[] = await sql.unsafe(
        `SELECT ${USAGE_COLS} FROM ai_usage WHERE client_id = $1 AND created_at >= $2 AND created_at <= $3
         ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $4 OFFSET $5`,
        [clientId, from, to, limit, offset],
      )
      const [t]: Raw[] = await sql`SELECT count(*)::int AS calls, count(*) FILTER (WHERE status = 'ok')::int AS ok,
        COALESCE(SUM(tokens_in), 0)::float8 AS tokens_in, COALESCE(SUM(tokens_out), 0)::float8 AS tokens_out
        FROM ai_usage WHERE client_id = ${clientId} AND created_at >= ${from} AND created_at <= ${to}`
      return { items: items.map(usageRow), totals: { calls: num(t!.calls), ok: num(t!.ok), tokens_in: num(t!.tokens_in), tokens_out: num(t!.tokens_out) } }
    },
  }
}
