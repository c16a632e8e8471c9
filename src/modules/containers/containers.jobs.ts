import type { Clock } from '../../lib/clock'
import { rollUp } from './containers.pack'
import type { ContainersStore, SqliteContainers } from './containers.store'

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
/** level → bucket width; level 0 is the raw block */
export const LEVEL_WIDTH = [0, MINUTE_MS, HOUR_MS] as const
/** a minute is rolled up once blocks sent late by this much have arrived, as for device samples */
export const GRACE_MS = 30_000

export interface ContainerJobDeps {
  store: ContainersStore
  clock: Clock
  /** how long each level keeps its rows (seconds): raw, 1m, 1h, as the device metrics' settings */
  retention: { raw: number; m1: number; h1: number }
}

/** The rollup job of either engine: the buckets written since its last run rolled up; how many. */
export interface ContainerRollups {
  run(): Promise<number>
}

/**
 * The per-minute and hourly rollups of the packed series on SQLite: each run rolls up, per
 * device, the buckets written to since the last run (a replay into a rolled-up minute rolls it
 * up again), in one transaction. After a restart it starts from each level's newest bucket.
 * (PostgreSQL: containers.rollup.pg.ts, its marks in the database.)
 */
export function createContainerRollups(deps: { store: SqliteContainers; clock: Clock }): ContainerRollups {
  const { store } = deps
  /** level → device → the oldest source time to roll up from */
  const pending: Map<number, number>[] = [new Map(), new Map(), new Map()]
  let booted = false

  const mark = (level: number, seq: number, ts: number) => {
    const o = pending[level]!.get(seq)
    if (o === undefined || ts < o) pending[level]!.set(seq, ts)
  }

  function rollLevel(level: 1 | 2, now: number): number {
    const width = LEVEL_WIDTH[level]
    const end = Math.floor((now - GRACE_MS) / width) * width
    let written = 0
    for (const [seq, since] of [...pending[level]!]) {
      pending[level]!.delete(seq)
      const from = Math.floor(since / width) * width
      if (from >= end) {
        mark(level, seq, since) // the bucket is not over yet: the next run
        continue
      }
      const rows = store.series(seq, level - 1, from, end)
      const buckets = new Map<number, Uint8Array[]>()
      for (const r of rows) {
        const b = Math.floor(r.ts / width) * width
        const list = buckets.get(b)
        if (list) list.push(r.data)
        else buckets.set(b, [r.data])
      }
      for (const [b, list] of buckets) {
        store.replaceSeries(seq, level, b, rollUp(list))
        if (level === 1) mark(2, seq, b)
        written++
      }
      // rows of the bucket still open: the next run starts there
      const newest = store.lastAt(seq, level - 1)
      if (newest !== null && newest >= end) mark(level, seq, end)
    }
    return written
  }

  return {
    async run() {
      const now = deps.clock.now()
      if (!booted) {
        booted = true
        for (const seq of store.seriesDevices()) {
          const m = store.lastAt(seq, 1)
          mark(1, seq, m === null ? (store.firstAt(seq, 0) ?? now) : m + MINUTE_MS)
          const h = store.lastAt(seq, 2)
          mark(2, seq, h === null ? (store.firstAt(seq, 1) ?? now) : h + HOUR_MS)
        }
      }
      for (const [seq, ts] of store.takeLate()) mark(1, seq, ts)
      return store.transaction(() => rollLevel(1, now) + rollLevel(2, now))
    },
  }
}

/**
 * Drops series rows past each level's retention, containers gone for longer than the raw
 * retention (with their history), and history older than the hourly retention.
 */
export function pruneContainers(deps: ContainerJobDeps): Promise<number> {
  const now = deps.clock.now()
  const r = deps.retention
  return deps.store.prune({ raw: now - r.raw * 1000, m1: now - r.m1 * 1000, h1: now - r.h1 * 1000, gone: now - r.raw * 1000, events: now - r.h1 * 1000 })
}
