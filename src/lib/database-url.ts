import { redactUrl } from './url-secrets'

/**
 * The database settings: VIGIL_DATABASE_URL picks PostgreSQL (unset: SQLite in the data dir) and
 * VIGIL_DATABASE_POOL sizes its connection pool. The URL carries a password, so nothing here
 * ever repeats it: errors and every printed form go through `redactUrl` (url-secrets.ts).
 */

export interface DatabaseSettings {
  /** postgres:// or postgresql:// URL; null: SQLite in the data dir */
  url: string | null
  /** connections the hub keeps open to PostgreSQL at most */
  pool: number
}

/** A URL longer than this is a mistake (a pasted file), not a connection string. */
export const MAX_DATABASE_URL_LENGTH = 2048
/**
 * Two cores wait on the database more than they compute: a few connections keep both busy
 * while one query waits, and each costs PostgreSQL a process (several MB), so more only helps
 * a larger machine, which sets VIGIL_DATABASE_POOL.
 */
export const DEFAULT_POOL = 4
export const MAX_POOL = 100

/** Parses the settings; `fail` raises the configuration's own error with the message. */
export function databaseSettings(rawUrl: string | undefined, rawPool: string | undefined, fail: (message: string) => never): DatabaseSettings {
  return { url: databaseUrl(rawUrl, fail), pool: poolSize(rawPool, fail) }
}

function databaseUrl(raw: string | undefined, fail: (message: string) => never): string | null {
  const v = raw?.trim()
  if (!v) return null
  if (v.length > MAX_DATABASE_URL_LENGTH) fail(`VIGIL_DATABASE_URL must be at most ${MAX_DATABASE_URL_LENGTH} characters, got ${v.length}`)
  let u: URL
  try {
    u = new URL(v)
  } catch {
    return fail('VIGIL_DATABASE_URL must be a URL such as postgres://vigil:PASSWORD@db.example.com:5432/vigil (the value given is not a URL)')
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    fail(`VIGIL_DATABASE_URL must start with postgres:// or postgresql:// (PostgreSQL is the only other engine; unset it for SQLite), got ${redactUrl(v)}`)
  }
  if (!u.hostname) fail(`VIGIL_DATABASE_URL must name the server's host, got ${redactUrl(v)}`)
  if (u.pathname.length <= 1) fail(`VIGIL_DATABASE_URL must name the database (…/vigil at its end), got ${redactUrl(v)}`)
  return v
}

function poolSize(raw: string | undefined, fail: (message: string) => never): number {
  const v = raw?.trim()
  if (!v) return DEFAULT_POOL
  if (!/^\d+$/.test(v)) fail(`VIGIL_DATABASE_POOL must be a whole number, got "${v.slice(0, 40)}"`)
  const n = Number(v)
  if (n < 1 || n > MAX_POOL) fail(`VIGIL_DATABASE_POOL must be between 1 and ${MAX_POOL}, got ${n}`)
  return n
}
