/**
 * The PostgreSQL schema, made from the same table definitions as SQLite's: every `sqliteTable` of
 * `src/modules/*\/*.table.ts` becomes a `pgTable` with the same name, columns, keys, foreign keys and
 * indexes. `bun run db:generate` has drizzle-kit write PostgreSQL's migrations from these
 * (`migrations-pg/`), so one edit of a table file changes both engines' schemas.
 *
 * Types: SQLite INTEGER (64-bit) becomes bigint (numbers up to 2^53, as JavaScript holds them; an
 * INTEGER PRIMARY KEY an identity column, as SQLite numbers such rows itself), INTEGER in boolean mode boolean, REAL double precision,
 * TEXT text, BLOB bytea. Defaults are kept as written.
 */
import { type AnyColumn, getTableColumns, is, SQL, sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  bigint,
  boolean,
  customType,
  doublePrecision,
  foreignKey,
  index,
  type PgColumnBuilderBase,
  type PgTableWithColumns,
  pgTable,
  primaryKey,
  text,
  unique,
} from 'drizzle-orm/pg-core'
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import * as ai from '../../modules/ai/ai.table'
import * as alerts from '../../modules/alerts/alerts.table'
import * as apiKeys from '../../modules/api-keys/api-keys.table'
import * as billing from '../../modules/billing/billing.table'
import * as channels from '../../modules/channels/channels.table'
import * as checks from '../../modules/checks/checks.table'
import * as clients from '../../modules/clients/clients.table'
import * as containers from '../../modules/containers/containers.table'
import * as devices from '../../modules/devices/devices.table'
import * as disks from '../../modules/disks/disks.table'
import * as enrolments from '../../modules/enrolments/enrolments.table'
import * as metrics from '../../modules/metrics/metrics.table'
import * as recommendations from '../../modules/recommendations/recommendations.table'
import * as statusPages from '../../modules/status-pages/status-pages.table'
import * as users from '../../modules/users/users.table'
import * as versions from '../../modules/versions/versions.table'
import * as webhooks from '../../modules/webhooks/webhooks.table'

/** Every domain's table module; a test checks that this list matches the table files on disk. */
export const TABLE_MODULES: Record<string, Record<string, unknown>> = {
  ai,
  alerts,
  'api-keys': apiKeys,
  billing,
  channels,
  checks,
  clients,
  containers,
  devices,
  disks,
  enrolments,
  metrics,
  recommendations,
  'status-pages': statusPages,
  users,
  versions,
  webhooks,
}

/** The SQLite tables of every domain, by table name. */
export function sqliteTables(): Map<string, SQLiteTable> {
  const out = new Map<string, SQLiteTable>()
  for (const mod of Object.values(TABLE_MODULES)) {
    for (const value of Object.values(mod)) {
      if (is(value, SQLiteTable)) out.set(getTableConfig(value).name, value)
    }
  }
  return out
}

/** PostgreSQL's byte string (drizzle's pg-core has no builder of its own for it). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' })

// biome-ignore lint/suspicious/noExplicitAny: a table whose columns are only known at run time
type AnyPgTable = PgTableWithColumns<any>

function pgColumn(col: AnyColumn): PgColumnBuilderBase {
  const c = col as AnyColumn & { columnType: string; autoIncrement?: boolean; isUnique: boolean; uniqueName?: string }
  // biome-ignore lint/suspicious/noExplicitAny: the builders differ by type; their shared methods are used below
  let b: any
  switch (c.columnType) {
    case 'SQLiteInteger':
    case 'SQLiteTimestamp':
      b = bigint(c.name, { mode: 'number' })
      // SQLite numbers a row itself when its INTEGER PRIMARY KEY is left out (a rowid alias), AUTOINCREMENT or not
      if (c.autoIncrement || c.primary) b = b.generatedByDefaultAsIdentity()
      break
    case 'SQLiteBoolean':
      b = boolean(c.name)
      break
    case 'SQLiteReal':
      b = doublePrecision(c.name)
      break
    case 'SQLiteText':
    case 'SQLiteTextJson':
      b = text(c.name)
      break
    case 'SQLiteBlobBuffer':
    case 'SQLiteBlobJson':
    case 'SQLiteBigInt':
      b = bytea(c.name)
      break
    default:
      throw new Error(`no PostgreSQL type for ${c.columnType} (column ${c.name})`)
  }
  if (c.primary) b = b.primaryKey()
  else if (c.notNull) b = b.notNull()
  if (c.isUnique) b = b.unique(c.uniqueName)
  if (c.hasDefault && c.default !== undefined) b = b.default(c.default)
  return b
}

/** Columns by SQL name (the twins are keyed by their SQL names). */
type ColumnsByName = Record<string, AnyPgColumn>

