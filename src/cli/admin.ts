import type { Config } from '../config'
import { systemClock, type Clock } from '../lib/clock'
import { createLogger, type Logger } from '../lib/logger'
import { MigrationError } from '../db/migrate'
import { describePostgresError, openPostgres } from '../db/pg/connection'
import { migratePostgres } from '../db/pg/migrate'
import { redactUrl } from '../lib/url-secrets'
import { AppError } from '../http/errors'
import { DEFAULT_PASSWORD_COST, PASSWORD_MAX, PASSWORD_MIN, passwords, type PasswordCost } from '../modules/users/users.passwords'
import { createAccount, resetPassword, setUserRole } from '../modules/users/users.service'
import { accountTasks } from '../composition/identity'
import { databasePath } from '../db/data-dir'
import { openBesideService, requireDatabase } from './open'
import { StartupError } from './errors'

export interface AdminOptions {
  email?: string
  role?: string
  passwordStdin: boolean
}

export interface AdminIo {
  readStdin(): Promise<string>
  print(line: string): void
  clock?: Clock
  passwordCost?: PasswordCost
}

const defaultIo: AdminIo = { readStdin: () => Bun.stdin.text(), print: (l) => console.log(l) }

/** The password comes on stdin (never as an argument: it would sit in the shell history and `ps`). */
async function readPassword(opts: AdminOptions, io: AdminIo): Promise<string> {
  if (!opts.passwordStdin) throw new StartupError('this command needs --password-stdin (e.g. `printf %s "$PASS" | vigil admin … --password-stdin`)')
  const password = (await io.readStdin()).replace(/\r?\n$/, '')
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw new StartupError(`the password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`)
  }
  return password
}

function needEmail(opts: AdminOptions): string {
  if (!opts.email || !/^[^@\s]+@[^@\s]+$/.test(opts.email)) throw new StartupError('this command needs --email ADDRESS')
  return opts.email
}

/**
 * `vigil admin create|set-role|reset-password|list`: operator accounts from the shell, for a
 * fresh instance or a locked-out operator. Works on the data dir's database directly.
 */
export async function adminCommand(config: Config, sub: string | undefined, opts: AdminOptions, io: AdminIo = defaultIo): Promise<number> {
  const clock = io.clock ?? systemClock
  const logger = createLogger({ level: 'warn', format: 'pretty', write: (l) => console.error(l) })
  const known = ['create', 'set-role', 'reset-password', 'list']
  if (!sub || !known.includes(sub)) throw new StartupError(`admin needs a subcommand: ${known.join(', ')} (see vigil admin --help)`)
  // Validate everything before touching the database.
  const email = sub === 'list' ? '' : needEmail(opts)
  if (sub === 'set-role' && opts.role !== 'admin' && opts.role !== 'user') throw new StartupError('set-role needs --role admin or --role user')
  const password = sub === 'create' || sub === 'reset-password' ? await readPassword(opts, io) : ''

  const db = await openAccounts(config, sub, logger, clock)
  const deps = accountTasks(db.on, clock, passwords(io.passwordCost ?? DEFAULT_PASSWORD_COST))
  try {
    switch (sub) {
      case 'create': {
        const user = await createAccount(deps, { email, password }, 'admin')
        io.print(`created operator ${user.email} (${user.id}) with its own client ${user.client_id} in ${db.where}`)
        break
      }
      case 'set-role': {
        const user = await setUserRole(deps, email, opts.role as 'admin' | 'user')
        io.print(`${user.email} is now ${user.role === 'admin' ? 'an operator (admin)' : 'a user'}`)
        break
      }
      case 'reset-password': {
        const user = await resetPassword(deps, email, password)
        io.print(`password of ${user.email} reset; all of its sessions were signed out`)
        break
      }
      case 'list': {
        const rows = await deps.store.operators()
        if (!rows.length) io.print('no operators yet: the first account registered becomes one, or run `vigil admin create`')
        for (const r of rows) io.print(`${r.email}\t${r.id}`)
        break
      }
    }
    return 0
  } catch (err) {
    if (err instanceof AppError)
      throw new StartupError(
        err.code === 'email_taken' ? `${email} already has an account; use "vigil admin set-role --email ${email} --role admin"` : err.message,
      )
    throw err
  } finally {
    await db.close()
  }
}

/**
 * The database the account tasks work on: PostgreSQL when VIGIL_DATABASE_URL is set (migrated
 * first, under the advisory lock, so a fresh one can take its operator), else the data dir's
 * SQLite database beside a running service. On PostgreSQL, hubs see a role set here within
 * DIRECTORY_TTL_MS (users.directory.ts): this process is not one of them and tells none.
 */
async function openAccounts(config: Config, sub: string, logger: Logger, clock: Clock) {
  const url = config.database.url
  if (url !== null) {
    const sql = openPostgres({ url, pool: 1 })
    try {
      await migratePostgres(sql, clock.now())
    } catch (err) {
      await sql.close().catch(() => {})
      if (err instanceof MigrationError) throw new StartupError(`${redactUrl(url)}: ${err.message}`)
      throw new StartupError(describePostgresError(err, url))
    }
    return { on: { db: noSqlite, pg: sql }, where: redactUrl(url), close: () => sql.close() }
  }
  // `create` may bootstrap a fresh instance; the others only make sense on an existing database
  if (sub !== 'create') requireDatabase(config)
  const db = openBesideService(config, logger, clock.now())
  return { on: { db, pg: null }, where: databasePath(config), close: async () => db.close() }
}

/** what the account tasks are handed for SQLite on PostgreSQL: never read (onEngine picks PostgreSQL) */
const noSqlite = {
  get sqlite(): never {
    throw new Error('no SQLite database: the account tasks run on PostgreSQL')
  },
}
