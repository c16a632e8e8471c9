import type { SQL } from 'bun'
import { type Raw, num } from '../../db/pg/rows'
import type { Clock } from '../../lib/clock'
import { type ContainerRollups, GRACE_MS, LEVEL_WIDTH } from './containers.jobs'
import { rollUp } from './containers.pack'
import { bytes } from './containers.store.pg'

const mark = (tx: SQL, level: number, seq: number, since: number) =>
  tx`INSERT INTO container_rollup_marks (device_seq, level, since) VALUES (${seq}, ${level}, ${since})
    ON CONFLICT (device_seq, level) DO UPDATE SET since = LEAST(container_rollup_marks.since, excluded.since)`

/**
 * The per-minute and hourly rollups on PostgreSQL, as createContainerRollups does on SQLite, with
 * the marks in the database (container_rollup_marks): the ingest of every hub lowers a device's
 * minute mark, and a run takes the marks (DELETE … RETURNING), rolls the buckets up and leaves
 * marks for the buckets still open and for the hours its minutes touched, in one transaction.
 * Two runs at once cannot take the same marks, and a run that fails leaves them all in place.
 */
export function createContainerRollupsPg(deps: { sql: SQL; clock: Clock }): ContainerRollups {
  return {
    run() {
      const now = deps.clock.now()
      return deps.sql.begin(async (tx) => {
        let written = 0
        for (const level of [1, 2] as const) {
          const width = LEVEL_WIDTH[level]
          const end = Math.floor((now - GRACE_MS) / width) * width
          const marks: Raw[] = await tx`DELETE FROM container_rollup_marks WHERE level = ${level} RETURNING device_seq, since`
          for (const m of marks) {
            const seq = num(m.device_seq)
            const since = num(m.since)
            const from = Math.floor(since / width) * width
            if (from >= end) {
              await mark(tx, level, seq, since) // the bucket is not over yet: the next run
              continue
            }
            const rows: Raw[] = await tx`SELECT ts, data FROM container_series WHERE device_seq = ${seq} AND level = ${level - 1}
              AND ts >= ${from} AND ts < ${end} ORDER BY ts`
            const buckets = new Map<number, Uint8Array[]>()
            for (const r of rows) {
              const b = Math.floor(num(r.ts) / width) * width
              const list = buckets.get(b)
              if (list) list.push(bytes(r.data))
              else buckets.set(b, [bytes(r.data)])
            }
            for (const [b, list] of buckets) {
              const data = rollUp(list)
              await tx`INSERT INTO container_series (device_seq, level, ts, data) VALUES (${seq}, ${level}, ${b}, ${data})
                ON CONFLICT (device_seq, level, ts) DO UPDATE SET data = excluded.data`
              if (level === 1) await mark(tx, 2, seq, b)
              written++
            }
            // rows of the bucket still open: the next run starts there
            const [newest]: Raw[] = await tx`SELECT max(ts) AS ts FROM container_series WHERE device_seq = ${seq} AND level = ${level - 1}`
            if (newest?.ts !== null && newest?.ts !== undefined && num(newest.ts) >= end) await mark(tx, level, seq, end)
          }
        }
        return written
      })
    },
  }
}
