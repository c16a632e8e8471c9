import { describe, expect, test } from 'bun:test'
import { FIELDS, type MetricKind } from '../../../src/modules/metrics/metrics.fields'
import { JsonBytes } from '../../../src/lib/json-bytes'
import { diskUsedPercent, hotRecord, hotValues, toSampleRow, writePage } from '../../../src/modules/metrics/metrics.rows'
import { toRecord } from './record-shape'
import { randomPart, seeded } from './sample-bodies'

describe('writePage', () => {
  const text = (w: JsonBytes) => new TextDecoder().decode(w.take())
  test('writes exactly the JSON of toRecord for each row, in order, joined by commas', () => {
    for (const kind of ['hardware', 'network'] as const) {
      const names = FIELDS[kind].map((f) => f.name)
      const rows = [
        [7, Date.UTC(2026, 0, 1), ...names.map((_, i) => i + 0.5), JSON.stringify({ extra: { a: [1, 'x'] }, note: 'q"uote' })],
        [6, Date.UTC(2025, 11, 31), ...names.map(() => null), null],
        [5, Date.UTC(2025, 11, 30), ...names.map((_, i) => -i - 1.25), '{}'],
      ]
      const objects = rows.map((r) => Object.fromEntries([['id', r[0]], ['ts', r[1]], ...names.map((n, i) => [n, r[i + 2]]), ['rest', r[names.length + 2]]]))
      const expected = objects.map((o) => toRecord(kind, o, 'dev_"1'))
      expect(text(writePage(new JsonBytes(8), kind, rows, 'dev_"1'))).toBe(expected.map((o) => JSON.stringify(o)).join(','))
      expect(text(writePage(new JsonBytes(), kind, [], 'd'))).toBe('')
    }
  })
})

test("the live stream's values made from a stored row's hot values are the body's hot values, in the same order", () => {
  const r = seeded(27)
  for (let n = 0; n < 2_000; n++) {
    const kind = r.pick(['hardware', 'network'] as const)
    const body = randomPart(kind, r)
    const expected = hotValues(kind, body)
    const got = hotRecord(kind, toSampleRow(kind, body, 0).values)
    expect(JSON.stringify(got)).toBe(JSON.stringify(expected))
    expect(Object.is(got.cpu_percent, expected.cpu_percent)).toBe(true)
  }
})

/** toSampleRow as an earlier build wrote it (a pass for the hot values, a pass for the rest): the rows must stay the same, to the byte */
function earlierSampleRow(kind: MetricKind, body: Record<string, unknown>, ts: number) {
  const fields = FIELDS[kind]
  const values: (number | null)[] = fields.map((f) => (typeof body[f.name] === 'number' ? (body[f.name] as number) : null))
  if (kind === 'hardware') values[fields.length - 1] = diskUsedPercent(body.disk_partitions)
  const hot = new Set(fields.map((f) => f.name))
  let rest: Record<string, unknown> | null = null
  for (const k in body) {
    const v = body[k]
    if (v === undefined || hot.has(k) || k === 'device_id' || k === 'recorded_at') continue
    ;(rest ??= {})[k] = v
  }
  return { kind, ts, values, rest: rest ? JSON.stringify(rest) : null, stamped: false }
}

test('a part becomes the same row as before: hot values bit for bit, the rest the same text, extra fields and key order included', async () => {
  const r = seeded(2027)
  const bodies: [MetricKind, Record<string, unknown>][] = []
  for (let n = 0; n < 3_000; n++) {
    const kind = r.pick(['hardware', 'network'] as const)
    bodies.push([kind, randomPart(kind, r)])
  }
  // and the real sample a collector sends
  const real = await Bun.file(`${import.meta.dir}/../../fixtures/agent-sample.json`).json()
  for (const kind of ['hardware', 'network'] as const) if (real[kind]) bodies.push([kind, real[kind]])
  for (const [kind, body] of bodies) {
    const got = toSampleRow(kind, body, 5)
    const want = earlierSampleRow(kind, body, 5)
    expect(got.rest).toBe(want.rest)
    expect(got.values.length).toBe(want.values.length)
    for (let i = 0; i < got.values.length; i++) expect(Object.is(got.values[i], want.values[i])).toBe(true)
  }
})
