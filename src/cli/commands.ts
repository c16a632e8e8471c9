import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Config } from '../config'
import { openDatabase } from '../db/connection'
import { migrationStatus } from '../db/migrate'
import { systemClock } from '../lib/clock'
import { createLogger } from '../lib/logger'
import { databasePath } from './data-dir'
import { openAndMigrate, StartupError } from './open'

const quietLogger = (config: Config) => createLogger({ level: config.logLevel, format: 'pretty', write: (l) => console.error(l) })

export function migrateCommand(config: Config, sub: string | undefined): number {
  if (sub === 'status') {
    const path = databasePath(config)
    if (!existsSync(path)) {
      console.log(`no database yet at ${path}: every migration is pending`)
    }
    const db = openDatabase(path, { synchronous: config.synchronous })
    for (const m of migrationStatus(db.sqlite)) {
      console.log(`${m.applied ? 'applied ' : 'pending '} ${m.tag}${m.appliedAt ? `  ${new Date(m.appliedAt).toISOString()}` : ''}`)
    }
    db.sqlite.close()
    return 0
  }
  if (sub !== undefined) throw new StartupError(`unknown migrate subcommand "${sub}" (expected nothing or "status")`)
  const db = openAndMigrate(config, quietLogger(config), systemClock.now())
  db.close()
  console.log('database is up to date')
  return 0
}

/** A consistent snapshot with VACUUM INTO: safe while the server is running (WAL readers do not block). */
export function backupCommand(config: Config, out: string | undefined): number {
  if (!out) throw new StartupError('backup needs --out FILE')
  const target = resolve(out)
  if (existsSync(target)) throw new StartupError(`${target} exists; choose a new file name`)
  const path = databasePath(config)
  if (!existsSync(path)) throw new StartupError(`no database at ${path}`)
  const db = openDatabase(path, { synchronous: config.synchronous })
  try {
    db.sqlite.run('VACUUM INTO ?', [target])
  } finally {
    db.sqlite.close()
  }
  console.log(`backup written to ${target}`)
  return 0
}

/** Exit code only: 0 when /health answers 200 within 3 s. For container and systemd health checks. */
export async function healthcheckCommand(config: Config): Promise<number> {
  const scheme = config.tlsCert ? 'https' : 'http'
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  try {
    const res = await fetch(`${scheme}://${host}:${config.port}/health`, {
      signal: AbortSignal.timeout(3000),
      tls: { rejectUnauthorized: false },
    } as RequestInit)
    return res.status === 200 ? 0 : 1
  } catch {
    return 1
  }
}
