import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { SQL } from 'bun'
import { openAndMigrate } from '../../src/cli/open'
import { testConfig } from '../../src/config'
import { CopyError, checksumPostgres, copyPlan, copySqliteToPostgres } from '../../src/db/pg/copy'
import { canonical, RowChecksum, toPgValue, twinType } from '../../src/db/pg/copy.values'
import { migratePostgres } from '../../src/db/pg/migrate'
import { sqliteTables } from '../../src/db/pg/schema'
import { getTableConfig } from 'drizzle-orm/sqlite-core'
import { createLogger } from '../../src/lib/logger'
import { type FreshDatabase, postgresForTests } from '../helpers/postgres'
import { tempDirs } from '../helpers/temp-dirs'

/** What `vigil copy` makes of each SQLite value, and that the edge values arrive unchanged in PostgreSQL. */
const pg = postgresForTests()
const tempDir = tempDirs('vigil-copy-values-')
const quiet = createLogger({ level: 'error', format: 'json', write: () => {} })
const made: FreshDatabase[] = []
afterAll(async () => {
  for (const db of made) await db.drop()
})

/** a value as SQLite stores and returns it (safe integers on, as the copy reads) */
function stored(value: unknown, column = 'REAL'): unknown {
  const db = new Database(':memory:')
  try {
    db.run(`CREATE TABLE t (v ${column})`)
    db.run('INSERT INTO t VALUES (?)', [value as never])
    return (db.query('SELECT v FROM t').safeIntegers(true).get() as { v: unknown }).v
  } finally {
    db.close()
  }
}

