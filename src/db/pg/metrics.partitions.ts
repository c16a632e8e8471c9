import type { SQL } from 'bun'
import { FIELDS } from '../../modules/metrics/metrics.fields'

/**
 * The raw samples on PostgreSQL: `metric_records`, partitioned by day on `ts` (ms since the
 * epoch, UTC days). A partition per day lets retention drop a whole day with one `DROP TABLE`
 * (no row-by-row delete, no dead tuples for VACUUM) and keeps each day's (device, ts) index small.
 *
 * A row is a sample's time, its id, the parts it carries, the hot values as columns (what the
 * rollups, summaries and charts aggregate in SQL) and the parts' other fields as one compact record
 * (metrics.hot.ts's codec, hot values left out), coded against its device's reference of the day
 * (`metric_record_refs`, the day's first record text: any hub decodes any record with one lookup).
 *
 * drizzle-kit cannot declare a partitioned table, so these statements are kept here and run by the
 * partition job and at start (`ensureMetricTables`), each idempotent; the flat `metric_samples`
 * twin of the migrations is not used on PostgreSQL.
 */
export const RECORDS = 'metric_records'
export const REFS = 'metric_record_refs'
const DAY_MS = 86_400_000
/** Days of partitions made ahead of today, so a write never finds its day missing. */
export const DAYS_AHEAD = 3
/** Days behind today made too: a collector replaying its queue writes samples up to a few days old. */
export const DAYS_BEHIND = 7

const hot = [...FIELDS.hardware, ...FIELDS.network].map((f) => `${f.name} double precision`)

const PARENT = `CREATE TABLE IF NOT EXISTS ${RECORDS} (
  device_seq bigint NOT NULL REFERENCES devices (seq) ON DELETE CASCADE,
  ts bigint NOT NULL,
  id bigint NOT NULL DEFAULT nextval('${RECORDS}_id_seq'),
  kinds smallint NOT NULL,
  ${hot.join(',\n  ')},
  rec bytea,
  PRIMARY KEY (device_seq, ts)
) PARTITION BY RANGE (ts)`

const REF_TABLE = `CREATE TABLE IF NOT EXISTS ${REFS} (
  device_seq bigint NOT NULL REFERENCES devices (seq) ON DELETE CASCADE,
  day bigint NOT NULL,
  ref bytea NOT NULL,
  PRIMARY KEY (device_seq, day)
)`

/** the UTC day (its start, ms) a time falls in */
export const dayOf = (ts: number) => Math.floor(ts / DAY_MS) * DAY_MS
const partitionName = (day: number) => `${RECORDS}_${new Date(day).toISOString().slice(0, 10).replaceAll('-', '')}`

/**
 * Serialises the DDL of hubs starting together (CREATE TABLE IF NOT EXISTS races on the catalogue),
 * and a copy into the database with it (copy.ts). An advisory lock id of its own: 'vigil metric
 * partitions'.
 */
export const PARTITIONS_LOCK = 0x766d7061

/**
 * Makes the parent tables, when missing, and the partitions of [now - DAYS_BEHIND, now + DAYS_AHEAD]
 * days, none before the day of `keepFrom` (what retention keeps: a day it dropped is not made again).
 */
export async function ensureMetricTables(sql: SQL, now: number, keepFrom = Number.NEGATIVE_INFINITY): Promise<string[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${PARTITIONS_LOCK})`
    await tx.unsafe(`CREATE SEQUENCE IF NOT EXISTS ${RECORDS}_id_seq`)
    await tx.unsafe(PARENT)
    await tx.unsafe(REF_TABLE)
    const have = new Set(await partitionsOf(tx as unknown as SQL))
    const made: string[] = []
    for (let d = -DAYS_BEHIND; d <= DAYS_AHEAD; d++) {
      const day = dayOf(now) + d * DAY_MS
      const name = partitionName(day)
      if (have.has(name) || day + DAY_MS <= keepFrom) continue
      await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${RECORDS} FOR VALUES FROM (${day}) TO (${day + DAY_MS})`)
      made.push(name)
    }
    return made
  })
}

const made = new WeakMap<SQL, Promise<void>>()
/**
 * The metric tables of this database, made once per connection pool before its first use (by
 * whichever store comes first); a failure is tried again by the next caller.
 */
export function metricTables(sql: SQL, now: () => number = Date.now): Promise<void> {
  let p = made.get(sql)
  if (!p) {
    p = ensureMetricTables(sql, now()).then(() => {})
    p.catch(() => made.delete(sql))
    made.set(sql, p)
  }
  return p
}

/** Makes one day's partition when missing (a sample of a day the job did not make ahead: a replay). */
export async function ensureMetricDay(sql: SQL, day: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${PARTITIONS_LOCK})`
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${partitionName(day)} PARTITION OF ${RECORDS} FOR VALUES FROM (${day}) TO (${day + DAY_MS})`)
  })
}

/** Makes one day's partition inside the caller's transaction (vigil copy: samples of any day, in its one transaction). */
export async function ensureMetricDayIn(tx: SQL, day: number): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${PARTITIONS_LOCK})`
  await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${partitionName(day)} PARTITION OF ${RECORDS} FOR VALUES FROM (${day}) TO (${day + DAY_MS})`)
}

/** the partitions of metric_records, by name */
async function partitionsOf(sql: SQL): Promise<string[]> {
  const rows: { name: string }[] = await sql`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = ${RECORDS} ORDER BY c.relname`
  return rows.map((r) => r.name)
}

/** each partition's day (start ms), oldest first */
export async function partitionDays(sql: SQL): Promise<number[]> {
  return (await partitionsOf(sql)).map((n) => Date.parse(`${n.slice(-8, -4)}-${n.slice(-4, -2)}-${n.slice(-2)}T00:00:00Z`)).sort((a, b) => a - b)
}

/**
 * Drops every day partition that ends at or before `cutoff` (whole days past raw retention) and
 * the reference records of those days; returns the days dropped. A partition still holding a
 * sample newer than the cutoff is kept until its whole day has passed.
 */
export async function dropMetricDaysBefore(sql: SQL, cutoff: number): Promise<number[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${PARTITIONS_LOCK})`
    const dropped: number[] = []
    for (const day of await partitionDays(tx as unknown as SQL)) {
      if (day + DAY_MS > cutoff) continue
      await tx.unsafe(`DROP TABLE IF EXISTS ${partitionName(day)}`)
      dropped.push(day)
    }
    const keep = dayOf(cutoff)
    await tx`DELETE FROM metric_record_refs WHERE day < ${keep}`
    return dropped
  })
}
