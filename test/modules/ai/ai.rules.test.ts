import { describe, expect, test } from 'bun:test'
import { counterGrowth, runRules, slopePerHour, type RulesInput } from '../../../src/modules/ai/ai.rules'
import type { SeriesPoint } from '../../../src/modules/ai/ai.metrics-source'
import type { MetricsSummary } from '../../../src/modules/metrics/metrics.summary.model'
import { hourly, summaryOf } from '../../helpers/metrics-source'

const NOW = Date.parse('2026-01-01T00:00:00Z')

function input(summary: MetricsSummary | null, series: Record<string, SeriesPoint[]> = {}, device: Partial<RulesInput['device']> = {}): RulesInput {
  return {
    now: NOW,
    device: { hostname: 'web-1', createdAt: NOW - 30 * 86400_000, lastSeenAt: NOW - 60_000, ...device },
    summary,
    series: (field) => series[field] ?? [],
  }
}

const HEALTHY_HW = {
  cpu_percent: { avg: 22, p95: 60, max: 80 },
  ram_percent: 55,
  swap_percent: 3,
  cpu_temp_c: { avg: 48, p95: 61, max: 70 },
  disk_used_percent: 40,
}
const HEALTHY_NET = {
  packet_loss_percent: 0,
  latency_avg_ms: 18,
  dns_resolve_ms: 12,
  errin: 3,
  errout: 0,
  dropin: 5,
  dropout: 0,
  packets_recv: 5_000_000,
  packets_sent: 4_000_000,
}
const healthySeries = {
  disk_used_percent: hourly(168, () => 40),
  errin: hourly(24, (i) => 3 + (i > 20 ? 1 : 0)),
  dropin: hourly(24, () => 5),
  packets_recv: hourly(24, (i) => 1_000_000 + i * 100_000),
  packets_sent: hourly(24, (i) => 800_000 + i * 90_000),
}

const keys = (i: RulesInput) => runRules(i).map((f) => f.key)

