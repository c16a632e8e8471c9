import type { Database } from 'bun:sqlite'
import { newId } from '../../lib/ids'

export interface AiConfigRow {
  client_id: string
  provider: string | null
  model: string | null
  base_url: string | null
  /** AES-256-GCM sealed (lib/secret-box), never the plaintext */
  api_key_enc: string | null
  temperature: number | null
  max_tokens: number | null
  schedule: string | null
  /** 1 or 0, on either engine */
  enabled: number
  prompt: string | null
  last_run_at: number | null
  updated_at: number
}

export interface UsageRow {
  id: string
  client_id: string
  device_id: string | null
  kind: string
  provider: string
  model: string | null
  tokens_in: number | null
  tokens_out: number | null
  latency_ms: number | null
  status: string
  error: string | null
  created_at: number
}

/** A client's schedule settings; null columns: no config row yet. */
export interface ScheduleRow {
  client_id: string
  enabled: number | null
  schedule: string | null
  last_run_at: number | null
}

export interface UsageTotals {
  calls: number
  ok: number
  tokens_in: number
  tokens_out: number
}

export interface UsageEntryIn {
  deviceId: string | null
  kind: string
  provider: string
  model: string | null
}

export interface CallOutcomeRow {
  status: string
  error: string | null
  tokensIn: number | null
  tokensOut: number | null
  latencyMs: number
  model: string | null
}

export type ConfigChanges = Partial<Omit<AiConfigRow, 'client_id' | 'updated_at' | 'last_run_at' | 'enabled'>> & { enabled?: boolean }

export const CONFIG_COLUMNS = ['provider', 'model', 'base_url', 'api_key_enc', 'temperature', 'max_tokens', 'schedule', 'enabled', 'prompt'] as const
export const AI_CONFIG_COLS = 'client_id, provider, model, base_url, api_key_enc, temperature, max_tokens, schedule, enabled, prompt, last_run_at, updated_at'
export const USAGE_COLS = 'id, client_id, device_id, kind, provider, model, tokens_in, tokens_out, latency_ms, status, error, created_at'

/** the columns a change sets, with their values as stored (enabled as 1/0; the PostgreSQL store turns it back to a boolean) */
export const changedColumns = (changes: ConfigChanges) =>
  CONFIG_COLUMNS.filter((c) => c in changes).map((c) => [c, c === 'enabled' ? (changes.enabled ? 1 : 0) : (changes[c] ?? null)] as const)

/**
 * The ai_configs and ai_usage tables, on either engine (this file: SQLite; ai.store.pg.ts:
 * PostgreSQL). Every read and write filters by client_id; the usage row's own id is the one a
 * reservation handed out. What must read and write together (a budget reservation, claiming a
 * scheduled run) is one call.
 */
export interface AiStore {
  config(clientId: string): Promise<AiConfigRow | null>
  /** makes the client's row when it has none, sets the columns given, and answers the row as it is now */
  update(clientId: string, changes: ConfigChanges, now: number): Promise<AiConfigRow>
  /** these clients with their schedule settings, in the order given */
  scheduleOf(clientIds: string[]): Promise<ScheduleRow[]>
  /**
   * Claims the client's scheduled run: last_run_at becomes `now` only while it still is `seen`
   * (what scheduleOf answered), so of two hubs running the schedule at once one wins.
   */
  claimRun(clientId: string, seen: number | null, now: number): Promise<boolean>
  /**
   * Reserves one call of today's budget, atomically with the check, so concurrent runs (on any
   * hub) cannot overspend. The usage id, or null when the budget is spent.
   */
  reserveCall(clientId: string, budget: number, dayStart: number, entry: UsageEntryIn, now: number): Promise<string | null>
  callsSince(clientId: string, since: number): Promise<number>
  finishCall(id: string, r: CallOutcomeRow): Promise<void>
  /** the client's calls within [from, to], newest first (ties by id, descending), with totals over the range */
  usage(clientId: string, from: number, to: number, limit: number, offset: number): Promise<{ items: UsageRow[]; totals: UsageTotals }>
}

