import { describe, expect, test } from 'bun:test'
import { FIELDS } from '../../../src/modules/metrics/metrics.fields'
import { pageJson, toRecord } from '../../../src/modules/metrics/metrics.rows'

describe('pageJson', () => {
  test('is the JSON of toRecord for each row, in order', () => {
    for (const kind of ['hardware', 'network'] as const) {
      const names = FIELDS[kind].map((f) => f.name)
      const rows = [
        [7, Date.UTC(2026, 0, 1), ...names.map((_, i) => i + 0.5), JSON.stringify({ extra: { a: [1, 'x'] }, note: 'q"uote' })],
        [6, Date.UTC(2025, 11, 31), ...names.map(() => null), null],
        [5, Date.UTC(2025, 11, 30), ...names.map((_, i) => -i - 1.25), '{}'],
      ]
      const objects = rows.map((r) => Object.fromEntries([['id', r[0]], ['ts', r[1]], ...names.map((n, i) => [n, r[i + 2]]), ['rest', r[names.length + 2]]]))
      const expected = objects.map((o) => toRecord(kind, o, 'dev_"1'))
      expect(JSON.parse(`[${pageJson(kind, rows, 'dev_"1')}]`)).toEqual(expected)
      expect(pageJson(kind, [], 'd')).toBe('')
    }
  })
})
