import { afterEach, describe, expect, spyOn, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { PreparedOnUse } from '../../src/db/prepared-on-use'

/** The SQL of every statement SQLite compiles from here on (bun:sqlite's query and prepare, which the connection calls on first use). */
function watchCompiles() {
  const query = spyOn(Database.prototype, 'query')
  const prepare = spyOn(Database.prototype, 'prepare')
  spies.push(query, prepare)
  return () => [...query.mock.calls, ...prepare.mock.calls].map((c) => c[0])
}
const spies: { mockRestore(): void }[] = []

afterEach(() => {
  for (const s of spies.splice(0)) s.mockRestore()
})

function fresh() {
  const db = new PreparedOnUse(':memory:', { strict: true })
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n REAL)')
  db.run("INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', NULL)")
  return db
}

describe('statements compiled on first use', () => {
  test('query() and prepare() compile nothing until the statement runs, then keep it compiled', () => {
    const db = fresh()
    const compiled = watchCompiles()
    const byId = db.query<{ name: string }, [number]>('SELECT name FROM t WHERE id = ?')
    const all = db.prepare<{ id: number }, []>('SELECT id FROM t ORDER BY id')
    expect(compiled()).toEqual([])
    expect(byId.get(2)).toEqual({ name: 'b' })
    expect(all.all()).toEqual([{ id: 1 }, { id: 2 }])
    expect(byId.get(1)).toEqual({ name: 'a' })
    expect(all.all()).toHaveLength(2)
    expect(compiled().sort()).toEqual(['SELECT id FROM t ORDER BY id', 'SELECT name FROM t WHERE id = ?'])
  })

  test('a statement over a table made after it was asked for works: SQLite sees the schema of its first run', () => {
    const db = new PreparedOnUse(':memory:', { strict: true })
    const later = db.query<{ v: number }, []>('SELECT v FROM made_later')
    db.run('CREATE TABLE made_later (v INTEGER)')
    db.run('INSERT INTO made_later VALUES (7)')
    expect(later.all()).toEqual([{ v: 7 }])
  })

  test('wrong SQL throws SQLite’s error on its first run, and again on the next', () => {
    const db = fresh()
    const wrong = db.query('SELECT nope FROM t')
    expect(() => wrong.all()).toThrow(/no such column: nope/)
    expect(() => wrong.get()).toThrow(/no such column: nope/)
  })

  test('every method answers as a statement compiled at once does', () => {
    const db = fresh()
    const eager = (sql: string) => Database.prototype.query.call(db, sql)
    const sql = 'SELECT id, name, n FROM t WHERE id >= ? ORDER BY id'
    const lazy = db.query<{ id: number; name: string; n: number | null }, [number]>(sql)
    const ref = eager(sql)
    expect(lazy.get(1)).toEqual(ref.get(1) as never)
    expect(lazy.all(1)).toEqual(ref.all(1) as never)
    expect(lazy.values(1)).toEqual(ref.values(1))
    expect([...lazy.iterate(2)]).toEqual([...ref.iterate(2)] as never)
    expect(lazy.columnNames).toEqual(['id', 'name', 'n'])
    expect(lazy.paramsCount).toBe(1)
    expect(lazy.declaredTypes).toEqual(['INTEGER', 'TEXT', 'REAL'])
    expect(String(lazy)).toBe(String(ref))
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(ref))
    const insert = db.prepare<never, [number, string]>('INSERT INTO t (id, name) VALUES (?, ?)')
    expect(insert.run(3, 'c')).toEqual({ changes: 1, lastInsertRowid: 3 })
    class Row {
      name = ''
      get shout() {
        return this.name.toUpperCase()
      }
    }
    expect(db.query<Row, [number]>('SELECT name FROM t WHERE id = ?').as(Row).get(3)?.shout).toBe('C')
  })

  test('finalize: a compiled one is finalized, one never run is marked so, and neither runs again', () => {
    const db = fresh()
    const ran = db.query('SELECT 1 AS one')
    ran.get()
    ran.finalize()
    expect(ran.isFinalized).toBe(true)
    const never = db.query('SELECT 2 AS two')
    expect(never.isFinalized).toBe(false)
    never.finalize()
    expect(never.isFinalized).toBe(true)
    expect(() => never.get()).toThrow(/finalized/)
  })

  test('transactions on the connection run as before', () => {
    const db = fresh()
    const insert = db.prepare<never, [number, string]>('INSERT INTO t (id, name) VALUES (?, ?)')
    const both = db.transaction((a: number, b: number) => {
      insert.run(a, 'x')
      insert.run(b, 'y')
    })
    both(10, 11)
    expect(() => both(12, 10)).toThrow(/UNIQUE/)
    expect(db.query<{ n: number }, []>('SELECT count(*) AS n FROM t').get()!.n).toBe(4)
  })

  test('the hub’s connection is one: a migrated database compiles none of the stores’ statements at open', () => {
    const handle = openDatabase(':memory:')
    expect(handle.sqlite).toBeInstanceOf(PreparedOnUse)
    migrate(handle.sqlite, Date.now())
    const compiled = watchCompiles()
    const users = handle.sqlite.query('SELECT id FROM users WHERE email = ?')
    expect(compiled()).toEqual([])
    expect(users.get('nobody@example.com')).toBeNull()
    expect(compiled()).toEqual(['SELECT id FROM users WHERE email = ?'])
    handle.close()
  })
})
