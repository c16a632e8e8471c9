import { redactUrl } from '../../lib/url-secrets'

/**
 * Why `vigil serve` refuses VIGIL_DATABASE_URL: only some stores run on PostgreSQL so far
 * (docs/scale-out.md), and a hub half on each engine would lose data between them.
 */
export const servePostgresRefusal = (url: string) =>
  `VIGIL_DATABASE_URL is set (${redactUrl(url)}), but "vigil serve" cannot run on PostgreSQL yet: most of the hub's data is still stored in SQLite only (docs/scale-out.md). What works on PostgreSQL today is "vigil migrate" (and "vigil migrate --status"); unset VIGIL_DATABASE_URL to serve from the data dir's SQLite database`

/**
 * `vigil backup` and `vigil restore` copy the data dir's SQLite file: a PostgreSQL database is
 * backed up with PostgreSQL's own tools (docs/scale-out.md shows the commands).
 */
export const backupOnPostgres = (url: string, command: 'backup' | 'restore') =>
  `VIGIL_DATABASE_URL is set (${redactUrl(url)}): "vigil ${command}" copies the data dir's SQLite database only; ${
    command === 'backup' ? 'back PostgreSQL up with pg_dump' : 'restore PostgreSQL with pg_restore'
  } (docs/scale-out.md, "Backups"), and keep the data dir's jwt-secret and secret.key with it`