describe('rules engine', () => {
  test('is silent on a healthy device', () => {
    expect(runRules(input(summaryOf(HEALTHY_HW, HEALTHY_NET), healthySeries))).toEqual([])
  })

  test('is silent without metrics, and with too few samples to judge', () => {
    expect(runRules(input(null))).toEqual([])
    expect(keys(input(summaryOf({ cpu_percent: 99, ram_percent: 99 }, {}, { samples: 2 })))).toEqual([])
  })

  test('disk-full estimate from the fill trend (linear fit → days until full)', () => {
    // 70% → 84% over a week: +2 points a day, 8 days left
    const series = { disk_used_percent: hourly(168, (i) => 70 + (i * 14) / 167) }
    const [f] = runRules(input(summaryOf(HEALTHY_HW), series))
    expect(f).toMatchObject({ key: 'rules:disk:fill', category: 'disk', severity: 'warning' })
    expect(f!.evidence).toMatchObject({
      field: 'disk_used_percent',
      window_hours: 168,
      points: 168,
      current_percent: 84,
      slope_percent_per_day: 2,
      days_until_full: 8,
    })
    expect(f!.recommendation).toContain('8 days')
    // faster: critical
    const fast = runRules(input(summaryOf(HEALTHY_HW), { disk_used_percent: hourly(168, (i) => 50 + (i * 40) / 167) }))
    expect(fast[0]).toMatchObject({ key: 'rules:disk:fill', severity: 'critical' })
    // a slow trend far from full stays silent
    expect(keys(input(summaryOf(HEALTHY_HW), { disk_used_percent: hourly(168, (i) => 40 + i * 0.001) }))).toEqual([])
  })

  test('a nearly full disk without a trend', () => {
    const f = runRules(input(summaryOf(HEALTHY_HW), { disk_used_percent: hourly(168, () => 98) }))
    expect(f).toHaveLength(1)
    expect(f[0]).toMatchObject({ key: 'rules:disk:high', severity: 'critical', evidence: { current_percent: 98 } })
  })

  test('sustained high CPU', () => {
    const f = runRules(input(summaryOf({ ...HEALTHY_HW, cpu_percent: { avg: 91, p95: 99, max: 100 } })))
    expect(f).toHaveLength(1)
    expect(f[0]).toMatchObject({ key: 'rules:cpu:sustained', category: 'cpu', severity: 'warning', evidence: { avg: 91, p95: 99, window_hours: 24 } })
    expect(runRules(input(summaryOf({ cpu_percent: 97 })))[0]!.severity).toBe('critical')
    // a short spike (high p95, low average) is not "sustained"
    expect(keys(input(summaryOf({ cpu_percent: { avg: 30, p95: 100, max: 100 } })))).toEqual([])
  })

  test('memory pressure and swap activity', () => {
    const f = runRules(input(summaryOf({ ram_percent: { avg: 93, p95: 98 }, swap_percent: { avg: 30, min: 5, max: 60 } })))
    expect(f.map((x) => x.key)).toEqual(['rules:memory:pressure', 'rules:memory:swap'])
    expect(f.every((x) => x.category === 'memory')).toBe(true)
    expect(f[1]!.evidence).toMatchObject({ field: 'swap_percent', min: 5, max: 60 })
    // swap that is used but idle (no movement, low) stays silent
    expect(keys(input(summaryOf({ ram_percent: 60, swap_percent: { avg: 10, min: 9, max: 11 } })))).toEqual([])
  })

  test('high temperatures', () => {
    const f = runRules(input(summaryOf({ cpu_temp_c: { avg: 75, p95: 92, max: 99 } })))
    expect(f[0]).toMatchObject({ key: 'rules:thermal:cpu', category: 'thermal', severity: 'critical', evidence: { p95: 92, max: 99 } })
    expect(runRules(input(summaryOf({ cpu_temp_c: { avg: 70, p95: 82 } })))[0]!.severity).toBe('warning')
  })

  test('packet loss, latency and DNS degradation', () => {
    const f = runRules(input(summaryOf({}, { packet_loss_percent: 4, latency_avg_ms: { avg: 220, p95: 600 }, dns_resolve_ms: 1500 })))
    expect(f.map((x) => [x.key, x.severity])).toEqual([
      ['rules:network:loss', 'warning'],
      ['rules:network:latency', 'warning'],
      ['rules:network:dns', 'critical'],
    ])
    expect(f[0]!.evidence).toMatchObject({ field: 'packet_loss_percent', avg: 4, window_hours: 24 })
  })

  test('interface errors and drops from counter growth (resets handled)', () => {
    const series = {
      errin: hourly(24, (i) => (i < 12 ? i * 50 : (i - 12) * 50)), // reboot at hour 12
      dropout: hourly(24, (i) => i * 20),
      packets_recv: hourly(24, (i) => i * 1000),
    }
    const f = runRules(input(summaryOf({}, { errin: 0, dropout: 0, packets_recv: 0 }), series))
    expect(f).toHaveLength(1)
    expect(f[0]).toMatchObject({ key: 'rules:network:interface_errors', category: 'network', severity: 'critical' })
    expect(f[0]!.evidence).toMatchObject({ errors: 1100, drops: 460, packets: 23000 })
    // the same errors over a busy link are noise
    const busy = { ...series, packets_recv: hourly(24, (i) => i * 100_000_000) }
    expect(keys(input(summaryOf({}, { errin: 0 }), busy))).toEqual([])
  })

  test('a device that stopped reporting, or never did', () => {
    const silent = runRules(input(null, {}, { lastSeenAt: NOW - 40 * 60_000 }))
    expect(silent[0]).toMatchObject({ key: 'rules:availability:silent', category: 'availability', severity: 'warning', evidence: { minutes_silent: 40 } })
    expect(runRules(input(null, {}, { lastSeenAt: NOW - 2 * 86400_000 }))[0]!.severity).toBe('critical')
    expect(runRules(input(null, {}, { lastSeenAt: null, createdAt: NOW - 3600_000 }))[0]!.recommendation).toContain('never reported')
    expect(runRules(input(null, {}, { lastSeenAt: NOW - 14 * 60_000 }))).toEqual([])
  })

  test('helpers: slope and counter growth', () => {
    expect(slopePerHour(hourly(10, (i) => 2 * i))).toBeCloseTo(2)
    expect(slopePerHour(hourly(1, () => 1))).toBeNull()
    expect(counterGrowth(hourly(4, (i) => [10, 20, 5, 15][i]!))).toBe(10 + 5 + 10)
  })
})

