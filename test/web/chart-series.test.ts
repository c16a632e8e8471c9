import { describe, expect, test } from 'bun:test'
import { appendPoint, buildCharts, flattenSample, summarize, toAligned, typicalStep, type ChartSpec, type SeriesResponse } from '../../web/src/charts/series'

function response(kind: 'hardware' | 'network', values: SeriesResponse['values'], extra: Partial<SeriesResponse> = {}): SeriesResponse {
  return {
    device_id: 'd1',
    kind,
    resolution: 'raw',
    step_seconds: 10,
    start: '2025-01-01T00:00:00Z',
    end: '2025-01-01T01:00:00Z',
    t: [100, 110, 120],
    values,
    min: {},
    max: {},
    raw_from: null,
    ...extra,
  }
}

const ids = (charts: ChartSpec[]) => charts.map((c) => c.id)

describe('buildCharts', () => {
  test('groups a full device like Node Exporter Full and leaves out empty series', () => {
    const hw = response('hardware', {
      cpu_percent: [1, 2, 3],
      'cpu_per_core:10': [1, 1, 1],
      'cpu_per_core:2': [2, 2, 2],
      ram_percent: [40, 41, 42],
      swap_percent: [null, null, null],
      'disk_partitions:/': [30, 30, 31],
      'disk_partitions:/home': [70, 70, 70],
      'disk_io:read_bytes_per_sec': [1, 2, 3],
      'disk_io:write_bytes_per_sec': [3, 2, 1],
      'disk_io:busy_percent': [3, 2, 1],
      'disk_io:sda:read_bytes_per_sec': [1, 2, 3],
      'temperatures:coretemp': [50, 51, 52],
      cpu_temp_c: [50, 51, 52],
      'fans:cpu_fan': [null, null, null],
      'gpus:0:load': [10, 20, 30],
      'gpus:0:memory_used_mb': [600, 610, 620],
    })
    const net = response('network', {
      download_mbps: [1, 2, 3],
      upload_mbps: [1, 1, 1],
      latency_avg_ms: [10, 11, 12],
      packet_loss_percent: [0, 0, 0],
      dns_resolve_ms: [null, 3, 4],
      'wifi:signal_dbm': [-50, -51, -52],
      'wifi:frequency_ghz': [5, 5, 5],
      'interfaces:eth0:download_mbps': [1, 2, 3],
      'interfaces:eth0:upload_mbps': [1, 2, 3],
      'interfaces:wlan0:upload_mbps': [null, null, null],
    })
    const charts = buildCharts(hw, net)
    expect(ids(charts)).toEqual([
      'cpu',
      'cpu-cores',
      'memory',
      'disk:/',
      'disk:/home',
      'disk-io:bytes_per_s',
      'disk-io:percent',
      'temperatures',
      'gpu:percent',
      'gpu:mib',
      'throughput',
      'latency',
      'loss',
      'interfaces',
      'wifi',
    ])
    const byId = Object.fromEntries(charts.map((c) => [c.id, c]))
    expect(byId['cpu-cores']!.lines.map((l) => l.label)).toEqual(['core 2', 'core 10'])
    expect(byId.memory!.lines.map((l) => l.label)).toEqual(['memory'])
    expect(byId.temperatures!.lines.map((l) => l.name)).toEqual(['temperatures:coretemp'])
    expect(byId['gpu:percent']!.y).toEqual([0, 100])
    expect(byId.wifi!.lines.map((l) => l.name)).toEqual(['wifi:signal_dbm'])
    expect(byId['disk-io:bytes_per_s']!.lines.map((l) => l.label)).toEqual(['read', 'write'])
    expect(byId['disk-io:bytes_per_s']!.title).toBe('Disk throughput')
    expect(byId.interfaces!.lines.map((l) => l.label)).toEqual(['eth0 down', 'eth0 up'])
    expect(byId.cpu!.step).toBe(10)
  })

  test('disk I/O per disk when the collector sends no totals', () => {
    const hw = response('hardware', { 'disk_io:sda:read_bytes_per_sec': [1, 2, 3], 'disk_io:nvme0n1:write_ops_per_sec': [1, 2, 3] })
    expect(buildCharts(hw, null).map((c) => [c.id, c.lines.map((l) => l.label)])).toEqual([
      ['disk-io:bytes_per_s', ['sda read']],
      ['disk-io:per_s', ['nvme0n1 write']],
    ])
  })

  test('CPU temperature alone stands in for a device without a temperatures map', () => {
    const charts = buildCharts(response('hardware', { cpu_temp_c: [40, 41, 42] }), null)
    expect(charts.map((c) => [c.id, c.lines[0]!.name])).toEqual([['temperatures', 'cpu_temp_c']])
  })

  test('a band only when both min and max hold values', () => {
    const hw = response('hardware', { cpu_percent: [1, 2, 3] }, { resolution: '1h', min: { cpu_percent: [0, 1, 2] }, max: { cpu_percent: [5, 6, 7] } })
    const [cpu] = buildCharts(hw, null)
    expect(cpu!.lines[0]!.min).toEqual([0, 1, 2])
    expect(toAligned(cpu!)).toEqual([
      [100, 110, 120],
      [1, 2, 3],
      [5, 6, 7],
      [0, 1, 2],
    ])
    const raw = response('hardware', { cpu_percent: [1, 2, 3] }, { min: { cpu_percent: [null, null, null] }, max: { cpu_percent: [null, null, null] } })
    expect(buildCharts(raw, null)[0]!.lines[0]!.min).toBeUndefined()
  })

  test('no data at all gives no charts', () => {
    expect(buildCharts(null, null)).toEqual([])
    expect(buildCharts(response('hardware', { cpu_percent: [null, null, null] }, {}), response('network', {}))).toEqual([])
  })
})

