import { redactUrl } from '../../lib/url-secrets'

/**
 * `vigil backup` and `vigil restore` copy the data dir's SQLite file: a PostgreSQL database is
 * backed up with PostgreSQL's own tools (docs/scale-out.md shows the commands).
 */
export const backupOnPostgres = (url: string, command: 'backup' | 'restore') =>
  `VIGIL_DATABASE_URL is set (${redactUrl(url)}): "vigil ${command}" copies the data dir's SQLite database only; ${
    command === 'backup' ? 'back PostgreSQL up with pg_dump' : 'restore PostgreSQL with pg_restore'
  } (docs/scale-out.md, "Backups"), and keep the data dir's jwt-secret and secret.key with it`
