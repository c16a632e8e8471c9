import { FIELDS, type MetricKind } from '../../../src/modules/metrics/metrics.fields'

/** A small seeded generator: the same bodies on every run. */
export function seeded(seed: number) {
  let s = seed >>> 0
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!
  return { next, int, pick }
}

const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 2 ** 53 + 2, -123.456, Number.MAX_VALUE, Number.MIN_VALUE, 42, 99.99]
const STRINGS = ['', 'x', 'q"uote', 'back\\slash', 'line\nbreak', 'ünïcödé', '😀', '\u2028', '</script>']

/**
 * A part of a sample as a collector (or anything else) may send it after JSON.parse: hot fields
 * as numbers, nulls, strings or missing, disk partitions in their forms, extra fields of any
 * shape, the envelope's keys, in any order.
 */
export function randomPart(kind: MetricKind, r: ReturnType<typeof seeded>): Record<string, unknown> {
  const value = (depth: number): unknown => {
    switch (r.int(depth > 2 ? 4 : 7)) {
      case 0:
        return r.pick(NUMBERS) * (r.next() < 0.5 ? 1 : r.next())
      case 1:
        return r.pick(STRINGS)
      case 2:
        return r.pick([true, false, null])
      case 3:
        return r.int(1000)
      case 4:
        return Array.from({ length: r.int(4) }, () => value(depth + 1))
      default: {
        const o: Record<string, unknown> = {}
        for (let i = r.int(4); i > 0; i--) o[r.pick(['a', 'b', '1', '0', 'key', 'é', '__proto__x', 'cpu_percent'])] = value(depth + 1)
        return o
      }
    }
  }
  const entries: [string, unknown][] = []
  for (const f of FIELDS[kind]) {
    const roll = r.next()
    if (roll < 0.6) entries.push([f.name, r.pick(NUMBERS) * r.next()])
    else if (roll < 0.7) entries.push([f.name, null])
    else if (roll < 0.75) entries.push([f.name, r.pick(STRINGS)])
  }
  if (kind === 'hardware' && r.next() < 0.8) {
    entries.push([
      'disk_partitions',
      r.pick([
        [{ mountpoint: '/', percent: 40.5, total: 100, used: 40 }],
        [
          { mountpoint: '/', total: 200, used: 150 },
          { mountpoint: '/b', percent: 12 },
        ],
        [{ mountpoint: '/', percent: 'x', total: 0, used: 1 }],
        'not a list',
        [],
        [null, 3, { percent: Number.MAX_VALUE }],
      ]),
    ])
  }
  for (let i = r.int(6); i > 0; i--)
    entries.push([r.pick(['cpu_per_core', 'interfaces', 'top_processes', 'extra', 'gpus', 'note', 'z', '0', '10', '__proto__', 'constructor']), value(0)])
  if (r.next() < 0.3) entries.push(['recorded_at', '2026-01-01T00:00:00Z'])
  if (r.next() < 0.3) entries.push(['device_id', 'dev_x'])
  // any order, as sent; a key sent twice keeps its last value, as JSON.parse does
  for (let i = entries.length - 1; i > 0; i--) {
    const j = r.int(i + 1)
    ;[entries[i], entries[j]] = [entries[j]!, entries[i]!]
  }
  return JSON.parse(JSON.stringify(Object.fromEntries(entries)))
}
