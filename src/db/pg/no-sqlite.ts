import type { Database } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { newBackupStatus } from '../backup-schedule'
import type { DbHandle } from '../connection'
import { storageHealth } from '../storage-health'

/**
 * A hub on PostgreSQL has no SQLite file. Its `DbHandle` keeps what is not SQLite's (the storage
 * faults /health reports, the backup status the admin stats read) and stands in for the SQLite
 * connection with one that fails every statement it is asked to run, naming it: a store still
 * built on SQLite fails loudly on its first query (in the tests, and on the hub as a 500 for
 * that request) instead of quietly keeping its rows in a file no other hub reads.
 *
 * Statements are made at start-up by most stores and only run later, so making one is allowed;
 * running it, a transaction, or any other use of the connection throws NoSqliteError.
 */
export class NoSqliteError extends Error {
  override name = 'NoSqliteError'
  constructor(what: string) {
    super(`no SQLite on a PostgreSQL hub: ${what} reached the SQLite connection (a store not yet converted to PostgreSQL)`)
  }
}

/** the first words of a statement, enough to tell which store made it */
const gist = (text: unknown) => `the statement "${String(text).replace(/\s+/g, ' ').trim().slice(0, 80)}"`

function refusingStatement(text: unknown): object {
  const refuse = () => {
    throw new NoSqliteError(gist(text))
  }
  return new Proxy(
    {},
    {
      get(_, name) {
        // what a caller may ask of a statement without running it
        if (name === 'finalize' || name === Symbol.dispose) return () => {}
        if (name === 'as' || name === 'safeIntegers') return () => refusingStatement(text)
        if (name === 'toString') return () => String(text)
        if (name === 'then') return undefined
        return refuse
      },
    },
  )
}

function refusingSqlite(): Database {
  return new Proxy({} as Database, {
    get(_, name) {
      if (name === 'query' || name === 'prepare') return (text: unknown) => refusingStatement(text)
      // a store wraps its transactions at start-up and runs them later
      if (name === 'transaction')
        return () => () => {
          throw new NoSqliteError('a SQLite transaction')
        }
      // drizzle and a store's constructor may read these without using the connection
      if (name === 'filename') return ''
      if (name === 'then') return undefined
      if (name === 'close') return () => {}
      return (...args: unknown[]) => {
        throw new NoSqliteError(typeof args[0] === 'string' ? `sqlite.${String(name)}(), ${gist(args[0])},` : `sqlite.${String(name)}()`)
      }
    },
  })
}

export function noSqliteHandle(): DbHandle {
  const sqlite = refusingSqlite()
  return {
    sqlite,
    db: drizzle({ client: sqlite }),
    health: storageHealth(),
    backups: newBackupStatus(),
    close() {},
  }
}

/**
 * A store a domain still builds on SQLite's statements alone, as a hub on PostgreSQL sees it:
 * building it runs nothing, and any use fails with NoSqliteError naming it (`what.method()`).
 */
export function sqliteOnlyStore<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get(_, name) {
      if (name === 'then') return undefined
      return () => {
        throw new NoSqliteError(`${what}.${String(name)}()`)
      }
    },
  })
}
