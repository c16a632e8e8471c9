import type { SQL } from 'bun'
import { RECORDS, metricTables } from '../../db/pg/metrics.partitions'
import { medianGap } from './metrics.buckets'
import { KIND_BIT, tierTable } from './metrics.fields'
import type { FleetReads } from './metrics.fleet'
import { fleetMemory } from './metrics.fleet.memory'
import { RECENT_TIMES } from './metrics.series.store'

/**
 * A hub's memory of each device's newest sample times (RECENT_TIMES of them) and the reporting
 * interval they give: the devices' status sweep and answers ask for intervals synchronously, so
 * on PostgreSQL they come from memory, fed by the samples this hub stores and those other hubs
 * announce (the `sample` event), and loaded from the database when the hub starts.
 */
export interface RecentTimes {
  /** a sample of the device recorded at ts was stored (by this hub or another) */
  heard(seq: number, ts: number): void
  /** each device's interval: the median gap of its newest sample times; null with fewer than two */
  intervals(seqs: number[]): Map<number, number | null>
  /** every device's newest sample times from the database, merged with what was heard meanwhile */
  load(sql: SQL): Promise<void>
}

export function recentTimes(): RecentTimes {
  const known = new Map<number, { times: number[]; ms: number | null }>()
  const heard = (seq: number, ts: number) => {
    let k = known.get(seq)
    if (!k) known.set(seq, (k = { times: [], ms: null }))
    const times = k.times // newest first, distinct
    if (times.includes(ts) || (times.length >= RECENT_TIMES && ts < times[times.length - 1]!)) return
    let i = 0
    while (i < times.length && times[i]! > ts) i++
    times.splice(i, 0, ts)
    if (times.length > RECENT_TIMES) times.length = RECENT_TIMES
    k.ms = medianGap(times)
  }
  return {
    heard,
    intervals: (seqs) => new Map(seqs.map((s) => [s, known.get(s)?.ms ?? null])),
    async load(sql) {
      await metricTables(sql)
      // one descent of each device's (device_seq, ts) key
      const rows: unknown[][] = await sql
        .unsafe(
          `SELECT d.seq, r.ts FROM devices d
           CROSS JOIN LATERAL (SELECT ts FROM ${RECORDS} WHERE device_seq = d.seq ORDER BY ts DESC LIMIT ${RECENT_TIMES}) r
           WHERE d.seq IS NOT NULL`,
        )
        .values()
      for (const [seq, ts] of rows) heard(Number(seq), Number(ts))
    },
  }
}

/** Where a hub hears of stored samples: its own (with their device's seq) and other hubs' `sample` events. */
export interface SampleFeed {
  stored(listener: (s: { seq?: number; ts: number }) => void): unknown
  peers(listener: (clientId: string, type: string, data: unknown) => void): unknown
  /** another hub's sample names its device: its seq (throws when deleted meanwhile) */
  ref(clientId: string, deviceId: string): { seq: number } | Promise<{ seq: number }>
}

/** Keeps `recent` up with every sample stored, on this hub or another. */
export function followSampleTimes(recent: RecentTimes, feed: SampleFeed) {
  feed.stored((s) => {
    if (s.seq !== undefined) recent.heard(s.seq, s.ts)
  })
  feed.peers((clientId, type, data) => {
    const d = (data ?? {}) as { device_id?: unknown; recorded_at?: unknown }
    const ts = typeof d.recorded_at === 'string' ? Date.parse(d.recorded_at) : Number.NaN
    if (type !== 'sample' || typeof d.device_id !== 'string' || !Number.isFinite(ts)) return
    const deviceId = d.device_id
    Promise.resolve()
      .then(() => feed.ref(clientId, deviceId))
      .then(
        (device) => recent.heard(device.seq, ts),
        () => {}, // deleted meanwhile
      )
  })
}

/**
 * The fleet figures' reads on PostgreSQL (SQLite's, metrics.series.store.ts, answering the same):
 * the newest sample of each kind per device, the 1m tier's CPU minutes and the raw CPU values of
 * the minutes not rolled up yet. The intervals come from the hub's memory (RecentTimes).
 */
export function createFleetReadsPg(sql: SQL, recent: RecentTimes): FleetReads {
  const hw = KIND_BIT.hardware
  const newest = (bit: number, cols: string) =>
    `LEFT JOIN LATERAL (SELECT ts, ${cols} FROM ${RECORDS} WHERE device_seq = d.seq AND (kinds & ${bit}) <> 0 ORDER BY ts DESC, id DESC LIMIT 1)`
  const nums = <T>(rows: unknown[][]) => rows.map((r) => r.map((v) => (v === null ? null : Number(v)))) as T
  const memory = fleetMemory()
  return {
    sparks: memory.sparks,
    intervals: (seqs) => recent.intervals(seqs),
    async fleetLatest(seqs) {
      if (!seqs.length) return []
      await metricTables(sql)
      const rows: unknown[][] = await sql
        .unsafe(
          `SELECT d.seq, h.ts, h.cpu_percent, h.ram_percent, h.disk_used_percent, h.cpu_temp_c,
                  n.ts, n.download_mbps, n.upload_mbps, n.latency_avg_ms, n.packet_loss_percent
           FROM unnest($1::int8[]) WITH ORDINALITY AS d(seq, o)
           ${newest(hw, 'cpu_percent, ram_percent, disk_used_percent, cpu_temp_c')} h ON true
           ${newest(KIND_BIT.network, 'download_mbps, upload_mbps, latency_avg_ms, packet_loss_percent')} n ON true
           ORDER BY d.o`,
          [sql.array(seqs, 'int8')],
        )
        .values()
      return nums(rows)
    },
    async cpuMinutes(seqs, from, to) {
      await metricTables(sql)
      const rows: unknown[][] = await sql
        .unsafe(
          `SELECT device_seq, bucket, cpu_percent_avg FROM ${tierTable('hardware', '1m')}
           WHERE device_seq = ANY($1::int8[]) AND bucket >= $2 AND bucket < $3 AND cpu_percent_n > 0`,
          [sql.array(seqs, 'int8'), from, to],
        )
        .values()
      return nums(rows)
    },
    async cpuSamples(seqs, from, to) {
      await metricTables(sql)
      const rows: unknown[][] = await sql
        .unsafe(
          `SELECT device_seq, ts, cpu_percent FROM ${RECORDS}
           WHERE device_seq = ANY($1::int8[]) AND ts >= $2 AND ts < $3 AND (kinds & ${hw}) <> 0 AND cpu_percent IS NOT NULL`,
          [sql.array(seqs, 'int8'), from, to],
        )
        .values()
      return nums(rows)
    },
    async rolledUntil() {
      const rows: { done_until: string }[] = await sql`SELECT done_until FROM metric_rollups WHERE kind = 'hardware' AND tier = '1m'`
      return Number(rows[0]?.done_until ?? 0)
    },
  }
}
