import { Database, type SQLQueryBindings, type Statement } from 'bun:sqlite'

/**
 * The hub's connection: statements are compiled by SQLite when first run, not when a store
 * asks for them. The stores make theirs once, at start-up (about 390 of them), and an idle hub
 * runs about twenty: compiled at once, the others held ~3 MB of its resident memory (SQLite's
 * programs for them, and the pages of its compiler they touched). Each is compiled by the same
 * call as before (`query` or `prepare`) at its first run and kept, so a statement costs what it
 * did from then on, and one that never runs (billing without Stripe, operator views nobody
 * opens) costs nothing.
 *
 * What this changes: a statement whose SQL is wrong throws on its first run instead of at
 * start-up (each store's tests run its statements).
 */
export class PreparedOnUse extends Database {
  override query<R, P extends SQLQueryBindings | SQLQueryBindings[]>(sql: string): Statement<R, Params<P>> {
    return onFirstRun(() => super.query<R, P>(sql))
  }

  override prepare<R, P extends SQLQueryBindings | SQLQueryBindings[]>(sql: string, params?: P): Statement<R, Params<P>> {
    return onFirstRun(() => (params === undefined ? super.prepare<R, P>(sql) : super.prepare<R, P>(sql, params)))
  }
}

type Compiled = Statement<unknown, SQLQueryBindings[]>
// spelled as bun:sqlite declares it (with `unknown[]` the override is not assignable to the base)
// biome-ignore lint/suspicious/noExplicitAny: the base class's own signature
type Params<P> = P extends any[] ? P : [P]

/**
 * A stand-in for a Statement that compiles it on first use. Running methods forward their
 * arguments unchanged; finalizing one never compiled does nothing.
 */
class StatementOnUse {
  #compile: (() => Compiled) | null
  #statement: Compiled | null = null

  constructor(compile: () => Compiled) {
    this.#compile = compile
  }

  get #s(): Compiled {
    if (this.#statement) return this.#statement
    if (!this.#compile) throw new Error('this statement was finalized')
    this.#statement = this.#compile()
    this.#compile = null
    return this.#statement
  }

  get(...args: SQLQueryBindings[]) {
    return this.#s.get(...args)
  }
  all(...args: SQLQueryBindings[]) {
    return this.#s.all(...args)
  }
  values(...args: SQLQueryBindings[]) {
    return this.#s.values(...args)
  }
  run(...args: SQLQueryBindings[]) {
    return this.#s.run(...args)
  }
  iterate(...args: SQLQueryBindings[]) {
    return this.#s.iterate(...args)
  }
  raw(...args: SQLQueryBindings[]) {
    return (this.#s as unknown as { raw: (...a: SQLQueryBindings[]) => unknown }).raw(...args)
  }
  [Symbol.iterator]() {
    return this.#s[Symbol.iterator]()
  }
  as(type: new (...args: never[]) => unknown) {
    this.#s.as(type as never)
    return this
  }
  safeIntegers(on?: boolean) {
    if (on === undefined) return this.#s.safeIntegers()
    this.#s.safeIntegers(on)
    return this
  }
  get columnNames() {
    return this.#s.columnNames
  }
  get columnTypes() {
    return this.#s.columnTypes
  }
  get declaredTypes() {
    return this.#s.declaredTypes
  }
  get paramsCount() {
    return this.#s.paramsCount
  }
  get native() {
    return this.#s.native
  }
  get isFinalized() {
    return this.#statement ? this.#statement.isFinalized : this.#compile === null
  }
  finalize() {
    this.#statement?.finalize()
    this.#compile = null
  }
  [Symbol.dispose]() {
    this.finalize()
  }
  toString() {
    return this.#s.toString()
  }
  toJSON() {
    return this.#s.toJSON()
  }
}

function onFirstRun<R, P extends SQLQueryBindings | SQLQueryBindings[]>(compile: () => Statement<R, Params<P>>) {
  // the stand-in has Statement's public surface; the class itself has private fields no other object can have
  return new StatementOnUse(compile as () => Compiled) as unknown as Statement<R, Params<P>>
}
