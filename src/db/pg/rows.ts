/**
 * What the PostgreSQL stores share to hand back rows as the SQLite stores do. Bun.SQL returns
 * int8 (bigint) columns as strings, to keep their 64 bits; Vigil's integers (times in ms, counts,
 * ids) stay within 2^53, and the rows say numbers on either engine.
 */

/** a row as Bun.SQL returns it, before a store types it */
export type Raw = Record<string, unknown>

/** an int8 column as a number */
export const num = (v: unknown): number => Number(v)

/** a nullable int8 column as a number or null */
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
