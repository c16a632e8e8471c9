import { newId } from '../../../src/lib/ids'
import type { TestApp } from '../../helpers/app'

/**
 * A notification channel row made directly in the database (an ntfy topic on a fake host):
 * what alert rules and routing may name. Nothing is sent to it here; tests of alerts listen
 * through the app's `notify` instead.
 */
export function insertChannel(t: TestApp, clientId: string, opts: { enabled?: boolean; minSeverity?: 'info' | 'warning' | 'critical' } = {}): string {
  const id = newId('chn')
  const now = t.clock.now()
  t.db.sqlite.run(
    'INSERT INTO channels (id, client_id, name, kind, config, secrets_enc, enabled, min_severity, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)',
    [
      id,
      clientId,
      `channel ${id}`,
      'ntfy',
      JSON.stringify({ server: 'https://ntfy.example.test', topic: 'alerts' }),
      opts.enabled === false ? 0 : 1,
      opts.minSeverity ?? 'info',
      now,
      now,
    ],
  )
  return id
}

/** insertChannel where the app keeps its channels: in PostgreSQL on a hub there, else in SQLite. */
export async function insertChannelOn(
  t: TestApp,
  clientId: string,
  opts: { enabled?: boolean; minSeverity?: 'info' | 'warning' | 'critical' } = {},
): Promise<string> {
  const sql = t.ctx.pg
  if (!sql) return insertChannel(t, clientId, opts)
  const id = newId('chn')
  const now = t.clock.now()
  const config = JSON.stringify({ server: 'https://ntfy.example.test', topic: 'alerts' })
  await sql`INSERT INTO channels (id, client_id, name, kind, config, secrets_enc, enabled, min_severity, created_at, updated_at)
    VALUES (${id}, ${clientId}, ${`channel ${id}`}, 'ntfy', ${config}, NULL, ${opts.enabled !== false}, ${opts.minSeverity ?? 'info'}, ${now}, ${now})`
  return id
}
