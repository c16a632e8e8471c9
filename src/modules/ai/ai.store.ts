import type { Database } from 'bun:sqlite'
import { newId } from '../../lib/ids'

export interface AiConfigRow {
  client_id: string
  provider: string | null
  model: string | null
  base_url: string | null
  api_key_enc: string | null
  temperature: number | null
  max_tokens: number | null
  schedule: string | null
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

export type ConfigChanges = Partial<Omit<AiConfigRow, 'client_id' | 'updated_at' | 'last_run_at' | 'enabled'>> & { enabled?: boolean }

const CONFIG_COLUMNS = ['provider', 'model', 'base_url', 'api_key_enc', 'temperature', 'max_tokens', 'schedule', 'enabled', 'prompt'] as const

export function createAiStore(sqlite: Database) {
  const get = sqlite.query<AiConfigRow, [string]>('SELECT * FROM ai_configs WHERE client_id = ?')
  const ensure = sqlite.query('INSERT OR IGNORE INTO ai_configs (client_id, enabled, updated_at) VALUES (?, 1, ?)')
  const markRun = sqlite.query('UPDATE ai_configs SET last_run_at = ? WHERE client_id = ?')
  const scheduled = sqlite.query<{ client_id: string; enabled: number | null; schedule: string | null; last_run_at: number | null }, [string]>(
    `SELECT d.value AS client_id, c.enabled, c.schedule, c.last_run_at
     FROM json_each(?) d LEFT JOIN ai_configs c ON c.client_id = d.value ORDER BY d.key`,
  )
  const callsSince = sqlite.query<{ n: number }, [string, number]>('SELECT COUNT(*) AS n FROM ai_usage WHERE client_id = ? AND created_at >= ?')
  const reserve = sqlite.query(
    "INSERT INTO ai_usage (id, client_id, device_id, kind, provider, model, status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)",
  )
  const finish = sqlite.query('UPDATE ai_usage SET status = ?, error = ?, tokens_in = ?, tokens_out = ?, latency_ms = ?, model = ? WHERE id = ?')
  const usagePage = sqlite.query<UsageRow, [string, number, number, number, number]>(
    'SELECT * FROM ai_usage WHERE client_id = ? AND created_at >= ? AND created_at <= ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?',
  )
  const usageTotals = sqlite.query<{ calls: number; ok: number; tokens_in: number; tokens_out: number }, [string, number, number]>(
    `SELECT COUNT(*) AS calls, COALESCE(SUM(status = 'ok'), 0) AS ok, COALESCE(SUM(tokens_in), 0) AS tokens_in, COALESCE(SUM(tokens_out), 0) AS tokens_out
     FROM ai_usage WHERE client_id = ? AND created_at >= ? AND created_at <= ?`,
  )

  return {
    config: (clientId: string) => get.get(clientId),

    update(clientId: string, changes: ConfigChanges, now: number): AiConfigRow {
      const cols = CONFIG_COLUMNS.filter((c) => c in changes)
      sqlite.transaction(() => {
        ensure.run(clientId, now)
        if (cols.length === 0) return
        const values = cols.map((c) => (c === 'enabled' ? (changes.enabled ? 1 : 0) : (changes[c] ?? null)))
        sqlite.run(`UPDATE ai_configs SET ${cols.map((c) => `${c} = ?`).join(', ')}, updated_at = ? WHERE client_id = ?`, [...values, now, clientId])
      })()
      return get.get(clientId)!
    },

    /** these clients with their schedule settings, in the order given (null columns: no config row yet) */
    scheduleOf: (clientIds: string[]) => scheduled.all(JSON.stringify(clientIds)),
    markRun(clientId: string, now: number) {
      ensure.run(clientId, now)
      markRun.run(now, clientId)
    },

    /**
     * Reserves one call of today's budget, atomically with the check, so concurrent runs
     * cannot overspend. Returns the usage id, or null when the budget is spent.
     */
    reserveCall(
      clientId: string,
      budget: number,
      dayStart: number,
      entry: { deviceId: string | null; kind: string; provider: string; model: string | null },
      now: number,
    ) {
      return sqlite.transaction(() => {
        if (callsSince.get(clientId, dayStart)!.n >= budget) return null
        const id = newId('aiu')
        reserve.run(id, clientId, entry.deviceId, entry.kind, entry.provider, entry.model, now)
        return id
      })()
    },
    callsSince: (clientId: string, since: number) => callsSince.get(clientId, since)!.n,
    finishCall(
      id: string,
      r: { status: string; error: string | null; tokensIn: number | null; tokensOut: number | null; latencyMs: number; model: string | null },
    ) {
      finish.run(r.status, r.error, r.tokensIn, r.tokensOut, r.latencyMs, r.model, id)
    },
    usage(clientId: string, from: number, to: number, limit: number, offset: number) {
      return { items: usagePage.all(clientId, from, to, limit, offset), totals: usageTotals.get(clientId, from, to)! }
    },
  }
}

export type AiStore = ReturnType<typeof createAiStore>