describe('live points', () => {
  const chart = (): ChartSpec => ({
    id: 'memory',
    section: 'Memory',
    title: 'Memory and swap',
    unit: 'percent',
    step: 10,
    t: [100, 110, 120],
    lines: [
      { name: 'ram_percent', label: 'memory', values: [1, 2, 3] },
      { name: 'swap_percent', label: 'swap', values: [0, 0, 0] },
    ],
  })

  test('appends at the right edge and drops what left the window', () => {
    const next = appendPoint(chart(), 130, { ram_percent: 4 }, 110)!
    expect(next.t).toEqual([110, 120, 130])
    expect(next.lines.map((l) => l.values)).toEqual([
      [2, 3, 4],
      [0, 0, null],
    ])
  })

  test('breaks the line across an outage instead of bridging it', () => {
    const next = appendPoint(chart(), 500, { ram_percent: 4, swap_percent: 1 }, 0)!
    expect(next.t).toEqual([100, 110, 120, 121, 500])
    expect(next.lines[0]!.values).toEqual([1, 2, 3, null, 4])
  })

  test('ignores a sample it draws nothing of, or one not after the last point', () => {
    expect(appendPoint(chart(), 130, { cpu_percent: 4 }, 0)).toBeNull()
    expect(appendPoint(chart(), 120, { ram_percent: 4 }, 0)).toBeNull()
  })

  test('extends a band with the point itself', () => {
    const c = chart()
    c.lines[0]!.min = [0, 1, 2]
    c.lines[0]!.max = [2, 3, 4]
    const next = appendPoint(c, 130, { ram_percent: 9 }, 0)!
    expect(next.lines[0]!.min).toEqual([0, 1, 2, 9])
    expect(next.lines[0]!.max).toEqual([2, 3, 4, 9])
  })

  test('flattens the nested shapes a collector sends', () => {
    expect(
      flattenSample({
        cpu_percent: 12,
        cpu_brand: 'x',
        cpu_per_core: [1, 2],
        disk_partitions: [{ mountpoint: '/', percent: 38.3 }, null],
        temperatures: { cpu_thermal: [{ current: 48.2 }], bad: 3 },
        fans: { cpu_fan: [{ current: 1200 }] },
        wifi: { ssid: 'office', signal_dbm: -54 },
        gpus: [],
        swap_percent: null,
      }),
    ).toEqual({
      cpu_percent: 12,
      'cpu_per_core:0': 1,
      'cpu_per_core:1': 2,
      'disk_partitions:/': 38.3,
      'temperatures:cpu_thermal': 48.2,
      'fans:cpu_fan': 1200,
      'wifi:signal_dbm': -54,
    })
  })
})

describe('numbers behind a chart', () => {
  test('summary skips nulls', () => {
    expect(summarize([null, 2, null, 4, 0, null])).toEqual({ min: 0, avg: 2, max: 4, last: 0, count: 3 })
    expect(summarize([null])).toEqual({ min: null, avg: null, max: null, last: null, count: 0 })
  })

  test.each<[number[], number]>([
    [[], 0],
    [[5], 0],
    [[0, 10, 20, 30], 10],
    [[0, 10, 20, 1000, 1010, 1020], 10],
  ])('typicalStep(%p) = %p', (t, step) => expect(typicalStep(t)).toBe(step))
})

describe('live points on a rollup level', () => {
  const tier = (): ChartSpec => ({
    id: 'cpu',
    section: 'CPU',
    title: 'CPU usage',
    unit: 'percent',
    step: 60,
    t: [0, 60, 120],
    lines: [{ name: 'cpu_percent', label: 'CPU', values: [10, 20, 30], min: [5, 15, 25], max: [15, 25, 35] }],
  })

  test('a sample in the newest bucket joins its average and widens its band', () => {
    const a = appendPoint(tier(), 150, { cpu_percent: 50 }, 0, 60)!
    expect(a.t).toEqual([0, 60, 120])
    expect(a.lines[0]!.values).toEqual([10, 20, 40])
    expect(a.lines[0]!.min).toEqual([5, 15, 25])
    expect(a.lines[0]!.max).toEqual([15, 25, 50])
    const b = appendPoint(a, 170, { cpu_percent: 10 }, 0, 60)!
    expect(b.lines[0]!.values).toEqual([10, 20, 30])
    expect(b.lines[0]!.min).toEqual([5, 15, 10])
  })

  test('a sample in a later bucket starts a point at the bucket', () => {
    const a = appendPoint(tier(), 185, { cpu_percent: 50 }, 0, 60)!
    expect(a.t).toEqual([0, 60, 120, 180])
    expect(a.lines[0]!.values).toEqual([10, 20, 30, 50])
    const b = appendPoint(a, 200, { cpu_percent: 70 }, 0, 60)!
    expect(b.lines[0]!.values).toEqual([10, 20, 30, 60])
  })

  test('a sample for an older bucket is ignored', () => {
    expect(appendPoint(tier(), 100, { cpu_percent: 50 }, 0, 60)).toBeNull()
  })
})
