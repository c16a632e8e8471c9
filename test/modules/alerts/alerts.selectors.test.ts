import { describe, expect, test } from 'bun:test'
import { compileSelector, metricWords, type Selector } from '../../../src/modules/alerts/runtime/alerts.selectors'
import { hardwareSample, networkSample } from '../../helpers/samples'

const sel = (m: string) => {
  const s = compileSelector(m)
  if ('error' in s) throw new Error(s.error)
  return s as Selector
}
const hw = {
  ...hardwareSample(0),
  temperatures: {
    coretemp: [
      { label: 'Core 0', current: 61 },
      { label: 'Core 1', current: 72.5 },
    ],
    nvme: [{ label: '', current: 40 }],
  },
  fans: { thinkpad: [{ label: '', current: 2400 }] },
  disk_io: { read_bytes_per_sec: 1000 },
  gpus: [{ name: 'amd', load_percent: 33 }],
}
const net = {
  ...networkSample(0),
  interfaces: [
    { name: 'eth0', is_up: true, download_mbps: 12 },
    { name: 'wlan0', is_up: false },
  ],
}

describe('metric selectors read the sample as the collector sends it', () => {
  const plain: [string, Record<string, unknown>, number | null, string | null][] = [
    ['cpu_percent', hw, 20, 'hardware'],
    ['cpu_temp_c', hw, 48.2, 'hardware'],
    ['disk_used_percent', hw, 38.3, 'hardware'], // derived from the partitions when the body lacks it
    ['disk_partitions:/', hw, 38.3, 'hardware'],
    ['disk_partitions:/boot/firmware', hw, 12.1, 'hardware'],
    ['disk_partitions:/nope', hw, null, 'hardware'],
    ['temperatures:coretemp', hw, 72.5, 'hardware'],
    ['fans:thinkpad', hw, 2400, 'hardware'],
    ['cpu_per_core:3', hw, 55.2, 'hardware'],
    ['disk_io:read_bytes_per_sec', hw, 1000, 'hardware'],
    ['gpus:0:load_percent', hw, 33, 'hardware'],
    ['packet_loss_percent', net, 0, 'network'],
    ['latency_avg_ms', net, 12.3, 'network'],
    ['wifi:signal_dbm', net, -54, 'network'],
    ['interfaces:eth0:download_mbps', net, 12, 'network'],
    ['interfaces:wlan0:is_up', net, 0, 'network'],
    ['my_own_gauge', { my_own_gauge: 7 }, 7, null],
  ]
  for (const [metric, values, want, kind] of plain) {
    test(`${metric} → ${want}`, () => {
      const s = sel(metric)
      expect(s.wildcard).toBe(false)
      expect(s.source).toBe(kind as never)
      expect(s.read(values)).toBe(want)
    })
  }

  test('wildcards give one series per part; read-only images (snaps) are never full disks', () => {
    const withSnap = { ...hw, disk_partitions: [...hw.disk_partitions, { mountpoint: '/snap/x/1', fstype: 'squashfs', percent: 100 }] }
    expect(sel('disk_partitions:*').each(withSnap)).toEqual([
      ['/', 38.3],
      ['/boot/firmware', 12.1],
    ])
    expect(sel('temperatures:*').each(hw)).toEqual([
      ['coretemp', 72.5],
      ['nvme', 40],
    ])
    expect(sel('interfaces:*:is_up').each(net)).toEqual([
      ['eth0', 1],
      ['wlan0', 0],
    ])
  })

  const bad = ['', '1abc', 'disk_partitions', 'disk_partitions:', 'interfaces:eth0', 'cpu_percent:x', 'wifi:', 'gpus:0:', 'interfaces:eth0:bad-field']
  for (const m of bad) test(`refused: "${m}"`, () => expect('error' in compileSelector(m)).toBe(true))

  test('words for notices', () => {
    expect(metricWords('disk_partitions:*', '/home')).toEqual({ label: 'Disk /home used', unit: ' %' })
    expect(metricWords('disk_partitions:/', '')).toEqual({ label: 'Disk / used', unit: ' %' })
    expect(metricWords('interfaces:*:is_up', 'eth0')).toEqual({ label: 'Interface eth0 up (1) or down (0)', unit: '' })
    expect(metricWords('interfaces:eth0:download_mbps', '')).toEqual({ label: 'Interface eth0 download', unit: ' Mbit/s' })
    expect(metricWords('cpu_percent', '')).toEqual({ label: 'CPU used', unit: ' %' })
    expect(metricWords('cpu_temp_c', '')).toEqual({ label: 'CPU temperature', unit: ' °C' })
    expect(metricWords('my_queue_depth', '')).toEqual({ label: 'my_queue_depth', unit: '' })
  })
})
