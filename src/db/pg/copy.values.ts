/**
 * What one SQLite value becomes in its PostgreSQL twin's column, as src/db/pg/schema.ts declares
 * the twins: INTEGER → bigint (all 64 bits: read as a bigint, sent as its decimal text), INTEGER in
 * boolean mode → boolean, REAL → double precision (the same 64-bit float), TEXT → text (the same
 * string), BLOB → bytea (the same bytes). NULL stays NULL. A value that does not fit its column
 * (SQLite lets any column hold any type) is refused with the table, column and row, never bent.
 */

/** The twin's type of a column, from its drizzle SQLite column type. */
export type TwinType = 'bigint' | 'boolean' | 'double' | 'text' | 'bytea'

export function twinType(columnType: string): TwinType {
  switch (columnType) {
    case 'SQLiteInteger':
    case 'SQLiteTimestamp':
      return 'bigint'
    case 'SQLiteBoolean':
      return 'boolean'
    case 'SQLiteReal':
      return 'double'
    case 'SQLiteText':
    case 'SQLiteTextJson':
      return 'text'
    case 'SQLiteBlobBuffer':
    case 'SQLiteBlobJson':
    case 'SQLiteBigInt':
      return 'bytea'
    default:
      throw new CopyValueError(`no PostgreSQL type for the column type ${columnType}`)
  }
}

/** A value the copy refuses: its message names what and why, the caller adds where. */
export class CopyValueError extends Error {
  override name = 'CopyValueError'
}

/** What the PostgreSQL driver is given for one value. */
export type PgValue = string | boolean | number | Uint8Array | null

const describe = (v: unknown) => (v instanceof Uint8Array ? `a ${v.length}-byte blob` : `${typeof v} ${JSON.stringify(String(v)).slice(0, 40)}`)

/**
 * One SQLite value (read with safe integers: INTEGER as bigint) as its twin column's value.
 * Integers go as decimal text, so values past 2^53 keep every digit.
 */
export function toPgValue(type: TwinType, v: unknown): PgValue {
  if (v === null || v === undefined) return null
  switch (type) {
    case 'bigint':
      if (typeof v === 'bigint') return v.toString()
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v)
      break
    case 'boolean':
      // drizzle's boolean mode writes 0 and 1; anything else would be a guess
      if (v === 0n || v === 0 || v === false) return false
      if (v === 1n || v === 1 || v === true) return true
      break
    case 'double':
      // SQLite stores NaN as NULL, so a NaN here cannot have come from the database
      if (typeof v === 'number' && !Number.isNaN(v)) return v
      // a REAL column holds an integer SQLite kept as one; the same number as a float
      if (typeof v === 'bigint' && BigInt(Number(v)) === v) return Number(v)
      break
    case 'text':
      // PostgreSQL's text cannot hold the character U+0000, which SQLite's can
      if (typeof v === 'string' && !v.includes('\u0000')) return v
      if (typeof v === 'string') throw new CopyValueError('text holding the character U+0000 does not fit a PostgreSQL text column')
      break
    case 'bytea':
      if (v instanceof Uint8Array) return v
      break
  }
  throw new CopyValueError(`${describe(v)} does not fit a ${type} column`)
}

/**
 * One value in a form both engines agree on, for the row checksums: the twin's type and its exact
 * content (a float's 8 bytes, so -0, Infinity and the last bit count; text's UTF-8 length). The
 * PostgreSQL side computes the same form in SQL (`canonicalSql`), so the target's rows are summed
 * where they are, not sent back.
 */
export function canonical(type: TwinType, v: PgValue | bigint): string {
  if (v === null || v === undefined) return 'N'
  switch (type) {
    case 'bigint':
      return `i${BigInt(v as string | bigint | number).toString()}`
    case 'boolean':
      return v === true ? 'T' : 'F'
    case 'double':
      FLOAT.setFloat64(0, v as number)
      return `d${FLOAT.getBigUint64(0).toString(16).padStart(16, '0')}`
    case 'text':
      return `s${Buffer.byteLength(v as string)}:${v as string}`
    case 'bytea':
      return `b${Buffer.from(v as Uint8Array).toString('hex')}`
  }
}

const FLOAT = new DataView(new ArrayBuffer(8))

/** `canonical` as a PostgreSQL expression on a column (quoted name). */
export function canonicalSql(type: TwinType, column: string): string {
  switch (type) {
    case 'bigint':
      return `coalesce('i' || ${column}::text, 'N')`
    case 'boolean':
      return `CASE WHEN ${column} IS NULL THEN 'N' WHEN ${column} THEN 'T' ELSE 'F' END`
    case 'double':
      return `coalesce('d' || encode(float8send(${column}), 'hex'), 'N')`
    case 'text':
      return `coalesce('s' || octet_length(${column}) || ':' || ${column}, 'N')`
    case 'bytea':
      return `coalesce('b' || encode(${column}, 'hex'), 'N')`
  }
}

/** Separates a row's values in its canonical form (a length prefix keeps text from running into the next). */
export const SEPARATOR = '\u0001'

/**
 * The sum of the rows' MD5s (their first 60 bits, so PostgreSQL sums them as bigints cast to
 * numeric): order does not matter, and a changed, lost or doubled row does.
 */
export class RowChecksum {
  rows = 0
  private sum = 0n
  add(parts: string[]) {
    this.rows++
    const md5 = new Bun.CryptoHasher('md5').update(parts.join(SEPARATOR)).digest('hex')
    this.sum += BigInt(`0x${md5.slice(0, 15)}`)
  }
  get value() {
    return this.sum.toString()
  }
}
