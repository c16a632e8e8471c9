import type { Database } from 'bun:sqlite'
import type { MetricKind } from './metrics.fields'

/** The late samples of one kind stored and not rolled up yet (metric_late, see metrics.table.ts). */
export interface LateSpan {
  /** the oldest and newest of their times */
  from: number
  to: number
  /** how many groups wrote to the span: the rollup job removes it only when none did since it read it */
  writes: number
}

/**
 * metric_late on SQLite. The writer notes a group's late samples in the group's transaction, so
 * they are as durable as the samples: a hub stopped before the rollup job's next run re-rolls
 * their buckets after its start. The job reads a span, rolls it, then settles it; a group that
 * wrote to it meanwhile (even inside it) leaves it for the next run.
 */
export function createLateStore(sqlite: Database) {
  const note = sqlite.prepare<never, [MetricKind, number, number]>(
    `INSERT INTO metric_late (kind, from_ts, to_ts, writes) VALUES (?, ?, ?, 1)
     ON CONFLICT (kind) DO UPDATE SET from_ts = min(from_ts, excluded.from_ts), to_ts = max(to_ts, excluded.to_ts), writes = writes + 1`,
  )
  const pending = sqlite.prepare<{ from: number; to: number; writes: number }, [MetricKind]>(
    'SELECT from_ts AS "from", to_ts AS "to", writes FROM metric_late WHERE kind = ?',
  )
  const settle = sqlite.prepare<never, [MetricKind, number]>('DELETE FROM metric_late WHERE kind = ? AND writes = ?')
  return {
    /** in the writer's transaction: the late samples' span per kind of the group */
    note(spans: Record<MetricKind, { from: number; to: number } | null>): void {
      for (const kind of ['hardware', 'network'] as const) {
        const o = spans[kind]
        if (o) note.run(kind, o.from, o.to)
      }
    },
    pending: (kind: MetricKind): LateSpan | null => pending.get(kind) ?? null,
    settle(kind: MetricKind, span: LateSpan): void {
      settle.run(kind, span.writes)
    },
  }
}
