import type { Config } from '../config'
import { openDatabase } from '../db/connection'
import { migrationStatus, unknownMigrations } from '../db/migrate'
import { VERSION } from '../version'
import { systemClock } from '../lib/clock'
import { createLogger } from '../lib/logger'
import { lockForService, openAndMigrate, requireDatabase } from './open'
import { StartupError } from './errors'

const quietLogger = (config: Config) => createLogger({ level: config.logLevel, format: 'pretty', write: (l) => console.error(l) })

export function migrateCommand(config: Config, sub: string | undefined): number {
  if (sub === 'status') {
    const path = requireDatabase(config)
    const db = openDatabase(path, { synchronous: config.synchronous, create: false })
    try {
      const status = migrationStatus(db.sqlite)
      const unknown = unknownMigrations(db.sqlite)
      const pending = status.filter((m) => !m.applied).length
      console.log(`${path}: ${status.length - pending} applied, ${pending} pending (vigil ${VERSION})`)
      for (const m of status) {
        console.log(m.applied ? `applied   ${m.tag}  ${m.appliedAt ? new Date(m.appliedAt).toISOString() : ''}` : `pending   ${m.tag}`)
      }
      for (const tag of unknown) console.log(`unknown   ${tag}  (from a newer vigil)`)
      if (unknown.length) console.log('this vigil refuses the database: run the newer version, or restore a backup made by this one')
      else if (pending) console.log('the service applies pending migrations when it starts (or run "vigil migrate" with it stopped)')
    } finally {
      db.sqlite.close()
    }
    return 0
  }
  if (sub !== undefined)
    throw new StartupError(`unknown migrate subcommand "${sub}"; run "vigil migrate" to apply pending migrations or "vigil migrate status" to list them`)
  // a schema change under a running service would hand it tables it does not know
  const now = systemClock.now()
  const lock = lockForService(config, now, 'stop the service first (it applies pending migrations itself when it starts)')
  try {
    openAndMigrate(config, quietLogger(config), now).close()
  } finally {
    lock.release()
  }
  console.log('database is up to date')
  return 0
}

/**
 * 0 when /health answers 200 within 3 s, for container and systemd health checks. A failure
 * says on stderr which address was tried: a health check run without the service's own
 * VIGIL_PORT (another shell, a container's HEALTHCHECK) asks port 8080 and fails for that alone.
 */
export async function healthcheckCommand(config: Config, report: (line: string) => void = (l) => console.error(l)): Promise<number> {
  const scheme = config.tlsCert ? 'https' : 'http'
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.port}/health`
  let problem: string
  try {
    const res = await fetch(url, {
      signal: AbortSignal.timeout(3000),
      tls: { rejectUnauthorized: false },
    } as RequestInit)
    if (res.status === 200) return 0
    problem = `answered ${res.status}`
  } catch (err) {
    problem = (err as Error).name === 'TimeoutError' ? 'did not answer within 3 s' : `could not be reached (${(err as Error).message})`
  }
  report(
    `vigil healthcheck: ${url} ${problem}; if the service listens elsewhere, give this command its settings: VIGIL_PORT and VIGIL_HOST (or --port and --host), and VIGIL_TLS_CERT for https`,
  )
  return 1
}