/** An index's key parts: columns by name on the new table, SQL parts (`… DESC`) rewritten to name them. */
function indexParts(parts: unknown[], cols: ColumnsByName): (AnyPgColumn | SQL)[] {
  return parts.map((p) => {
    if (is(p, SQL)) {
      const chunks = p.queryChunks.map((chunk) => {
        const name = (chunk as { name?: string }).name
        return typeof name === 'string' && cols[name] ? cols[name] : chunk
      })
      return sql.join(chunks as SQL[])
    }
    return cols[(p as AnyColumn).name] as AnyPgColumn
  })
}

/** The PostgreSQL twin of every SQLite table, by table name. */
export function pgTablesFromSqlite(tables: Map<string, SQLiteTable> = sqliteTables()): Map<string, AnyPgTable> {
  const out = new Map<string, AnyPgTable>()
  for (const [name, table] of tables) {
    const config = getTableConfig(table)
    const columns: Record<string, PgColumnBuilderBase> = {}
    for (const col of config.columns) columns[col.name] = pgColumn(col)
    const pg = pgTable(name, columns, (t) => {
      const self = t as unknown as ColumnsByName
      const extra: unknown[] = []
      for (const pk of config.primaryKeys) {
        extra.push(primaryKey({ columns: pk.columns.map((c) => self[c.name]) as [AnyPgColumn, ...AnyPgColumn[]] }))
      }
      for (const fk of config.foreignKeys) {
        const ref = fk.reference()
        const foreign = out.get(getTableConfig(ref.foreignTable).name)
        if (!foreign) throw new Error(`${name}: a foreign key points at a table not in the schema`)
        let b = foreignKey({
          columns: ref.columns.map((c) => self[c.name]) as [AnyPgColumn, ...AnyPgColumn[]],
          foreignColumns: ref.foreignColumns.map((c) => (getTableColumns(foreign) as ColumnsByName)[c.name]) as [AnyPgColumn, ...AnyPgColumn[]],
        })
        if (fk.onDelete) b = b.onDelete(fk.onDelete)
        if (fk.onUpdate) b = b.onUpdate(fk.onUpdate)
        extra.push(b)
      }
      for (const idx of config.indexes) {
        const parts = indexParts(idx.config.columns as unknown[], self) as [AnyPgColumn | SQL, ...(AnyPgColumn | SQL)[]]
        // A unique index on plain columns becomes a unique constraint: PostgreSQL makes the same index for
        // it, and creates it with the table, before the foreign keys that may point at it (SQLite lets a
        // foreign key point at a unique index's columns; drizzle-kit adds PostgreSQL's indexes last).
        if (idx.config.unique && !idx.config.where && parts.every((p) => !is(p, SQL))) {
          extra.push(unique(idx.config.name).on(...(parts as [AnyPgColumn, ...AnyPgColumn[]])))
          continue
        }
        const builder = index(idx.config.name).on(...parts)
        if (idx.config.unique) throw new Error(`${name}: a unique index on expressions or with a condition has no PostgreSQL twin yet`)
        extra.push(idx.config.where ? builder.where(idx.config.where) : builder)
      }
      // biome-ignore lint/suspicious/noExplicitAny: the extra config's element type is a union drizzle does not export
      return extra as any
    })
    out.set(name, pg as AnyPgTable)
  }
  return out
}
