import { describe, expect, test } from 'bun:test'
import { alertSince } from '../../web/src/alerts/alert-list'
import { channelTarget, configFromForm, describeTest, splitList } from '../../web/src/alerts/channel-form'
import { formatValue, joinMetric, metricLabel, ruleSummary, splitMetric, valueVsThreshold } from '../../web/src/alerts/metrics'
import type { Channel, KindField } from '../../web/src/alerts/types'
import { metricWatches, thresholdsForSeries, thresholdsOf } from '../../web/src/lib/alerts'

const field = (name: string, type: KindField['type'], extra: Partial<KindField> = {}): KindField => ({
  name,
  label: name,
  type,
  required: false,
  secret: false,
  default: null,
  description: '',
  ...extra,
})

const NTFY: KindField[] = [
  field('server', 'url', { default: 'https://ntfy.sh' }),
  field('topic', 'string', { required: true }),
  field('token', 'string', { secret: true }),
  field('priority', 'integer'),
  field('silent', 'boolean', { default: false }),
  field('to', 'string_list'),
]

const reader = (values: Record<string, string>) => (name: string) => values[name] ?? null

describe('the channel form', () => {
  const stored: Channel = {
    id: 'chn_1',
    name: 'phone',
    kind: 'ntfy',
    enabled: true,
    min_severity: 'info',
    config: { server: 'https://ntfy.example', topic: 'alerts', priority: 4, to: ['a@x.test'] },
    secrets: { token: '••••wxyz' },
    created_at: '',
    updated_at: '',
  }

  test.each<[string, Record<string, string>, Channel | null, ReturnType<typeof configFromForm>]>([
    ['a new channel sends what was typed, leaving empty fields to the defaults', { 'config.topic': 'alerts', 'config.server': '' }, null, { topic: 'alerts' }],
    [
      'numbers, lists and ticked boxes are typed',
      { 'config.topic': 't', 'config.priority': '5', 'config.silent': 'on', 'config.to': 'a@x.test, b@x.test\nc@x.test' },
      null,
      { topic: 't', priority: 5, silent: true, to: ['a@x.test', 'b@x.test', 'c@x.test'] },
    ],
    ['a secret typed is sent', { 'config.topic': 't', 'config.token': ' tk_abc ' }, null, { topic: 't', token: 'tk_abc' }],
    [
      'an edit sends only what changed; a secret left empty is kept',
      { 'config.server': 'https://ntfy.example', 'config.topic': 'other', 'config.priority': '4', 'config.to': 'a@x.test', 'config.token': '' },
      stored,
      { topic: 'other' },
    ],
    [
      'an emptied optional field is removed (null), as is a secret whose removal is ticked',
      { 'config.server': 'https://ntfy.example', 'config.topic': 'alerts', 'config.priority': '', 'config.to': 'a@x.test', 'config.token.clear': 'on' },
      stored,
      { priority: null, token: null },
    ],
    [
      'an unticked box that was never set stays unset',
      { 'config.server': 'https://ntfy.example', 'config.topic': 'alerts', 'config.priority': '4', 'config.to': 'a@x.test' },
      stored,
      {},
    ],
  ])('%s', (_name, values, editing, expected) => {
    expect(configFromForm(NTFY, reader(values), editing)).toEqual(expected)
  })

  test('a list splits on lines and commas, dropping blanks', () => {
    expect(splitList(' a ,\n\nb,, c ')).toEqual(['a', 'b', 'c'])
  })

  test('the list names where a channel sends, never a secret in clear', () => {
    expect(channelTarget({ kind: 'webhook', config: { url: 'https://hooks.example/x' }, secrets: { authorization: '••••1234' } })).toBe(
      'https://hooks.example/x',
    )
    expect(channelTarget({ kind: 'ntfy', config: { topic: 'alerts' }, secrets: {} })).toBe('https://ntfy.sh/alerts')
    expect(channelTarget({ kind: 'email', config: { to: ['a@x.test', 'b@x.test'] }, secrets: {} })).toBe('a@x.test, b@x.test')
    expect(channelTarget({ kind: 'slack', config: {}, secrets: { webhook_url: '••••abcd' } })).toBe('webhook url ••••abcd')
  })

  test.each([
    [{ ok: true, http_status: 200, outcome: 'ok', error: null, duration_ms: 42 }, 'Delivered (HTTP 200) in 42 ms.'],
    [{ ok: false, http_status: 404, outcome: 'http_error', error: 'not found', duration_ms: 5 }, 'The service refused it (HTTP 404): not found'],
    [
      { ok: false, http_status: null, outcome: 'refused', error: 'vm resolves to an address this server may not call', duration_ms: 1 },
      'Vigil may not send there: vm resolves to an address this server may not call',
    ],
    [{ ok: false, http_status: null, outcome: 'mystery', error: null, duration_ms: 1 }, 'Not delivered.'],
  ])('a test send reads as a sentence: %j', (result, sentence) => {
    expect(describeTest(result)).toBe(sentence)
  })
})

