import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createSampler } from '../../src/agent/agent.sample'
import { manualClock } from '../../src/lib/clock'
import { createNvidiaPoller, NVIDIA_SMI_ARGS, parseNvidiaSmi, withNvidiaFigures } from '../../src/agent/readers/nvidia'
import { busyPercent, readCpuFreq, readCpuInfo, readCpuTimes } from '../../src/agent/readers/cpu'
import { readMemory } from '../../src/agent/readers/memory'
import { readPartitions, type StatFs } from '../../src/agent/readers/disks'
import { diskIo, readDiskCounters } from '../../src/agent/readers/diskio'
import { cpuTemperature, readSensors } from '../../src/agent/readers/sensors'
import { readGpus } from '../../src/agent/readers/gpu'
import { networkFields, readNicCounters } from '../../src/agent/readers/network'
import { readWifi } from '../../src/agent/readers/wireless'
import { readConnections } from '../../src/agent/readers/connections'
import { readProcStats, topProcesses } from '../../src/agent/readers/processes'
import { readIdentity } from '../../src/agent/readers/identity'

const fixture = (name: string) => join(import.meta.dir, 'fixtures', name)
const PI = fixture('raspberry-pi')
const SERVER = fixture('fans-server')
const LAPTOP = fixture('laptop')
const CONTAINER = fixture('container')
const CAPTURED = fixture('captured')

/** Every mount point is a 100 GiB filesystem, 25 GiB used, 5 GiB reserved for root. */
const fakeStatfs = (): StatFs => ({ bsize: 4096, blocks: (100 * 1024 ** 3) / 4096, bfree: (75 * 1024 ** 3) / 4096, bavail: (70 * 1024 ** 3) / 4096 })

describe('cpu', () => {
  test('a Raspberry Pi: the board as the model, four cores, cpufreq in MHz', () => {
    const times = readCpuTimes(PI)
    expect(readCpuInfo(PI, times)).toEqual({ cpu_count_logical: 4, cpu_count_physical: 4, cpu_brand: 'Raspberry Pi 4 Model B Rev 1.4' })
    expect(readCpuFreq(PI)).toEqual({ cpu_freq_current: 1500, cpu_freq_max: 1800 })
  })

  test('hyper-threads: physical cores from (physical id, core id) pairs when sysfs has no topology; MHz from cpuinfo without cpufreq', () => {
    expect(readCpuInfo(SERVER, readCpuTimes(SERVER))).toEqual({
      cpu_count_logical: 4,
      cpu_count_physical: 2,
      cpu_brand: 'Intel(R) Xeon(R) E-2236 CPU @ 3.40GHz',
    })
    expect(readCpuFreq(SERVER)).toEqual({ cpu_freq_current: 3500, cpu_freq_max: null })
  })

  test('percent is the busy share of the jiffies between readings; guest time is not counted twice, iowait is idle', () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const a = [100, 0, 100, 800, 0, 0, 0, 0, 0, 0]
    expect(busyPercent(a, [150, 0, 150, 850, 50, 0, 0, 0, 0, 0])).toBe(50)
    // 40 of the 60 user jiffies were guest: total is 100, busy 60 + 0... idle 40
    expect(busyPercent(a, [160, 0, 100, 840, 0, 0, 0, 0, 40, 0])).toBe(60)
    expect(busyPercent(a, a)).toBe(0)
  })

  test('the captured machine parses', () => {
    const times = readCpuTimes(CAPTURED)!
    expect(times.cores.length).toBeGreaterThan(0)
    expect(times.total.length).toBeGreaterThanOrEqual(8)
    expect(readCpuInfo(CAPTURED, times).cpu_brand).toBeString()
  })
})

