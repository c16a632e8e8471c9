import { describe, expect, test } from 'bun:test'
import { containerCharts, withGaps } from '../../web/src/containers/container-charts'
import { attentionReasons, deviceOrder, engineAdvice, eventText, healthBadge, memoryText, NOT_ACCOUNTED, stateBadge } from '../../web/src/containers/containers'
import { diskBadge, diskConcerns, powerOn, smartAdvice, wear } from '../../web/src/containers/disks'
import { columnOf, fleetQuery, isFiltered, nextSort, PAGE_SIZE, parseFleet } from '../../web/src/containers/fleet-query'
import type { Container, ContainerSeries, Disk } from '../../web/src/containers/types'

function container(name: string, over: Partial<Container> = {}): Container {
  return {
    container_id: `c-${name}`,
    device_id: 'd1',
    device_name: 'web-01',
    engine_id: `e-${name}`,
    name,
    image: 'nginx:1.27',
    labels: {},
    state: 'running',
    health: 'none',
    exit_code: null,
    oom_killed: false,
    restart_count: 0,
    started_at: '2026-11-27T05:00:00Z',
    finished_at: null,
    uptime_seconds: 3600,
    needs_attention: false,
    cpu_percent: 1.5,
    memory_used_bytes: 64 * 1024 * 1024,
    memory_limit_bytes: 256 * 1024 * 1024,
    memory_percent: 25,
    memory_accounting: true,
    net_rx_bytes_per_sec: 1024,
    net_tx_bytes_per_sec: 2048,
    block_read_bytes_per_sec: 0,
    block_write_bytes_per_sec: 0,
    pids: 4,
    first_seen_at: '2026-11-27T05:00:00Z',
    last_seen_at: '2026-11-27T06:00:00Z',
    gone_at: null,
    ...over,
  }
}

function disk(over: Partial<Disk> = {}): Disk {
  return {
    name: '/dev/sda',
    model: 'WDC WD40EFRX',
    serial: 'WD-1',
    kind: 'ata',
    capacity_bytes: 4e12,
    passed: true,
    temperature_c: 34,
    power_on_hours: 20_000,
    reallocated_sectors: 0,
    pending_sectors: 0,
    uncorrectable_sectors: 0,
    nvme_percentage_used: null,
    nvme_media_errors: null,
    failing: false,
    reallocated_growth_7d: 0,
    collected_at: '2026-11-27T06:00:00Z',
    ...over,
  }
}

describe('a container’s state and health in words', () => {
  test('a stop with a non-zero exit code is an error and says its code; a clean stop is not', () => {
    expect(stateBadge({ state: 'exited', exit_code: 137 })).toEqual({ tone: 'bad', icon: 'x-circle', word: 'Exited (137)' })
    expect(stateBadge({ state: 'exited', exit_code: 0 })).toEqual({ tone: 'muted', icon: 'minus-circle', word: 'Exited (0)' })
    expect(stateBadge({ state: 'running', exit_code: null }).tone).toBe('ok')
    expect(stateBadge({ state: 'restarting', exit_code: null }).tone).toBe('warn')
    expect(stateBadge({ state: 'gone', exit_code: null }).word).toBe('Gone')
  })

  test('health: a word for each check, nothing for a container without one', () => {
    expect(healthBadge('unhealthy')?.tone).toBe('bad')
    expect(healthBadge('healthy')?.word).toBe('Healthy')
    expect(healthBadge('starting')?.tone).toBe('warn')
    expect(healthBadge('none')).toBeNull()
  })

  test('why a container needs attention, in the hub’s own terms', () => {
    expect(attentionReasons(container('a', { health: 'unhealthy' }))).toEqual(['unhealthy'])
    expect(attentionReasons(container('b', { state: 'exited', exit_code: 1, oom_killed: true }))).toEqual([
      'exited with code 1',
      'killed for want of memory (OOM)',
    ])
    expect(attentionReasons(container('c', { state: 'restarting' }))).toEqual(['restarting'])
    expect(attentionReasons(container('d', { state: 'exited', exit_code: 0 }))).toEqual([])
  })
})