describe('the value conversion', () => {
  test('the twins’ types, from the table files’ column types', () => {
    expect(twinType('SQLiteInteger')).toBe('bigint')
    expect(twinType('SQLiteBoolean')).toBe('boolean')
    expect(twinType('SQLiteReal')).toBe('double')
    expect(twinType('SQLiteText')).toBe('text')
    expect(twinType('SQLiteBlobBuffer')).toBe('bytea')
    expect(() => twinType('SQLiteNumeric')).toThrow('no PostgreSQL type')
  })

  test('integers keep all 64 bits, past 2^53 too, as decimal text', () => {
    expect(toPgValue('bigint', stored(2 ** 53, 'INTEGER'))).toBe('9007199254740992')
    expect(toPgValue('bigint', stored(2n ** 53n + 1n, 'INTEGER'))).toBe('9007199254740993')
    expect(toPgValue('bigint', stored(2n ** 63n - 1n, 'INTEGER'))).toBe('9223372036854775807')
    expect(toPgValue('bigint', stored(-(2n ** 63n), 'INTEGER'))).toBe('-9223372036854775808')
    expect(() => toPgValue('bigint', 'twelve')).toThrow('does not fit a bigint column')
    expect(() => toPgValue('bigint', 1.5)).toThrow('does not fit a bigint column')
  })

  test('floats bit for bit: -0 as SQLite keeps it (0), NaN that SQLite cannot hold is refused, the rest exact', () => {
    // SQLite itself stores -0.0 as 0 and NaN as NULL: the copy sees what SQLite kept
    const zero = toPgValue('double', stored(-0))
    expect(Object.is(zero, 0)).toBe(true)
    expect(toPgValue('double', stored(Number.NaN))).toBeNull()
    expect(() => toPgValue('double', Number.NaN)).toThrow('does not fit a double column')
    expect(toPgValue('double', -0)).toBe(-0)
    for (const v of [Number.MIN_VALUE, 0.1 + 0.2, Number.MAX_VALUE, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1e-300]) {
      expect(toPgValue('double', stored(v))).toBe(v)
    }
    // an integer a REAL column holds (SQLite keeps whole numbers as integers on disk) becomes the same float
    expect(toPgValue('double', 3n)).toBe(3)
    expect(() => toPgValue('double', 2n ** 60n + 1n)).toThrow('does not fit a double column')
  })

  test('booleans are 0 and 1 only', () => {
    expect(toPgValue('boolean', stored(1, 'INTEGER'))).toBe(true)
    expect(toPgValue('boolean', stored(0, 'INTEGER'))).toBe(false)
    expect(() => toPgValue('boolean', 2n)).toThrow('does not fit a boolean column')
  })

  test('text and blobs unchanged: unicode, empty, NULL kept; U+0000 that PostgreSQL’s text cannot hold is refused', () => {
    const text = 'Zoë 🚀 \u202eRTL\u202c 日本 \ud83d\ude00'
    expect(toPgValue('text', stored(text, 'TEXT'))).toBe(text)
    expect(toPgValue('text', stored('', 'TEXT'))).toBe('')
    expect(() => toPgValue('text', 'a\u0000b')).toThrow('U+0000')
    const empty = toPgValue('bytea', stored(new Uint8Array(0), 'BLOB'))
    expect(empty).toBeInstanceOf(Uint8Array)
    expect((empty as Uint8Array).length).toBe(0)
    expect(toPgValue('bytea', stored(null, 'BLOB'))).toBeNull()
    expect(() => toPgValue('bytea', 'bytes as text')).toThrow('does not fit a bytea column')
  })

  test('the checksum sees a float’s last bit and -0, an empty blob apart from NULL, and not the rows’ order', () => {
    expect(canonical('double', -0)).not.toBe(canonical('double', 0))
    expect(canonical('double', 0.1 + 0.2)).not.toBe(canonical('double', 0.3))
    expect(canonical('bytea', new Uint8Array(0))).not.toBe(canonical('bytea', null))
    expect(canonical('bigint', '9007199254740993')).toBe(canonical('bigint', 9007199254740993n))
    const a = new RowChecksum()
    const b = new RowChecksum()
    a.add(['i1', 'sx'])
    a.add(['i2', 'sy'])
    b.add(['i2', 'sy'])
    b.add(['i1', 'sx'])
    expect(a.value).toBe(b.value)
    b.add(['i2', 'sy'])
    expect(a.value).not.toBe(b.value)
  })

  test('every table of the schema is in the plan, each after the tables its foreign keys point at', () => {
    const plan = copyPlan()
    const at = new Map(plan.map((t, i) => [t.name, i]))
    expect(at.get('clients')!).toBeLessThan(at.get('devices')!)
    expect(at.get('devices')!).toBeLessThan(at.get('metric_blocks')!)
    expect(at.get('users')!).toBeLessThan(at.get('refresh_tokens')!)
    const tables = sqliteTables()
    expect(plan.map((t) => t.name).sort()).toEqual([...tables.keys()].sort())
    for (const [name, table] of tables) {
      for (const fk of getTableConfig(table).foreignKeys) {
        const parent = getTableConfig(fk.reference().foreignTable).name
        if (parent !== name) expect(`${parent} at ${at.get(parent)}`).toBe(`${parent} at ${Math.min(at.get(parent)!, at.get(name)!)}`)
      }
    }
  })
})