export function createAiStore(sqlite: Database): AiStore {
  const get = sqlite.query<AiConfigRow, [string]>(`SELECT ${AI_CONFIG_COLS} FROM ai_configs WHERE client_id = ?`)
  const ensure = sqlite.query('INSERT OR IGNORE INTO ai_configs (client_id, enabled, updated_at) VALUES (?, 1, ?)')
  const claim = sqlite.query<{ client_id: string }, [string, number, number, number | null]>(
    `INSERT INTO ai_configs (client_id, enabled, updated_at, last_run_at) VALUES (?1, 1, ?2, ?3)
     ON CONFLICT (client_id) DO UPDATE SET last_run_at = excluded.last_run_at WHERE ai_configs.last_run_at IS ?4 RETURNING client_id`,
  )
  const scheduled = sqlite.query<ScheduleRow, [string]>(
    `SELECT d.value AS client_id, c.enabled, c.schedule, c.last_run_at
     FROM json_each(?) d LEFT JOIN ai_configs c ON c.client_id = d.value ORDER BY d.key`,
  )
  const callsSince = sqlite.query<{ n: number }, [string, number]>('SELECT COUNT(*) AS n FROM ai_usage WHERE client_id = ? AND created_at >= ?')
  const reserve = sqlite.query(
    "INSERT INTO ai_usage (id, client_id, device_id, kind, provider, model, status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)",
  )
  const finish = sqlite.query('UPDATE ai_usage SET status = ?, error = ?, tokens_in = ?, tokens_out = ?, latency_ms = ?, model = ? WHERE id = ?')
  const usagePage = sqlite.query<UsageRow, [string, number, number, number, number]>(
    `SELECT ${USAGE_COLS} FROM ai_usage WHERE client_id = ? AND created_at >= ? AND created_at <= ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  )
  const usageTotals = sqlite.query<UsageTotals, [string, number, number]>(
    `SELECT COUNT(*) AS calls, COALESCE(SUM(status = 'ok'), 0) AS ok, COALESCE(SUM(tokens_in), 0) AS tokens_in, COALESCE(SUM(tokens_out), 0) AS tokens_out
     FROM ai_usage WHERE client_id = ? AND created_at >= ? AND created_at <= ?`,
  )
  const update = sqlite.transaction((clientId: string, changes: ConfigChanges, now: number) => {
    ensure.run(clientId, now)
    const cols = changedColumns(changes)
    if (cols.length)
      sqlite.run(`UPDATE ai_configs SET ${cols.map(([c]) => `${c} = ?`).join(', ')}, updated_at = ? WHERE client_id = ?`, [
        ...cols.map(([, v]) => v),
        now,
        clientId,
      ])
    return get.get(clientId)!
  })
  const reserveCall = sqlite.transaction((clientId: string, budget: number, dayStart: number, entry: UsageEntryIn, now: number) => {
    if (callsSince.get(clientId, dayStart)!.n >= budget) return null
    const id = newId('aiu')
    reserve.run(id, clientId, entry.deviceId, entry.kind, entry.provider, entry.model, now)
    return id
  })

  return {
    config: async (clientId) => get.get(clientId),
    update: async (clientId, changes, now) => update.immediate(clientId, changes, now),
    scheduleOf: async (clientIds) => scheduled.all(JSON.stringify(clientIds)),
    claimRun: async (clientId, seen, now) => claim.get(clientId, now, now, seen) !== null,
    reserveCall: async (clientId, budget, dayStart, entry, now) => reserveCall.immediate(clientId, budget, dayStart, entry, now),
    callsSince: async (clientId, since) => callsSince.get(clientId, since)!.n,
    finishCall: async (id, r) => void finish.run(r.status, r.error, r.tokensIn, r.tokensOut, r.latencyMs, r.model, id),
    usage: async (clientId, from, to, limit, offset) => ({
      items: usagePage.all(clientId, from, to, limit, offset),
      totals: usageTotals.get(clientId, from, to)!,
    }),
  }
}