describe('memory', () => {
  test('without cgroup memory accounting it says so, never 0', () => {
    const c = container('pi', { memory_used_bytes: null, memory_limit_bytes: null, memory_percent: null })
    expect(memoryText(c, false)).toBe(NOT_ACCOUNTED)
    expect(memoryText(c, false)).not.toContain('0')
    expect(memoryText(c, true)).toBe('—')
  })

  test('used, of the limit, with the share', () => {
    expect(memoryText(container('a'), true)).toBe('64 MiB of 256 MiB (25 %)')
    expect(memoryText(container('b', { memory_limit_bytes: null, memory_percent: null }), true)).toBe('64 MiB')
  })
})

test('a device’s containers: those needing attention first, then running ones, gone ones last, by name within', () => {
  const list = [
    container('zeta'),
    container('old', { state: 'gone' }),
    container('db', { state: 'exited', exit_code: 0 }),
    container('api', { state: 'exited', exit_code: 2, needs_attention: true }),
    container('alpha'),
  ]
  expect(deviceOrder(list).map((c) => c.name)).toEqual(['api', 'alpha', 'zeta', 'db', 'old'])
})

test('the state history reads as sentences', () => {
  expect(eventText({ kind: 'stopped', exit_code: 137, restart_count: null })).toBe('Stopped with exit code 137')
  expect(eventText({ kind: 'restarted', exit_code: null, restart_count: 3 })).toBe('Restarted (restart count 3)')
  expect(eventText({ kind: 'oom_killed', exit_code: null, restart_count: null })).toBe('Killed for want of memory (OOM)')
})

test('no engine: the advice fits the reason', () => {
  expect(engineAdvice('permission denied on /var/run/docker.sock: add the vigil-agent user to the docker group')).toContain('may not open it')
  expect(engineAdvice('no Docker or Podman socket found (looked at /var/run/docker.sock)')).toContain('DOCKER_HOST')
})

describe('the fleet page’s URL', () => {
  test('filters, sort and page come from the URL; anything unknown is dropped', () => {
    const f = parseFleet(new URLSearchParams('name=web&image=nginx&state=exited&health=bogus&device=d1&attention=1&sort=-cpu&page=3'))
    expect(f).toEqual({ name: 'web', image: 'nginx', state: 'exited', health: null, device: 'd1', attention: true, sort: '-cpu', page: 2 })
    expect(fleetQuery(f)).toEqual({
      name: 'web',
      image: 'nginx',
      state: 'exited',
      device_id: 'd1',
      needs_attention: 'true',
      sort: '-cpu',
      limit: PAGE_SIZE,
      offset: 2 * PAGE_SIZE,
    })
    expect(isFiltered(f)).toBe(true)
  })

  test('defaults: needs attention first, the first page, no blank search sent (the API refuses an empty one)', () => {
    const f = parseFleet(new URLSearchParams('name=%20%20&sort=sideways&page=-2'))
    expect(f.sort).toBe('attention')
    expect(f.page).toBe(0)
    expect(fleetQuery(f)).toEqual({ sort: 'attention', limit: PAGE_SIZE, offset: 0 })
    expect(isFiltered(f)).toBe(false)
  })

  test('searches are cut to the API’s bounds, so a long URL never earns a 422', () => {
    const f = parseFleet(new URLSearchParams({ name: 'n'.repeat(300), image: 'i'.repeat(600) }))
    expect(f.name.length).toBe(255)
    expect(f.image.length).toBe(512)
  })

  test('a column header sorts by its first order, then the other way where the API has one', () => {
    expect(nextSort('attention', 'cpu')).toBe('-cpu')
    expect(nextSort('-cpu', 'cpu')).toBe('cpu')
    expect(nextSort('cpu', 'cpu')).toBe('-cpu')
    expect(nextSort('attention', 'name')).toBe('name')
    expect(nextSort('name', 'name')).toBe('-name')
    expect(nextSort('device', 'device')).toBe('device')
    expect(nextSort('name', 'health')).toBe('name')
    expect(columnOf('-cpu')).toEqual({ key: 'cpu', desc: true })
    expect(columnOf('attention')).toBeNull()
  })
})