describe('memory', () => {
  test("psutil's definitions: used excludes buffers and cached (with SReclaimable), percent from available", () => {
    const m = readMemory(PI)
    const kib = 1024 / 1024 ** 3
    expect(m.ram_total_gb).toBeCloseTo(3882924 * kib, 3)
    expect(m.ram_used_gb).toBeCloseTo((3882924 - 2514600 - 60000 - 740000) * kib, 3)
    expect(m.ram_available_gb).toBeCloseTo(3300000 * kib, 3)
    expect(m.ram_percent).toBe(15) // (3882924 - 3300000) / 3882924
    expect(m.swap_percent).toBe(50)
  })

  test('a container whose cache exceeds its total and no MemAvailable: no negative used', () => {
    const m = readMemory(CONTAINER)
    expect(m.ram_used_gb!).toBeGreaterThan(0)
    // available (free + buffers + cached without MemAvailable) beyond total falls back to free, as psutil
    expect(m.ram_percent).toBe(95)
    expect(m.swap_percent).toBe(0)
  })
})

describe('filesystems', () => {
  test('a Pi: root and the boot partition; tmpfs, devtmpfs and proc are not filesystems', () => {
    const parts = readPartitions(PI, fakeStatfs)
    expect(parts.map((p) => [p.device, p.mountpoint, p.fstype])).toEqual([
      ['/dev/mmcblk0p2', '/', 'ext4'],
      ['/dev/mmcblk0p1', '/boot/firmware', 'vfat'],
    ])
    // total and used count root's reserve; free and percent are what users can write (as df)
    expect(parts[0]).toMatchObject({ total_gb: 100, used_gb: 25, free_gb: 70, percent: 26.3 })
  })

  test('a container: the overlay root is kept, a disk bind-mounted four times counts once, escaped names decoded', () => {
    const seen: string[] = []
    const parts = readPartitions(CONTAINER, (m) => {
      seen.push(m)
      return fakeStatfs()
    })
    expect(parts.map((p) => [p.device, p.mountpoint, p.fstype])).toEqual([
      ['overlay', '/', 'overlay'],
      ['/dev/sda1', '/data', 'ext4'],
      ['/dev/sdb1', '/srv/my media', 'xfs'],
    ])
    expect(seen).not.toContain('/proc')
  })

  test('a mount point that cannot be read is left out, not the whole list', () => {
    const parts = readPartitions(PI, (m) => {
      if (m === '/boot/firmware') throw new Error('EACCES')
      return fakeStatfs()
    })
    expect(parts.map((p) => p.mountpoint)).toEqual(['/'])
  })
})

describe('disk I/O', () => {
  test('whole disks only (no partitions, no loop devices), bytes from 512-byte sectors', () => {
    const c = readDiskCounters(PI)
    expect([...c.keys()]).toEqual(['mmcblk0'])
    expect(c.get('mmcblk0')).toEqual({
      read_count: 1000,
      read_bytes: 40000 * 512,
      read_time: 500,
      write_count: 2000,
      write_bytes: 80000 * 512,
      write_time: 900,
      busy_time: 1200,
    })
  })

  test('rates over the interval from two readings, busy percent capped at 100', () => {
    const prev = readDiskCounters(PI)
    const cur = new Map([
      ['mmcblk0', { ...prev.get('mmcblk0')!, read_bytes: prev.get('mmcblk0')!.read_bytes + 10_240, write_count: 2010, busy_time: 1200 + 5000 }],
    ])
    const io = diskIo(prev, cur, 10) as unknown as Record<string, number>
    expect(io.read_bytes_per_sec).toBe(1024)
    expect(io.write_ops_per_sec).toBe(1)
    expect(io.busy_percent).toBe(50)
    expect(diskIo(null, cur, 0)).not.toHaveProperty('read_bytes_per_sec')
  })
})