describe('metrics in rules', () => {
  test.each([
    ['cpu_percent', { choice: 'cpu_percent', part: '', other: '' }],
    ['disk_partitions:/home', { choice: 'disk_partitions', part: '/home', other: '' }],
    ['disk_partitions:*', { choice: 'disk_partitions', part: '*', other: '' }],
    ['interfaces:eth0:is_up', { choice: 'interfaces:is_up', part: 'eth0', other: '' }],
    ['interfaces:*:download_mbps', { choice: 'interfaces:download_mbps', part: '*', other: '' }],
    ['wifi:signal_dbm', { choice: 'wifi:signal_dbm', part: '', other: '' }],
    ['errin', { choice: 'other', part: '', other: 'errin' }],
    ['gpus:0:load_percent', { choice: 'other', part: '', other: 'gpus:0:load_percent' }],
  ])('%s is taken apart for the picker and put back together', (metric, parts) => {
    expect(splitMetric(metric)).toEqual(parts)
    expect(joinMetric(parts.choice, parts.part, parts.other)).toBe(metric)
  })

  test('a family with no part named watches every part', () => {
    expect(joinMetric('temperatures', '  ', '')).toBe('temperatures:*')
  })

  test('rules and alerts read as sentences in their units', () => {
    const base = { kind: 'threshold' as const, operator: '>' as const, for_seconds: 300, offline_intervals: null, forecast_hours: null }
    expect(ruleSummary({ ...base, metric: 'cpu_temp_c', threshold: 85, recovery_threshold: 80 })).toBe(
      'CPU temperature above 85 °C for 5 min (resolves at 80 °C)',
    )
    expect(ruleSummary({ ...base, metric: 'disk_partitions:*', threshold: 90, recovery_threshold: null, for_seconds: 0 })).toBe(
      'Disk partition used (any partition) above 90 %',
    )
    expect(ruleSummary({ ...base, kind: 'offline', metric: null, threshold: null, recovery_threshold: null, offline_intervals: 5 })).toBe(
      'No data for 5 reporting intervals',
    )
    expect(metricLabel('disk_partitions:*', '/srv')).toBe('Disk partition used /srv')
    expect(formatValue(93.456, 'percent')).toBe('93.5 %')
    expect(formatValue(null, 'percent')).toBe('—')
    expect(valueVsThreshold({ metric: 'cpu_percent', context: null, value: 97.2, threshold: 90 })).toEqual({ value: '97.2 %', threshold: '90 %' })
    expect(valueVsThreshold({ metric: null, context: { hours_left: 12 }, value: 12, threshold: 48 })).toEqual({
      value: '12 h left',
      threshold: 'full within 48 h',
    })
  })
})

describe('thresholds for the monitoring pages', () => {
  const rule = (over: Record<string, unknown>) => ({
    id: 'r',
    name: 'r',
    kind: 'threshold',
    enabled: true,
    severity: 'warning' as const,
    metric: 'cpu_percent',
    operator: '>' as const,
    threshold: 90,
    recovery_threshold: 85,
    scope: { type: 'all' as const },
    overrides: [],
    ...over,
  })
  const dev = { id: 'd1', tags: ['db'] }

  test('only enabled threshold rules whose scope holds the device, with its override', () => {
    const lines = thresholdsOf(
      [
        rule({ id: 'all' }),
        rule({ id: 'off', enabled: false }),
        rule({ id: 'offline', kind: 'offline', metric: null, threshold: null }),
        rule({ id: 'tag', scope: { type: 'tag', value: 'db' } }),
        rule({ id: 'othertag', scope: { type: 'tag', value: 'web' } }),
        rule({ id: 'mine', scope: { type: 'device', value: 'd1' } }),
        rule({ id: 'theirs', scope: { type: 'device', value: 'd2' } }),
        rule({ id: 'skipped', overrides: [{ device_id: 'd1', enabled: false, threshold: null, recovery_threshold: null, severity: null }] }),
        rule({ id: 'moved', overrides: [{ device_id: 'd1', enabled: null, threshold: 70, recovery_threshold: null, severity: 'critical' }] }),
      ],
      dev,
    )
    expect(lines.map((l) => l.rule_id)).toEqual(['all', 'tag', 'mine', 'moved'])
    expect(lines.at(-1)).toMatchObject({ value: 70, recovery: 65, severity: 'critical' })
  })

  test.each([
    ['cpu_percent', 'cpu_percent', true],
    ['cpu_percent', 'cpu_percent_x', false],
    ['disk_partitions:*', 'disk_partitions:/home', true],
    ['disk_partitions:/home', 'disk_partitions:/', false],
    ['interfaces:*:download_mbps', 'interfaces:eth0:download_mbps', true],
    ['interfaces:*:download_mbps', 'interfaces:eth0:upload_mbps', false],
    ['temperatures:*', 'fans:cpu', false],
  ])('rule metric %s watches series %s: %p', (metric, series, yes) => {
    expect(metricWatches(metric, series)).toBe(yes)
  })

  test('a chart gets the lines of the rules that watch its series', () => {
    const lines = thresholdsOf([rule({ id: 'disk', metric: 'disk_partitions:*' }), rule({ id: 'cpu' })], dev)
    expect(thresholdsForSeries(lines, 'disk_partitions:/home').map((l) => l.rule_id)).toEqual(['disk'])
  })
})

describe('alertSince: the label always names the time shown', () => {
  const started = '2026-11-27T10:00:00.000Z'
  const fired = '2026-11-27T10:05:00.000Z'
  const cases: [Parameters<typeof alertSince>[0], { label: string; iso: string }][] = [
    [
      { state: 'pending', started_at: started, fired_at: null },
      { label: 'Pending since', iso: started },
    ],
    [
      { state: 'firing', started_at: started, fired_at: fired },
      { label: 'Firing since', iso: fired },
    ],
    [
      { state: 'resolved', started_at: started, fired_at: fired },
      { label: 'Fired', iso: fired },
    ],
    // went pending, cleared before it fired
    [
      { state: 'resolved', started_at: started, fired_at: null },
      { label: 'Pending from', iso: started },
    ],
  ]
  for (const [alert, want] of cases) test(`${alert.state}, ${alert.fired_at ? 'fired' : 'never fired'}`, () => expect(alertSince(alert)).toEqual(want))
})
