import { SQL } from 'bun'
import { systemTimers, type Timers } from '../../lib/timers'
import type { DatabaseSettings } from '../../lib/database-url'
import { redactUrl, urlPassword } from '../../lib/url-secrets'

/**
 * The hub's connections to PostgreSQL: one Bun.SQL pool (the driver Bun ships). Connections are
 * made on first use, not here, so opening never fails: the first query says what is wrong.
 */

/** How long making a connection may take before the query waiting for it fails. */
export const CONNECT_TIMEOUT_S = 10
/** An idle connection is closed after this long, so a quiet hub holds none of PostgreSQL's processes. */
const IDLE_TIMEOUT_S = 60
/** What `checkPostgres` (the /health probe) waits for `SELECT 1` at most. */
export const CHECK_TIMEOUT_MS = 2_000

export function openPostgres(settings: Pick<DatabaseSettings, 'pool'> & { url: string }): SQL {
  return new SQL(settings.url, {
    max: settings.pool,
    connectionTimeout: CONNECT_TIMEOUT_S,
    idleTimeout: IDLE_TIMEOUT_S,
    // pg_stat_activity names the hub's sessions
    connection: { application_name: 'vigil' },
  })
}

export type PostgresCheck = { ok: true; ms: number } | { ok: false; reason: string }

/**
 * `SELECT 1` within `timeoutMs`: the database's state for /health. Never throws; the reason is
 * safe to show (no password in it).
 */
export async function checkPostgres(sql: SQL, url: string, o: { timeoutMs?: number; timers?: Timers; now?: () => number } = {}): Promise<PostgresCheck> {
  const { timeoutMs = CHECK_TIMEOUT_MS, timers = systemTimers, now = () => performance.now() } = o
  const started = now()
  let cancel = () => {}
  const timeout = new Promise<never>((_, reject) => {
    cancel = timers.after(timeoutMs, () => reject(new Error(`no answer within ${timeoutMs} ms`)))
  })
  try {
    await Promise.race([sql`SELECT 1`, timeout])
    return { ok: true, ms: Math.round(now() - started) }
  } catch (err) {
    return { ok: false, reason: describePostgresError(err, url) }
  } finally {
    cancel()
  }
}

/** Bun.SQL's codes for a server it could not reach or lost: not the request's fault, and it passes when the server is back. */
const UNREACHABLE = new Set([
  'ERR_POSTGRES_CONNECTION_REFUSED',
  'ERR_POSTGRES_CONNECTION_FAILED',
  'ERR_POSTGRES_CONNECTION_TIMEOUT',
  'ERR_POSTGRES_CONNECTION_CLOSED',
])

/** Whether a thrown error (or one it wraps) says PostgreSQL could not be reached. */
export function isPostgresUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (UNREACHABLE.has(String((e as { code?: unknown }).code ?? ''))) return true
  }
  return false
}

/**
 * One line for an operator: what failed and where, the password left out. Bun's messages for a
 * connection that could not be made say only "Failed to connect", so the server is named here.
 */
export function describePostgresError(err: unknown, url: string): string {
  const e = err as { code?: string; message?: string }
  const where = redactUrl(url)
  const message = scrub(String(e?.message ?? err), url)
  switch (e?.code) {
    case 'ERR_POSTGRES_CONNECTION_REFUSED':
      return `cannot connect to PostgreSQL at ${where}: connection refused (is the server running and listening there?)`
    case 'ERR_POSTGRES_CONNECTION_FAILED':
    case 'ERR_POSTGRES_CONNECTION_TIMEOUT':
    case 'ERR_POSTGRES_CONNECTION_CLOSED':
      return `cannot connect to PostgreSQL at ${where}: ${message}`
    default:
      return `PostgreSQL at ${where}: ${message}`
  }
}

/** A driver message that quotes the URL or its password must not pass it on. */
function scrub(message: string, url: string): string {
  const out = message.split(url).join(redactUrl(url))
  const password = urlPassword(url)
  return password ? out.split(password).join('***') : out
}
