import type { Database, SQLQueryBindings } from 'bun:sqlite'
import { FIELDS, RAW_TABLE, TIERS, hasKind, restColumn, tierColumns, tierTable, type MetricKind } from './metrics.fields'
import { perConnection } from '../../db/per-connection'

/** Prepared reads for one metric kind; every one is a range on (device_seq, time), newest or oldest first. */
function kindStore(sqlite: Database, kind: MetricKind) {
  const raw = RAW_TABLE
  const has = hasKind(kind)
  const rest = `${restColumn(kind)} AS rest`
  const hot = FIELDS[kind].map((f) => f.name)
  const tierCols = tierColumns(kind)
  const q = <R, P extends SQLQueryBindings[]>(sql: string) => sqlite.query<R, P>(sql)
  return {
    /** rows as objects (`.all`), or as arrays (`.values`: id, ts, hot..., rest) where no object per row is wanted */
    page: q<Record<string, unknown>, [number, number, number, number, number]>(
      `SELECT id, ts, ${hot.join(', ')}, ${rest} FROM ${raw} WHERE device_seq = ? AND ts >= ? AND ts <= ? AND ${has} ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`,
    ),
    count: q<{ n: number }, [number, number, number]>(`SELECT count(*) AS n FROM ${raw} WHERE device_seq = ? AND ts >= ? AND ts <= ? AND ${has}`),
    /** samples per hour as rolled up: lets a wide history total skip counting every raw row */
    hourlyCount: q<{ n: number | null }, [number, number, number]>(
      `SELECT sum(n) AS n FROM ${tierTable(kind, '1h')} WHERE device_seq = ? AND bucket >= ? AND bucket < ?`,
    ),
    oldestTs: q<{ ts: number }, [number]>(`SELECT ts FROM ${raw} WHERE device_seq = ? AND ${has} ORDER BY ts LIMIT 1`),
    latest: q<Record<string, unknown>, [number]>(
      `SELECT id, ts, ${hot.join(', ')}, ${rest} FROM ${raw} WHERE device_seq = ? AND ${has} ORDER BY ts DESC, id DESC LIMIT 1`,
    ),
    /** [ts, ...hot values] oldest first, for summaries */
    rawValues: q<never, [number, number, number]>(`SELECT ts, ${hot.join(', ')} FROM ${raw} WHERE device_seq = ? AND ts >= ? AND ts < ? AND ${has} ORDER BY ts`),
    firstTs: q<{ ts: number }, [number, number, number]>(`SELECT ts FROM ${raw} WHERE device_seq = ? AND ts >= ? AND ts < ? AND ${has} ORDER BY ts LIMIT 1`),
    lastTs: q<{ ts: number }, [number, number, number]>(`SELECT ts FROM ${raw} WHERE device_seq = ? AND ts >= ? AND ts < ? AND ${has} ORDER BY ts DESC LIMIT 1`),
    /** per tier: [bucket, n, ...tierCols] oldest first */
    tierValues: TIERS.map((t) =>
      q<never, [number, number, number]>(
        `SELECT bucket, n, ${tierCols.join(', ')} FROM ${tierTable(kind, t.name)} WHERE device_seq = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`,
      ),
    ),
    /** per hot field: hourly averages (fieldSeries) */
    hourly: new Map(
      FIELDS[kind].map((f) => [
        f.name,
        q<{ t: number; avg: number | null }, [number, number, number]>(
          `SELECT bucket AS t, ${f.name}_avg AS avg FROM ${tierTable(kind, '1h')} WHERE device_seq = ? AND bucket >= ? AND bucket < ? AND ${f.name}_n > 0 ORDER BY bucket`,
        ),
      ]),
    ),
    /** samples stored in the last hour, by one index range per device */
    recentCount: q<{ n: number | null }, [number]>(
      `SELECT sum((SELECT count(*) FROM ${raw} WHERE device_seq = d.seq AND ts >= ?1 AND ${has})) AS n FROM devices d WHERE d.seq IS NOT NULL`,
    ),
  }
}

function build(sqlite: Database) {
  const doneUntil = sqlite.query<{ tier: string; done_until: number }, [string]>('SELECT tier, done_until FROM metric_rollups WHERE kind = ?')
  return {
    seqs: sqlite.query<{ seq: number }, []>('SELECT seq FROM devices WHERE seq IS NOT NULL'),
    hardware: kindStore(sqlite, 'hardware'),
    network: kindStore(sqlite, 'network'),
    /** per tier index, how far it is rolled up (0 when never) */
    doneUntil(kind: MetricKind): number[] {
      const rows = doneUntil.all(kind)
      return TIERS.map((t) => rows.find((r) => r.tier === t.name)?.done_until ?? 0)
    },
  }
}

export type MetricStore = ReturnType<typeof build>
export const metricStore: (sqlite: Database) => MetricStore = perConnection(build)
