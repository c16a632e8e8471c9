import type { Database } from 'bun:sqlite'
import type { MetricKind } from './metrics.fields'

/** The oldest and newest time of late samples of one kind (metric_late, see metrics.table.ts). */
export interface LateSpan {
  from: number
  to: number
}

/** What a rollup run needs of metric_late, on either engine. */
export interface LateSpans {
  /** the span the writers added to since the last run, joined to one a run left unfinished; it stays stored until `finish` */
  claim(kind: MetricKind): LateSpan | null | Promise<LateSpan | null>
  /** the run rolled the claimed span: it is forgotten (what the writers added meanwhile stays) */
  finish(kind: MetricKind): void | Promise<void>
}

/** Both spans of a row, as one: the late samples not rolled up yet, whichever run will. */
export function pendingOf(from: number | null, to: number | null, rollingFrom: number | null, rollingTo: number | null): LateSpan | null {
  const f = [from, rollingFrom].filter((x): x is number => x !== null)
  const t = [to, rollingTo].filter((x): x is number => x !== null)
  return f.length && t.length ? { from: Math.min(...f), to: Math.max(...t) } : null
}

type Row = { from_ts: number | null; to_ts: number | null; rolling_from: number | null; rolling_to: number | null }

/**
 * metric_late on SQLite. The writer adds a group's late samples to its kind's span in the group's
 * transaction, so they are as durable as the samples: a hub stopped before the rollup job's next
 * run re-rolls their buckets after its start. A run claims the span (moved to the rolling span in
 * one statement, joined to one a stopped run left), rolls it, then forgets it; samples written
 * meanwhile go to a new span, rolled by the next run.
 */
export function createLateStore(sqlite: Database): LateSpans & {
  note(spans: Record<MetricKind, LateSpan | null>): void
  pending(kind: MetricKind): LateSpan | null
} {
  const note = sqlite.prepare<never, [MetricKind, number, number]>(
    `INSERT INTO metric_late (kind, from_ts, to_ts) VALUES (?1, ?2, ?3)
     ON CONFLICT (kind) DO UPDATE SET from_ts = min(coalesce(from_ts, ?2), ?2), to_ts = max(coalesce(to_ts, ?3), ?3)`,
  )
  const row = sqlite.prepare<Row, [MetricKind]>('SELECT from_ts, to_ts, rolling_from, rolling_to FROM metric_late WHERE kind = ?')
  const claim = sqlite.prepare<{ from: number | null; to: number | null }, [MetricKind]>(
    `UPDATE metric_late SET rolling_from = min(coalesce(rolling_from, from_ts), coalesce(from_ts, rolling_from)),
       rolling_to = max(coalesce(rolling_to, to_ts), coalesce(to_ts, rolling_to)), from_ts = NULL, to_ts = NULL
     WHERE kind = ? RETURNING rolling_from AS "from", rolling_to AS "to"`,
  )
  const finish = sqlite.prepare<never, [MetricKind]>('UPDATE metric_late SET rolling_from = NULL, rolling_to = NULL WHERE kind = ?')
  const drop = sqlite.prepare<never, [MetricKind]>('DELETE FROM metric_late WHERE kind = ? AND from_ts IS NULL AND rolling_from IS NULL')
  return {
    /** in the writer's transaction: the group's late samples' span per kind */
    note(spans) {
      for (const kind of ['hardware', 'network'] as const) {
        const o = spans[kind]
        if (o) note.run(kind, o.from, o.to)
      }
    },
    /** every late sample of the kind not rolled up yet, for the reads */
    pending(kind) {
      const r = row.get(kind)
      return r ? pendingOf(r.from_ts, r.to_ts, r.rolling_from, r.rolling_to) : null
    },
    claim(kind) {
      const r = claim.get(kind)
      return r && r.from !== null && r.to !== null ? { from: r.from, to: r.to } : null
    },
    finish(kind) {
      sqlite.transaction(() => {
        finish.run(kind)
        drop.run(kind)
      })()
    },
  }
}
