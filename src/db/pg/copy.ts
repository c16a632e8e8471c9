import type { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import { getTableConfig } from 'drizzle-orm/sqlite-core'
import { sqliteTables } from './schema'
import { PG_ONLY_METRICS, SQLITE_ONLY_METRICS, checksumSamples, copySamples, minuteRows } from './copy.samples'
import { PARTITIONS_LOCK } from './metrics.partitions'
import { CopyValueError, canonical, canonicalSql, type PgValue, RowChecksum, toPgValue, type TwinType, twinType } from './copy.values'

/**
 * Copies every table of a SQLite database into its PostgreSQL twin (src/db/pg/schema.ts), in one
 * transaction on the target: the copy lands whole or not at all, so a failure half-way leaves the
 * target as it was and the command can simply be run again (resumable batches would leave a
 * half-copied instance that looks usable). Rows go as multi-row INSERTs with bound parameters,
 * parents before children (foreign-key order), then each identity sequence is moved past the
 * copied maximum, and with `verify` every table's rows are read back and their checksums compared
 * before the transaction commits. The raw samples go into the form PostgreSQL hubs read
 * (copy.samples.ts), not into the twins of SQLite's own metric tables.
 */

export interface CopyColumn {
  name: string
  type: TwinType
}

export interface CopyTable {
  name: string
  columns: CopyColumn[]
}

export interface TableCopied {
  table: string
  rows: number
  ms: number
  /** the source's checksum, and the target's when verified */
  checksum: string
  verified?: { rows: number; checksum: string }
}

export class CopyError extends Error {
  override name = 'CopyError'
}

/** Tables of the source that are not the instance's data: the migration ledger (the target keeps its own), SQLite's own. */
const SOURCE_INTERNAL = (name: string) => name === '__vigil_migrations' || name.startsWith('sqlite_')

/** PostgreSQL takes at most 65,535 parameters per statement; rows per INSERT stay below both limits. */
const MAX_PARAMS = 65_535
export const DEFAULT_BATCH_ROWS: Record<CopyMethod, number> = { insert: 1_000, unnest: 10_000 }

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/** Every twin table with its columns, parents before the tables whose foreign keys point at them. */
export function copyPlan(): CopyTable[] {
  const tables = sqliteTables()
  const deps = new Map<string, Set<string>>()
  for (const [name, table] of tables) {
    const parents = new Set<string>()
    for (const fk of getTableConfig(table).foreignKeys) {
      const parent = getTableConfig(fk.reference().foreignTable).name
      if (parent !== name) parents.add(parent)
    }
    deps.set(name, parents)
  }
  const ordered: string[] = []
  const placed = new Set<string>()
  const visit = (name: string, path: string[]) => {
    if (placed.has(name)) return
    if (path.includes(name)) throw new CopyError(`the tables' foreign keys form a cycle (${[...path, name].join(' → ')})`)
    for (const parent of [...(deps.get(name) ?? [])].sort()) visit(parent, [...path, name])
    placed.add(name)
    ordered.push(name)
  }
  for (const name of [...tables.keys()].sort()) visit(name, [])
  return ordered.map((name) => ({
    name,
    columns: getTableConfig(tables.get(name)!).columns.map((c) => ({ name: c.name, type: twinType((c as unknown as { columnType: string }).columnType) })),
  }))
}

/** The source must hold exactly the tables and columns this version's twins have: a copy never leaves data behind. */
export function checkSource(sqlite: Database, plan: CopyTable[]): void {
  const names = sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
    .all()
    .map((r) => r.name)
  const known = new Set(plan.map((t) => t.name))
  const extra = names.filter((n) => !SOURCE_INTERNAL(n) && !known.has(n))
  if (extra.length) throw new CopyError(`the database has tables this vigil does not know (${extra.join(', ')}): it was used by a newer vigil`)
  for (const t of plan) {
    if (!names.includes(t.name)) throw new CopyError(`the database has no table ${t.name}: run "vigil migrate" on it first`)
    const cols = new Set(
      sqlite
        .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${t.name}')`)
        .all()
        .map((r) => r.name),
    )
    const missing = t.columns.filter((c) => !cols.has(c.name)).map((c) => c.name)
    const unknown = [...cols].filter((c) => !t.columns.some((k) => k.name === c))
    if (missing.length || unknown.length) throw new CopyError(`table ${t.name} does not match this vigil's schema (${[...missing, ...unknown].join(', ')})`)
  }
}

/** The tables (twins, or PostgreSQL's own) that already hold a row on the target. */
export async function tablesWithRows(sql: SQL, tables: string[]): Promise<string[]> {
  const rows: { name: string }[] = await sql.unsafe(tables.map((t) => `SELECT '${t}' AS name WHERE EXISTS (SELECT 1 FROM ${quote(t)})`).join(' UNION ALL '))
  return rows.map((r) => r.name).sort()
}

/**
 * How rows are sent: one INSERT with a parameter per value (`insert`), or one array per column
 * unnested by the server (`unnest`: a handful of parameters however many rows, so larger batches).
 * Bun.SQL has no COPY FROM STDIN.
 */
export type CopyMethod = 'insert' | 'unnest'

const ARRAY_TYPE: Record<TwinType, string> = { bigint: 'INT8', boolean: 'BOOL', double: 'FLOAT8', text: 'TEXT', bytea: 'BYTEA' }
const SQL_TYPE: Record<TwinType, string> = { bigint: 'bigint', boolean: 'boolean', double: 'float8', text: 'text', bytea: 'bytea' }

export interface CopyOptions {
  /** empty the target's twin tables first (in the same transaction) */
  replace: boolean
  verify: boolean
  method?: CopyMethod
  batchRows?: number
  progress?: (t: TableCopied) => void
  /** a monotonic clock in ms, for the per-table times */
  clock?: () => number
  /**
   * The raw samples go into PostgreSQL's own form (copy.samples.ts) instead of SQLite's metric
   * tables, which are left empty: what a PostgreSQL hub reads. By default when the plan holds SQLite's raw table;
   * the target must have the day partitions' parent tables (ensureMetricTables). Off, those tables go as twins.
   */
  samples?: boolean
}

/** What the copy's result calls the samples written in PostgreSQL's form. */
export const SAMPLES = 'metric_records'

/** Copies the whole database; returns what each table took. Throws CopyError (one line) when it refuses or fails. */
export async function copySqliteToPostgres(sqlite: Database, sql: SQL, plan: CopyTable[], o: CopyOptions): Promise<TableCopied[]> {
  const clock = o.clock ?? (() => performance.now())
  checkSource(sqlite, plan)
  // one read transaction: every table from the same moment of the source
  sqlite.run('BEGIN')
  try {
    const samples = o.samples ?? plan.some((p) => p.name === 'metric_samples')
    const tables = samples ? plan.filter((p) => !SQLITE_ONLY_METRICS.has(p.name)) : plan
    // the target's own tables: checked empty, locked and emptied with the twins
    const target = [...plan.map((p) => p.name), ...(samples ? PG_ONLY_METRICS : [])]
    return await sql.begin(async (tx) => {
      const t = tx as unknown as SQL
      // first the lock a hub's making of day partitions takes: a partition made meanwhile locks the
      // parent and the tables its keys point at in another order than the LOCK below (a deadlock)
      await t`SELECT pg_advisory_xact_lock(${PARTITIONS_LOCK})`
      // no one else writes to the twins until this commits: the emptiness seen below holds for the copy
      await t.unsafe(`LOCK TABLE ${target.map(quote).join(', ')} IN EXCLUSIVE MODE`)
      const full = await tablesWithRows(t, target)
      if (full.length && !o.replace) {
        throw new CopyError(
          `the target already holds data (${full.slice(0, 5).join(', ')}${full.length > 5 ? ', …' : ''}): copy into an empty database, or add --replace to empty it first`,
        )
      }
      if (o.replace) await t.unsafe(`TRUNCATE ${target.map(quote).join(', ')} RESTART IDENTITY`)
      const done: TableCopied[] = []
      for (const table of tables) {
        const started = clock()
        const method = o.method ?? 'unnest'
        // the 1-minute tier as PostgreSQL keeps it, a row per minute (SQLite codes it per ten minutes)
        const rows = samples ? minuteRows(sqlite, table.name) : null
        const copied = await copyTable(sqlite, t, table, method, o.batchRows ?? DEFAULT_BATCH_ROWS[method], rows)
        const result: TableCopied = { table: table.name, rows: copied.rows, checksum: copied.value, ms: 0 }
        if (o.verify) {
          const back = await checksumPostgres(t, table)
          result.verified = back
          if (back.rows !== copied.rows || back.checksum !== copied.value) {
            throw new CopyError(
              `verification failed for ${table.name}: ${copied.rows} rows (checksum ${copied.value}) read, ${back.rows} rows (checksum ${back.checksum}) on the target`,
            )
          }
        }
        result.ms = clock() - started
        done.push(result)
        o.progress?.(result)
      }
      if (samples) done.push(await copySampleRecords(sqlite, t, o.verify, clock, o.progress))
      // SQLite keeps last_seen_at apart (device_seen); PostgreSQL hubs read it from the devices row
      if (plan.some((p) => p.name === 'device_seen')) {
        await t.unsafe(
          'UPDATE devices AS d SET last_seen_at = s.at FROM device_seen AS s WHERE d.seq = s.seq AND (d.last_seen_at IS NULL OR d.last_seen_at < s.at)',
        )
      }
      await advanceIdentities(t)
      return done
    })
  } finally {
    // nothing of the source changes: what reading the samples made on the connection (its temporary tables) is undone
    sqlite.run('ROLLBACK')
  }
}

/** The samples in PostgreSQL's form, verified as a table is: as many rows as samples read, the same checksum. */
async function copySampleRecords(sqlite: Database, t: SQL, verify: boolean, clock: () => number, progress?: (t: TableCopied) => void): Promise<TableCopied> {
  const started = clock()
  const copied = await copySamples(sqlite, t)
  const result: TableCopied = { table: SAMPLES, rows: copied.rows, checksum: copied.value, ms: 0 }
  if (verify) {
    const back = await checksumSamples(t)
    result.verified = back
    if (back.rows !== copied.rows || back.checksum !== copied.value) {
      throw new CopyError(
        `verification failed for ${SAMPLES}: ${copied.rows} samples (checksum ${copied.value}) read, ${back.rows} rows (checksum ${back.checksum}) on the target`,
      )
    }
  }
  result.ms = clock() - started
  progress?.(result)
  return result
}

/** Inserts one table's rows in batches; returns the checksum of what was sent. */
async function copyTable(
  sqlite: Database,
  sql: SQL,
  table: CopyTable,
  method: CopyMethod,
  batchRows: number,
  source: Iterable<Record<string, unknown>> | null = null,
): Promise<RowChecksum> {
  const cols = table.columns
  const perBatch = Math.max(1, method === 'unnest' ? batchRows : Math.min(batchRows, Math.floor(MAX_PARAMS / cols.length)))
  const unnest = `INSERT INTO ${quote(table.name)} (${cols.map((c) => quote(c.name)).join(', ')}) SELECT * FROM unnest(${cols
    .map((c, i) => `$${i + 1}::${SQL_TYPE[c.type]}[]`)
    .join(', ')})`
  const send = async (params: PgValue[], rows: number) => {
    if (method === 'insert') return sql.unsafe(statement(rows), params)
    // column-major arrays from the row-major batch
    const arrays = cols.map((c, i) => {
      const column: PgValue[] = new Array(rows)
      for (let r = 0; r < rows; r++) column[r] = params[r * cols.length + i] as PgValue
      return sql.array(column, ARRAY_TYPE[c.type] as never)
    })
    return sql.unsafe(unnest, arrays)
  }
  const head = `INSERT INTO ${quote(table.name)} (${cols.map((c) => quote(c.name)).join(', ')}) VALUES `
  const statements = new Map<number, string>()
  const statement = (rows: number) => {
    let text = statements.get(rows)
    if (!text) {
      const tuples: string[] = []
      for (let r = 0; r < rows; r++) tuples.push(`(${cols.map((_, c) => `$${r * cols.length + c + 1}`).join(', ')})`)
      text = head + tuples.join(', ')
      statements.set(rows, text)
    }
    return text
  }
  const sum = new RowChecksum()
  // rowid order: a table that refers to itself gets its parents' rows before their children's; main.: a
  // connection's temporary objects (the hub's own, in-process) may shadow a table's name
  const query = sqlite.query(`SELECT ${cols.map((c) => quote(c.name)).join(', ')} FROM main.${quote(table.name)} ORDER BY rowid`).safeIntegers(true)
  let params: PgValue[] = []
  let rows = 0
  let rowNumber = 0
  for (const raw of source ?? (query.iterate() as Iterable<Record<string, unknown>>)) {
    rowNumber++
    const parts: string[] = []
    for (const c of cols) {
      let v: PgValue
      try {
        v = toPgValue(c.type, raw[c.name])
      } catch (err) {
        if (err instanceof CopyValueError) throw new CopyError(`${table.name}.${c.name}, row ${rowNumber}: ${err.message}`)
        throw err
      }
      params.push(v)
      parts.push(canonical(c.type, v))
    }
    sum.add(parts)
    if (++rows === perBatch) {
      await send(params, rows)
      params = []
      rows = 0
    }
  }
  if (rows) await send(params, rows)
  return sum
}

/** The table's row count and checksum as PostgreSQL computes them over what it holds (`RowChecksum`'s, in SQL). */
export async function checksumPostgres(sql: SQL, table: CopyTable): Promise<{ rows: number; checksum: string }> {
  const row = table.columns.map((c) => canonicalSql(c.type, quote(c.name))).join(` || chr(1) || `)
  const [r] = await sql.unsafe(
    `SELECT count(*)::text AS rows, coalesce(sum(('x' || substr(md5(${row}), 1, 15))::bit(60)::bigint::numeric), 0)::text AS checksum FROM ${quote(table.name)}`,
  )
  return { rows: Number(r.rows), checksum: r.checksum as string }
}

/** Moves every identity column's sequence past its table's largest value, so new rows do not collide with copied ones. */
async function advanceIdentities(sql: SQL): Promise<void> {
  const identities: { table_name: string; column_name: string }[] =
    await sql`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'`
  for (const { table_name, column_name } of identities) {
    await sql.unsafe(
      `SELECT setval(pg_get_serial_sequence($1, $2), max(${quote(column_name)})) FROM ${quote(table_name)} HAVING max(${quote(column_name)}) IS NOT NULL`,
      [quote(table_name), column_name],
    )
  }
}
