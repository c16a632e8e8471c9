import { describe, expect, test } from 'bun:test'
import { applySample, attentionRank, displayName, matches, parseSort, pushSpark, sortDevices, type FleetDevice } from '../../web/src/devices/fleet'

function device(id: string, over: Partial<FleetDevice> = {}): FleetDevice {
  return {
    id,
    name: null,
    hostname: id,
    os: 'Linux',
    os_version: '6.1',
    arch: 'x86_64',
    tags: [],
    status: 'online',
    interval_seconds: 10,
    last_seen_at: '2025-01-01T00:00:00Z',
    cpu_percent: 10,
    ram_percent: 20,
    disk_used_percent: 30,
    cpu_temp_c: null,
    download_mbps: null,
    upload_mbps: null,
    latency_avg_ms: null,
    packet_loss_percent: null,
    cpu_spark: [],
    alerts_firing: 0,
    ...over,
  }
}

describe('needs attention first', () => {
  test.each<[Partial<FleetDevice>, number]>([
    [{ alerts_firing: 2, status: 'online' }, 0],
    [{ status: 'offline' }, 1],
    [{ status: 'stale' }, 2],
    [{ disk_used_percent: 95 }, 3],
    [{ packet_loss_percent: 10 }, 3],
    [{ status: 'never', cpu_percent: null, ram_percent: null, disk_used_percent: null }, 4],
    [{}, 5],
    [{ status: 'offline', disk_used_percent: 99 }, 1],
  ])('attentionRank(%p) = %p', (over, rank) => expect(attentionRank(device('x', over))).toBe(rank))

  test('orders by rank, then alerts, then strain, then name', () => {
    const list = [
      device('fine-b'),
      device('fine-a'),
      device('never', { status: 'never' }),
      device('hot', { cpu_percent: 97 }),
      device('stale', { status: 'stale' }),
      device('one-alert', { alerts_firing: 1 }),
      device('gone', { status: 'offline' }),
      device('three-alerts', { alerts_firing: 3 }),
      device('fine-busier', { cpu_percent: 60 }),
    ]
    expect(sortDevices(list, 'attention').map((d) => d.id)).toEqual([
      'three-alerts',
      'one-alert',
      'gone',
      'stale',
      'hot',
      'never',
      'fine-busier',
      'fine-a',
      'fine-b',
    ])
  })

  test('metric sorts put unknown values last, names break ties', () => {
    const list = [device('b', { ram_percent: null }), device('c', { ram_percent: 50 }), device('a', { ram_percent: 50 }), device('d', { ram_percent: 90 })]
    expect(sortDevices(list, 'memory').map((d) => d.id)).toEqual(['d', 'a', 'c', 'b'])
  })

  test('name sort is natural and uses the given name over the hostname', () => {
    const list = [device('h10'), device('h9'), device('zz', { name: 'Alpha' })]
    expect(sortDevices(list, 'name').map(displayName)).toEqual(['Alpha', 'h9', 'h10'])
  })

  test.each([
    ['cpu', 'cpu'],
    ['nope', 'attention'],
    [null, 'attention'],
  ])('parseSort(%p) = %p', (v, out) => expect(parseSort(v)).toBe(out as never))
})

describe('search', () => {
  const d = device('x', { name: 'Web 1', hostname: 'web-01', tags: ['prod', 'eu'] })
  test.each([
    ['', true],
    ['  ', true],
    ['web', true],
    ['WEB prod', true],
    ['prod staging', false],
    ['linux x86', true],
    ['online', true],
  ])('matches(%p) = %p', (q, out) => expect(matches(d, q)).toBe(out))
})

describe('live patches', () => {
  test('a hardware sample updates the figures and last seen; other figures stay', () => {
    const d = device('x', { download_mbps: 5, status: 'never', last_seen_at: null })
    const next = applySample(d, 'hardware', '2025-01-01T00:01:00Z', { cpu_percent: 55, ram_percent: 'x', disk_used_percent: 40 })
    expect(next).toMatchObject({
      cpu_percent: 55,
      ram_percent: 20,
      disk_used_percent: 40,
      download_mbps: 5,
      status: 'online',
      last_seen_at: '2025-01-01T00:01:00Z',
    })
    expect(next.cpu_spark.at(-1)).toBe(55)
    expect(d.cpu_percent).toBe(10)
  })

  test('a network sample updates the network figures', () => {
    const next = applySample(device('x'), 'network', '2025-01-01T00:00:10Z', { download_mbps: 8, latency_avg_ms: 12, packet_loss_percent: 0 })
    expect(next).toMatchObject({ download_mbps: 8, latency_avg_ms: 12, packet_loss_percent: 0, cpu_percent: 10 })
  })

  test('an older replayed sample does not move last seen back', () => {
    const next = applySample(device('x'), 'network', '2024-12-31T00:00:00Z', {})
    expect(next.last_seen_at).toBe('2025-01-01T00:00:00Z')
  })

  test.each<[string, (number | null)[], string | null, string, number, (number | null)[]]>([
    ['same minute replaces', [1, 2, 3], '2025-01-01T00:00:10Z', '2025-01-01T00:00:50Z', 9, [1, 2, 9]],
    ['next minute shifts', [1, 2, 3], '2025-01-01T00:00:10Z', '2025-01-01T00:01:05Z', 9, [2, 3, 9]],
    ['silence leaves nulls', [1, 2, 3], '2025-01-01T00:00:10Z', '2025-01-01T00:02:05Z', 9, [3, null, 9]],
    ['long silence', [1, 2, 3], '2025-01-01T00:00:10Z', '2025-01-01T05:00:00Z', 9, [null, null, 9]],
    ['older sample ignored', [1, 2, 3], '2025-01-01T00:05:00Z', '2025-01-01T00:00:00Z', 9, [1, 2, 3]],
  ])('sparkline: %s', (_name, spark, last, at, v, out) => expect(pushSpark(spark, last, at, v)).toEqual(out))

  test('sparkline of a device never seen is 60 minutes ending with the value', () => {
    const s = pushSpark([], null, '2025-01-01T00:00:00Z', 5)
    expect(s.length).toBe(60)
    expect(s.at(-1)).toBe(5)
    expect(s.filter((v) => v != null)).toEqual([5])
  })
})