describe('edge values through PostgreSQL', () => {
  test.skipIf(!pg.url).each(['insert', 'unnest'] as const)(
    `sent by %s, arrive exactly as SQLite holds them, and the identity sequences continue past them ${pg.skipReason}`,
    async (method) => {
      const dir = tempDir()
      const config = testConfig({ dataDir: dir })
      openAndMigrate(config, quiet, 1).close()
      const sqlite = new Database(join(dir, 'vigil.db'), { strict: true })
      const name = 'Zoë 🚀 日本'
      sqlite.run('INSERT INTO clients (id, name, rate_limit, max_users, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 2)', [
        'cli_a',
        name,
        2n ** 63n - 1n,
        -(2n ** 63n),
      ])
      sqlite.run("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, seq) VALUES ('dev_a', 'cli_a', 'fp', 1, 2, 7)")
      sqlite.run("INSERT INTO metric_blocks (device_seq, start, data) VALUES (7, 0, x''), (7, 1, x'00ff10')")
      sqlite.run(
        "INSERT INTO collector_versions (id, platform, version, is_mandatory, created_at) VALUES ('v1', 'linux', '1', 1, 3), ('v2', 'linux', '2', 0, 4)",
      )
      sqlite.run("INSERT INTO ai_configs (client_id, temperature, enabled, updated_at) VALUES ('cli_a', ?, 1, 5)", [Number.MIN_VALUE])
      sqlite.run(
        "INSERT INTO disk_readings (device_id, client_id, name, ts, kind, capacity_bytes, temperature_c) VALUES ('dev_a', 'cli_a', 'sda', 1, 'ssd', ?, ?)",
        [Number.POSITIVE_INFINITY, -1e-300],
      )
      sqlite.run("INSERT INTO metric_hot_0 (id, device_seq, sample_id, ts, kinds, segment, data) VALUES (41, 7, 1, 9007199254740993, 1, 0, x'01')")
      const db = await pg.freshDatabase()
      made.push(db)
      // SQLite's metric tables copied as the twins they are (samples: false): the values' conversion, whatever the table
      const sql = new SQL(db.url, { max: 1 })
      try {
        await migratePostgres(sql, 1)
        const plan = copyPlan()
        const tables = await copySqliteToPostgres(sqlite, sql, plan, { replace: false, verify: true, method, batchRows: 1, samples: false })
        expect(tables.find((t) => t.table === 'metric_blocks')!.rows).toBe(2)

        const [client] = await sql`SELECT name, rate_limit::text AS rl, max_users::text AS mu FROM clients`
        expect(client).toEqual({ name, rl: '9223372036854775807', mu: '-9223372036854775808' })
        const blocks = await sql`SELECT start, encode(data, 'hex') AS hex, data IS NULL AS null FROM metric_blocks ORDER BY start`
        expect(blocks.map((b: { hex: string; null: boolean }) => [b.hex, b.null])).toEqual([
          ['', false],
          ['00ff10', false],
        ])
        const versions = await sql`SELECT id, is_mandatory FROM collector_versions ORDER BY id`
        expect(versions.map((v: { is_mandatory: boolean }) => v.is_mandatory)).toEqual([true, false])
        const [ai] = await sql`SELECT temperature, enabled, model FROM ai_configs`
        expect(ai).toEqual({ temperature: Number.MIN_VALUE, enabled: true, model: null })
        const [disk] = await sql`SELECT capacity_bytes, temperature_c FROM disk_readings`
        expect(disk).toEqual({ capacity_bytes: Number.POSITIVE_INFINITY, temperature_c: -1e-300 })
        const [hot] = await sql`SELECT ts::text AS ts FROM metric_hot_0`
        expect(hot.ts).toBe('9007199254740993')
        // a new row numbered by PostgreSQL lands past the copied ones
        const [next] =
          await sql`INSERT INTO metric_hot_0 (device_seq, sample_id, ts, kinds, segment, data) VALUES (7, 2, 1, 1, 0, '\\x01'::bytea) RETURNING id::int AS id`
        expect(next.id).toBe(42)

        // the verification reads the target: a row changed there no longer matches the source's checksum
        const blocksPlan = plan.find((t) => t.name === 'metric_blocks')!
        const before = await checksumPostgres(sql, blocksPlan)
        await sql`UPDATE metric_blocks SET data = '\\x00ff11'::bytea WHERE start = 1`
        expect((await checksumPostgres(sql, blocksPlan)).checksum).not.toBe(before.checksum)

        // a value PostgreSQL cannot hold: one line naming the row, and with --replace the target keeps what it held
        sqlite.run("UPDATE clients SET billing_email = 'a' || char(0) || 'b'")
        await sql`DELETE FROM collector_versions WHERE id = 'v2'`
        const refused = copySqliteToPostgres(sqlite, sql, plan, { replace: true, verify: true, method, samples: false })
        expect(refused).rejects.toThrow(CopyError)
        await refused.catch((err: Error) =>
          expect(err.message).toBe('clients.billing_email, row 1: text holding the character U+0000 does not fit a PostgreSQL text column'),
        )
        const [{ n }] = await sql`SELECT count(*)::int AS n FROM collector_versions`
        expect(n).toBe(1)
      } finally {
        sqlite.close()
        await sql.close()
      }
    },
  )
})
