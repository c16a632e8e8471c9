import type { Database } from 'bun:sqlite'
import { tierColumns, type MetricKind } from '../../../src/modules/metrics/metrics.fields'
import { createPackedStore } from '../../../src/modules/metrics/metrics.packed.store'

/**
 * Every row of the 1-minute tier of `kind` as objects ({device_seq, bucket, n, ...tier columns}),
 * by device then minute, as the hub reads it: its coded spans and the rows of the earlier form.
 * SQLite keeps the tier coded per ten minutes (metrics.packed.ts), so a test cannot SELECT it.
 */
export function minuteRows(sqlite: Database, kind: MetricKind = 'hardware'): Record<string, number | null>[] {
  const names = ['device_seq', 'bucket', 'n', ...tierColumns(kind)]
  const seqs = sqlite
    .query<{ seq: number }, []>('SELECT seq FROM devices ORDER BY seq')
    .all()
    .map((r) => r.seq)
  return createPackedStore(sqlite)
    .rowsIn(kind, seqs, 0, Number.MAX_SAFE_INTEGER)
    .map((r) => Object.fromEntries(r.map((v, i) => [names[i]!, v])))
}
