import { expect, test } from 'bun:test'
import { extractFamily } from '../../../src/modules/metrics/metrics.nested'

/** What each family gives for the collector's shapes (src/agent/readers) and for odd input. */
const cases: [string, string, unknown, Record<string, number>][] = [
  ['cpu_per_core', 'cpu_per_core', [12.5, null, 30], { 'cpu_per_core:0': 12.5, 'cpu_per_core:2': 30 }],
  [
    'disk_partitions: percent, else used/total',
    'disk_partitions',
    [
      { mountpoint: '/', percent: 38.3 },
      { mountpoint: '/home', used: 25, total: 100 },
      { device: '/dev/sdb1', percent: 5 },
    ],
    { 'disk_partitions:/': 38.3, 'disk_partitions:/home': 25, 'disk_partitions:/dev/sdb1': 5 },
  ],
  [
    'disk_io: rates in total and per disk, not counters',
    'disk_io',
    { read_bytes: 1e9, read_bytes_per_sec: 100, busy_percent: 3, disks: { sda: { write_bytes_per_sec: 7, read_count: 5 } } },
    { 'disk_io:read_bytes_per_sec': 100, 'disk_io:busy_percent': 3, 'disk_io:sda:write_bytes_per_sec': 7 },
  ],
  [
    'temperatures: the chip alone, or chip:label when it has several',
    'temperatures',
    {
      cpu_thermal: [{ label: '', current: 48.2 }],
      coretemp: [
        { label: 'Package id 0', current: 60 },
        { label: '', current: 55 },
      ],
    },
    { 'temperatures:cpu_thermal': 48.2, 'temperatures:coretemp:Package id 0': 60, 'temperatures:coretemp:1': 55 },
  ],
  ['fans', 'fans', { thinkpad: [{ label: 'fan1', current: 2100 }] }, { 'fans:thinkpad:fan1': 2100 }],
  [
    'gpus: load and memory per index',
    'gpus',
    [
      { name: 'amd', load_percent: 40, memory_used_mb: 512 },
      { name: 'nvidia', load_percent: null },
    ],
    { 'gpus:0:load': 40, 'gpus:0:memory_used_mb': 512 },
  ],
  [
    'wifi: its numbers',
    'wifi',
    { interface: 'wlan0', signal_dbm: -54, quality_percent: 80, noise_dbm: null },
    { 'wifi:signal_dbm': -54, 'wifi:quality_percent': 80 },
  ],
  [
    'interfaces: throughput per name',
    'interfaces',
    [{ name: 'eth0', upload_mbps: 1.5, download_mbps: 9, bytes_sent: 5 }, { name: 'lo' }],
    { 'interfaces:eth0:upload_mbps': 1.5, 'interfaces:eth0:download_mbps': 9 },
  ],
  ['a wrong shape gives nothing', 'cpu_per_core', { a: 1 }, {}],
  ['null gives nothing', 'temperatures', null, {}],
  ['an unknown family gives nothing', 'top_processes', [1, 2], {}],
]

for (const [name, family, value, want] of cases) {
  test(name, () => {
    const got: Record<string, number> = {}
    extractFamily(family, value, (k, v) => {
      got[k] = v
    })
    expect(got).toEqual(want)
  })
}
