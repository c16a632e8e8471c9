import { redactUrl } from '../../lib/url-secrets'

/**
 * Why `vigil serve` refuses VIGIL_DATABASE_URL: only some stores run on PostgreSQL so far
 * (docs/scale-out.md), and a hub half on each engine would lose data between them.
 */
export const servePostgresRefusal = (url: string) =>
  `VIGIL_DATABASE_URL is set (${redactUrl(url)}), but "vigil serve" cannot run on PostgreSQL yet: most of the hub's data is still stored in SQLite only (docs/scale-out.md). What works on PostgreSQL today is "vigil migrate" (and "vigil migrate --status"); unset VIGIL_DATABASE_URL to serve from the data dir's SQLite database`