describe('sensors', () => {
  test('a Pi: cpu_thermal from hwmon is the CPU temperature; its thermal zone is not counted twice', () => {
    const s = readSensors(PI)
    expect(s.temperatures).toEqual({ cpu_thermal: [{ label: '', current: 48.7, high: null, critical: null }] })
    expect(cpuTemperature(s.temperatures)).toBe(48.7)
  })

  test('a server: coretemp with labels and limits, fans in RPM by chip, sensors under device/ too; the package sensor is the CPU', () => {
    const s = readSensors(SERVER)
    expect(s.temperatures.coretemp).toEqual([
      { label: 'Package id 0', current: 61, high: 80, critical: 100 },
      { label: 'Core 0', current: 58, high: null, critical: null },
      { label: 'Core 1', current: 60, high: null, critical: null },
    ])
    expect(s.temperatures.nvme).toEqual([{ label: 'Composite', current: 41.9, high: null, critical: null }])
    expect(s.fans).toEqual({
      nct6775: [
        { label: '', current: 1250 },
        { label: 'SYSFAN', current: 830 },
      ],
    })
    expect(cpuTemperature(s.temperatures)).toBe(61)
  })

  test('a laptop: k10temp Tctl is preferred over the ACPI zone', () => {
    const s = readSensors(LAPTOP)
    expect(cpuTemperature(s.temperatures)).toBe(52.1)
    expect(s.fans).toEqual({ thinkpad: [{ label: '', current: 2900 }] })
  })

  test('thermal zones count when no hwmon chip reports a temperature; none at all is null', () => {
    const s = readSensors(CONTAINER)
    expect(s).toEqual({ temperatures: {}, fans: {} })
    expect(cpuTemperature(s.temperatures)).toBeNull()
  })
})

test('GPUs from sysfs: amdgpu with load and VRAM, NVIDIA listed without figures, render nodes skipped', () => {
  expect(readGpus(SERVER)).toEqual([
    { name: 'nvidia card0', vendor: 'nvidia', load_percent: null, memory_used_mb: null, memory_total_mb: null },
    { name: 'amd card1', vendor: 'amd', load_percent: 37, memory_used_mb: 1024, memory_total_mb: 8192 },
  ])
})

describe('network', () => {
  test('totals leave loopback out; per interface with state, speed and MTU', () => {
    const n = networkFields(SERVER, null, readNicCounters(SERVER), 0)
    expect(n).toMatchObject({
      bytes_recv_total: 1_000_000_000,
      bytes_sent_total: 2_000_000_000,
      packets_recv: 800_000,
      packets_sent: 900_000,
      dropin: 5,
      upload_mbps: null,
    })
    expect(n.interfaces.find((i) => i.name === 'eno1')).toMatchObject({ is_up: true, speed_mbps: 1000, mtu: 1500 })
  })

  test('Mbps is 10^6 bits per second over the interval; a counter reset counts as no traffic', () => {
    const prev = readNicCounters(PI)
    const cur = new Map(prev)
    cur.set('wlan0', { ...prev.get('wlan0')!, bytes_recv: prev.get('wlan0')!.bytes_recv + 12_500_000, bytes_sent: 10 })
    const n = networkFields(PI, prev, cur, 10)
    expect(n.download_mbps).toBe(10)
    expect(n.upload_mbps).toBe(0)
  })

  test('Wi-Fi link quality and signal from /proc/net/wireless; no noise figure is null', () => {
    expect(readWifi(PI)).toEqual({ interface: 'wlan0', link_quality: 56, quality_percent: 80, signal_dbm: -54, noise_dbm: null })
    expect(readWifi(LAPTOP)).toEqual({ interface: 'wlp2s0', link_quality: 70, quality_percent: 100, signal_dbm: -38, noise_dbm: -92 })
    expect(readWifi(SERVER)).toBeNull()
  })

  test('connections counted by TCP state under psutil names', () => {
    expect(readConnections(PI)).toEqual([
      { type: 'tcp', state: 'LISTEN', count: 1 },
      { type: 'tcp', state: 'ESTABLISHED', count: 1 },
    ])
    expect(readConnections(CAPTURED).every((c) => c.count > 0)).toBe(true)
  })
})

describe('processes', () => {
  test('names with blanks and parentheses; CPU over the interval as a share of one core; memory over total', () => {
    const cur = readProcStats(PI)
    expect(cur.get(42)).toEqual({ name: 'tmux: server', ticks: 300, rss: 2000 })
    expect(cur.get(7)?.name).toBe('(sd-pam)')
    const prev = new Map([...cur].map(([pid, p]) => [pid, { ...p, ticks: p.ticks - (pid === 42 ? 150 : 0) }]))
    const top = topProcesses(prev, cur, 10, 4096 * 20000, 4096, 1)
    expect(top.cpu).toEqual([{ pid: 42, name: 'tmux: server', cpu_percent: 15, memory_percent: 10 }])
    expect(top.memory[0]!.pid).toBe(42)
    // the first sample has no interval: every process reads 0 %
    expect(topProcesses(null, cur, 0, 4096 * 20000, 4096).cpu.every((p) => p.cpu_percent === 0)).toBe(true)
  })

  test('a pid reused by another program between readings does not inherit its CPU time', () => {
    const cur = readProcStats(PI)
    const prev = new Map([[42, { name: 'other', ticks: 0, rss: 1 }]])
    expect(topProcesses(prev, cur, 10, 1e9, 4096).cpu[0]!.cpu_percent).toBe(0)
  })
})

