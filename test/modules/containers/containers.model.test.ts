import { expect, test } from 'bun:test'
import { BatchMetricIn, BulkMetricIn } from '../../../src/modules/metrics/metrics.model'

test('the ingest bodies’ schemas declare no default: one would make every batch walk TypeBox’s default filler', () => {
  // t.UnionEnum gives its first word as a default; the containers and disks blocks use plain unions
  expect(JSON.stringify(BatchMetricIn)).not.toContain('"default":')
  expect(JSON.stringify(BulkMetricIn)).not.toContain('"default":')
})
