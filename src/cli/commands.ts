import { accessSync, closeSync, constants, existsSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type { Config } from '../config'
import { openDatabase } from '../db/connection'
import { migrationStatus } from '../db/migrate'
import { systemClock } from '../lib/clock'
import { createLogger } from '../lib/logger'
import { lockForService, openAndMigrate, requireDatabase, StartupError } from './open'

const quietLogger = (config: Config) => createLogger({ level: config.logLevel, format: 'pretty', write: (l) => console.error(l) })

export function migrateCommand(config: Config, sub: string | undefined): number {
  if (sub === 'status') {
    const db = openDatabase(requireDatabase(config), { synchronous: config.synchronous, create: false })
    try {
      for (const m of migrationStatus(db.sqlite)) {
        console.log(`${m.applied ? 'applied ' : 'pending '} ${m.tag}${m.appliedAt ? `  ${new Date(m.appliedAt).toISOString()}` : ''}`)
      }
    } finally {
      db.sqlite.close()
    }
    return 0
  }
  if (sub !== undefined) throw new StartupError(`unknown migrate subcommand "${sub}" (expected nothing or "status")`)
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
 * A consistent snapshot with VACUUM INTO: safe while the server is running (WAL readers do not
 * block). It holds password hashes and encrypted secrets, so it is written 0600 from its first
 * byte: into a temp file made 0600 beside the target, then put in place whole (a failed backup
 * never leaves a partial file under the target's name).
 */
export function backupCommand(config: Config, out: string | undefined, force = false): number {
  if (!out) throw new StartupError('backup needs --out FILE')
  const target = resolve(out)
  const dir = dirname(target)
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new StartupError(`the output directory ${dir} does not exist`)
  try {
    accessSync(dir, constants.W_OK)
  } catch {
    throw new StartupError(`the output directory ${dir} is not writable`)
  }
  if (!force && existsSync(target)) throw new StartupError(`${target} exists; choose a new file name, or add --force to replace it`)
  const path = requireDatabase(config)
  const tmp = join(dir, `.${basename(target)}.${process.pid}.tmp`)
  closeSync(openSync(tmp, 'wx', 0o600)) // VACUUM INTO writes into an empty existing file, keeping its mode
  try {
    const db = openDatabase(path, { synchronous: config.synchronous, create: false })
    try {
      db.sqlite.run('VACUUM INTO ?', [tmp])
    } catch (err) {
      throw new StartupError(`cannot write the backup to ${target}: ${(err as Error).message}`)
    } finally {
      db.sqlite.close()
    }
    if (force) renameSync(tmp, target)
    else placeNew(tmp, target)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new StartupError(`${target} exists; choose a new file name, or add --force to replace it`)
    throw err
  } finally {
    rmSync(tmp, { force: true })
  }
  console.log(`backup written to ${target}`)
  return 0
}

/** Puts tmp at target unless target exists; a hard link makes that one atomic step where the filesystem has them. */
function placeNew(tmp: string, target: string) {
  try {
    linkSync(tmp, target)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err
    if (existsSync(target)) throw Object.assign(new Error('exists'), { code: 'EEXIST' }) // FAT and the like: check, then rename
    renameSync(tmp, target)
  }
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