test('identity: hostname, distribution and kernel, arch in uname terms, machine id as fingerprint', () => {
  expect(readIdentity(PI, 'arm64')).toEqual({
    hostname: 'pi-garage',
    os: 'linux',
    os_version: 'Debian GNU/Linux 12 (bookworm), kernel 6.6.31+rpt-rpi-v8',
    arch: 'aarch64',
    fingerprint: '5a1b2c3d4e5f60718293a4b5c6d7e8f9',
  })
  expect(readIdentity(CONTAINER, 'x64')).toMatchObject({ hostname: '3f2a9c1b7d4e', arch: 'x86_64', fingerprint: null, os_version: 'unknown' })
})

describe('NVIDIA through nvidia-smi', () => {
  const csv = readFileSync(join(import.meta.dir, 'fixtures/nvidia/nvidia-smi.csv'), 'utf8')

  test('its CSV becomes one reading per card; [N/A] is null', () => {
    expect(parseNvidiaSmi(csv)).toEqual([
      { name: 'NVIDIA GeForce RTX 3060', load_percent: 42, memory_used_mb: 2150, memory_total_mb: 12288, temperature_c: 61 },
      { name: 'NVIDIA Tesla T4', load_percent: null, memory_used_mb: 0, memory_total_mb: 15360, temperature_c: null },
    ])
    expect(parseNvidiaSmi('')).toEqual([])
  })

  test('the NVIDIA cards sysfs lists get the figures, in order; other cards are left as they are', () => {
    const merged = withNvidiaFigures(readGpus(SERVER), parseNvidiaSmi(csv))
    expect(merged).toEqual([
      { name: 'NVIDIA GeForce RTX 3060', vendor: 'nvidia', load_percent: 42, memory_used_mb: 2150, memory_total_mb: 12288, temperature_c: 61 },
      { name: 'amd card1', vendor: 'amd', load_percent: 37, memory_used_mb: 1024, memory_total_mb: 8192 },
    ])
    expect(withNvidiaFigures(readGpus(SERVER), null)).toEqual(readGpus(SERVER))
  })

  test('the poller runs the tool at most once a minute, in the background, and keeps the last figures', async () => {
    let t = 0
    const runs: string[][] = []
    let answer: string | null = csv
    const poller = createNvidiaPoller({
      now: () => t,
      run: async (args) => {
        runs.push(args)
        return answer
      },
    })
    expect(poller.latest()).toBeNull() // the first run has only started
    await poller.settled()
    expect(poller.latest()?.[0]?.load_percent).toBe(42)
    t = 59_000
    poller.latest()
    expect(runs.length).toBe(1)
    t = 60_000
    answer = null // the tool failed
    poller.latest()
    await poller.settled()
    expect(runs.length).toBe(2)
    expect(runs[0]).toEqual(NVIDIA_SMI_ARGS)
    expect(poller.latest()).toBeNull()
  })

  test("a sampler on a machine with an NVIDIA card reports the tool's figures as gpu_load", async () => {
    const poller = createNvidiaPoller({ now: () => 0, run: async () => csv })
    const sampler = createSampler({ root: SERVER, clock: manualClock(), nvidia: poller, statfs: () => ({ bsize: 4096, blocks: 0, bfree: 0, bavail: 0 }) })
    sampler.prime()
    await poller.settled()
    const s = await sampler.sample()
    expect(s.hardware.gpu_name).toBe('NVIDIA GeForce RTX 3060')
    expect(s.hardware.gpu_load).toBe(42)
  })
})