function series(over: Partial<ContainerSeries> = {}): ContainerSeries {
  const nulls = (n: number) => Array.from({ length: n }, () => null)
  return {
    container_id: 'c1',
    name: 'web',
    resolution: 'raw',
    step_seconds: 10,
    start: '2026-11-27T05:00:00Z',
    end: '2026-11-27T06:00:00Z',
    t: [0, 10, 20, 100, 110],
    values: {
      cpu_percent: [1, 2, 3, 4, 5],
      memory_used_bytes: [10, 20, 30, 40, 50],
      memory_limit_bytes: nulls(5),
      net_rx_bytes_per_sec: [1, 1, 1, 1, 1],
      net_tx_bytes_per_sec: [2, 2, 2, 2, 2],
      block_read_bytes_per_sec: nulls(5),
      block_write_bytes_per_sec: nulls(5),
      pids: [1, 1, 1, 1, 1],
    },
    max: {},
    ...over,
  }
}

describe('a container’s charts', () => {
  test('a gap longer than a few steps breaks the line instead of bridging it', () => {
    const g = withGaps(series())
    expect(g.t).toEqual([0, 10, 20, 21, 100, 110])
    expect(g.values.cpu_percent).toEqual([1, 2, 3, null, 4, 5])
  })

  test('CPU, memory, network; block I/O left out when it holds nothing; the peak beside the average on rollups', () => {
    const rolled = series({ resolution: '1m', step_seconds: 60, t: [0, 60], max: { cpu_percent: [9, 8], memory_used_bytes: [11, 12] } })
    for (const k of Object.keys(rolled.values)) rolled.values[k] = rolled.values[k]!.slice(0, 2)
    const charts = containerCharts('c1', rolled, true)
    expect(charts.map((c) => c.title)).toEqual(['CPU (100% = one core)', 'Memory used', 'Network'])
    expect(charts[0]!.lines.map((l) => l.label)).toEqual(['CPU', 'CPU peak'])
    expect(charts[0]!.lines[1]!.values).toEqual([9, 8])
    expect(charts[1]!.lines.map((l) => l.label)).toEqual(['used', 'peak'])
    expect(new Set(charts.map((c) => c.id)).size).toBe(charts.length)
  })

  test('without memory accounting there is no memory chart (no line of zeros)', () => {
    expect(containerCharts('c1', series(), false).map((c) => c.title)).not.toContain('Memory used')
  })
})

describe('disk health', () => {
  test('failing as the hub judges it; passed only on smartctl’s word', () => {
    expect(diskBadge(disk({ failing: true })).word).toBe('Failing')
    expect(diskBadge(disk()).word).toBe('Passed')
    expect(diskBadge(disk({ passed: null })).word).toBe('Not assessed')
  })

  test('the readings behind a verdict, in words', () => {
    expect(diskConcerns(disk({ passed: false, pending_sectors: 8, uncorrectable_sectors: 1, reallocated_growth_7d: 16 }))).toEqual([
      'smartctl’s overall assessment failed',
      '8 pending sectors (unreadable, waiting to be reallocated)',
      '1 uncorrectable sector',
      '16 more reallocated sectors in 7 days',
    ])
    expect(diskConcerns(disk())).toEqual([])
    expect(diskConcerns(disk({ kind: 'nvme', nvme_percentage_used: 97, nvme_media_errors: 2 }))).toEqual([
      '2 NVMe media errors',
      '97% of its rated endurance used',
    ])
  })

  test('power-on hours with the time they make, and NVMe wear', () => {
    expect(powerOn(20_000)).toBe(`${(20_000).toLocaleString()} h (2.3 years)`)
    expect(powerOn(50)).toBe('50 h (2 days)')
    expect(powerOn(null)).toBe('—')
    expect(wear({ kind: 'nvme', nvme_percentage_used: 3 })).toBe('3% used')
  })

  test('smartctl unavailable: the advice fits the reason', () => {
    expect(smartAdvice('smartctl not found: install smartmontools to report disk health')).toContain('sudo apt install smartmontools')
    expect(smartAdvice('smartctl may not open the disks: it needs root or the CAP_SYS_RAWIO and CAP_SYS_ADMIN capabilities')).toContain('CAP_SYS_RAWIO')
    expect(smartAdvice('no disk here answers S.M.A.R.T.')).toContain('USB')
  })
})