describe('findings state the window their data covers, and need enough of it', () => {
  /** a summary whose samples span only [to - spanMs, to] of the 24 hours asked */
  function spanning(spanMs: number, samples: number, hardware: Parameters<typeof summaryOf>[0], network: Parameters<typeof summaryOf>[1] = {}) {
    const s = summaryOf(hardware, network, { samples })
    for (const section of [s.hardware, s.network]) section.first_at = new Date(NOW - spanMs).toISOString()
    return s
  }

  test('90 seconds after the first sample, a 99% CPU average is no finding', () => {
    expect(keys(input(spanning(90_000, 9, { cpu_percent: 99.4 })))).toEqual([])
  })

  test('too few samples over a long span is no finding either; 29 minutes of many samples neither', () => {
    expect(keys(input(spanning(5 * 3600_000, 11, { cpu_percent: 99.4 })))).toEqual([])
    expect(keys(input(spanning(29 * 60_000, 174, { cpu_percent: 99.4 })))).toEqual([])
    const [f] = runRules(input(spanning(59 * 60_000, 60, { cpu_percent: 99.4 })))
    expect(f!.recommendation).toContain('over the 59 minutes from 2025-12-31 23:01 to 2026-01-01 00:00 UTC')
  })

  test('three hours of data: the finding says those three hours, first sample to last, not "the last 24 hours"', () => {
    const [f] = runRules(input(spanning(3 * 3600_000, 1080, { cpu_percent: 99.4 })))
    expect(f!.key).toBe('rules:cpu:sustained')
    expect(f!.recommendation).toContain('over the 3 hours from 2025-12-31 21:00 to 2026-01-01 00:00 UTC')
    expect(f!.recommendation).not.toContain('24 hours')
    expect(f!.evidence).toMatchObject({ window_hours: 24, from: '2025-12-31T21:00:00.000Z', to: '2026-01-01T00:00:00.000Z', covered_hours: 3, samples: 1080 })
  })

  test("packet loss while the hub itself restarted is left out: the collector's probes of the hub failed, not the network", () => {
    // loss 0 all day but the hour of the restart, when every probe failed: a 4.2% average
    const series = { packet_loss_percent: hourly(24, (i) => (i === 12 ? 100 : 0)) }
    const restartAt = NOW - 10 * 3600_000 - 30 * 60_000 // within the hour of index 12
    const summary = summaryOf({}, { packet_loss_percent: 4.2 })
    const withGap = (gaps: { from: number; to: number }[]) => ({ ...input(summary, series), hubGaps: () => gaps })
    expect(keys(withGap([]))).toEqual(['rules:network:loss'])
    expect(keys(withGap([{ from: restartAt, to: restartAt + 90_000 }]))).toEqual([])

    // real loss besides the restart is still found, and says what was left out
    const lossy = { packet_loss_percent: hourly(24, (i) => (i === 12 ? 100 : 5)) }
    const [f] = runRules({ ...input(summaryOf({}, { packet_loss_percent: 8.9 }), lossy), hubGaps: () => [{ from: restartAt, to: restartAt + 90_000 }] })
    expect(f).toMatchObject({ key: 'rules:network:loss', severity: 'warning', evidence: { avg: 5, hours_counted: 23 } })
    expect(f!.evidence.hub_restarts_left_out).toEqual([{ from: new Date(restartAt).toISOString(), to: new Date(restartAt + 90_000).toISOString() }])
    expect(f!.recommendation).toContain('leaving out the hub restart')
  })
})
