import { describe, expect, test } from 'bun:test'
import { binaryBytes, fixed, formatTick, formatTicks, formatUnit, unitOf, type Unit } from '../../web/src/charts/units'

describe('chart units', () => {
  test.each([
    [0, '0'],
    [0.004, '0'],
    [-0.001, '0'],
    [0.4256, '0.43'],
    [4.256, '4.26'],
    [42.56, '42.6'],
    [420.6, '421'],
    [-12.34, '-12.3'],
    [10, '10'],
  ])('fixed(%p) = %p', (v, out) => expect(fixed(v)).toBe(out))

  test.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [1024 ** 3 * 7.6, '7.6 GiB'],
    [1024 ** 7 * 3, '3072 EiB'],
    [-2048, '-2 KiB'],
    [null, '—'],
    [Number.NaN, '—'],
    [Number.POSITIVE_INFINITY, '—'],
  ])('binaryBytes(%p) = %p', (v, out) => expect(binaryBytes(v)).toBe(out))

  test.each<[Unit, number | null | undefined, string]>([
    ['percent', 42.16, '42.2%'],
    ['percent', 100, '100%'],
    ['percent', 0, '0%'],
    ['percent', null, '—'],
    ['percent', undefined, '—'],
    ['bytes_per_s', 1536, '1.5 KiB/s'],
    ['celsius', 48.25, '48.3 °C'],
    ['mbps', 8.4, '8.4 Mbps'],
    ['mbps', 0.123, '0.12 Mbps'],
    ['ms', 12.34, '12.3 ms'],
    ['ms', 1500, '1.5 s'],
    ['rpm', 1200.4, '1200 rpm'],
    ['dbm', -54.4, '-54 dBm'],
    ['mhz', 1800, '1.8 GHz'],
    ['mhz', 600, '600 MHz'],
    ['count', 3, '3'],
    ['mib', 1536, '1.5 GiB'],
    ['per_s', 12.34, '12.3/s'],
  ])('formatUnit(%p, %p) = %p', (unit, v, out) => expect(formatUnit(unit, v)).toBe(out))

  test.each<[string, Unit]>([
    ['cpu_percent', 'percent'],
    ['cpu_per_core:12', 'percent'],
    ['disk_partitions:/home', 'percent'],
    ['temperatures:coretemp', 'celsius'],
    ['cpu_temp_c', 'celsius'],
    ['fans:cpu_fan', 'rpm'],
    ['gpus:0:load', 'percent'],
    ['gpus:0:temperature', 'celsius'],
    ['gpus:0:memory_used_mb', 'mib'],
    ['disk_io:read_bytes_per_sec', 'bytes_per_s'],
    ['disk_io:sda:write_ops_per_sec', 'per_s'],
    ['disk_io:busy_percent', 'percent'],
    ['interfaces:eth0:download_mbps', 'mbps'],
    ['download_mbps', 'mbps'],
    ['latency_avg_ms', 'ms'],
    ['wifi:signal_dbm', 'dbm'],
    ['wifi:frequency_ghz', 'count'],
    ['packet_loss_percent', 'percent'],
  ])('unitOf(%p) = %p', (name, unit) => expect(unitOf(name)).toBe(unit))
})

describe('axis ticks', () => {
  test.each<[Unit, number | null, string]>([
    ['dbm', -53.5, '-53.5 dBm'],
    ['rpm', 1200, '1200 rpm'],
    ['rpm', 0.5, '0.5 rpm'],
    ['mbps', 2.5, '2.5 Mbps'],
    ['percent', 50, '50%'],
    ['percent', null, ''],
  ])('formatTick(%p, %p) = %p', (unit, v, out) => expect(formatTick(unit, v)).toBe(out))
})

describe('formatTicks: an axis never repeats a label', () => {
  const cases: [Unit, number[]][] = [
    ['mbps', [0, 0.0005, 0.001, 0.0015, 0.002]],
    ['mbps', [1.2, 1.2025, 1.205, 1.2075]],
    ['bytes_per_s', [1024, 1034.24, 1044.48, 1054.72]],
    ['bytes_per_s', [0, 0.25, 0.5, 0.75, 1]],
    ['ms', [12.3, 12.32, 12.34, 12.36]],
    ['percent', [50, 50.01, 50.02]],
    ['dbm', [-53.5, -53.25, -53, -52.75]],
    ['rpm', [1200, 1200.5, 1201]],
    ['count', [0.001, 0.002, 0.003]],
  ]
  for (const [unit, splits] of cases) {
    test(`${unit}: ${splits.join(', ')}`, () => {
      const labels = formatTicks(unit, splits)
      expect(new Set(labels).size).toBe(splits.length)
      // and they keep the unit's words
      for (const l of labels) expect(l).toBe(l.trim())
    })
  }

  test('ticks already distinct keep formatTick’s words', () => {
    const splits = [0, 250, 500, 750, 1000]
    expect(formatTicks('mbps', splits)).toEqual(splits.map((v) => formatTick('mbps', v)))
    expect(formatTicks('bytes_per_s', [0, 1024, 2048])).toEqual(['0 B/s', '1 KiB/s', '2 KiB/s'])
  })

  test('a missing split stays empty', () => {
    expect(formatTicks('mbps', [null, 0.001, 0.002])).toEqual(['', '0.001 Mbps', '0.002 Mbps'])
  })
})
