import { describe, expect, test } from 'bun:test'
import { checkWindow, parseCheckRange, responseChart } from '../../web/src/checks/check-chart'
import { checkFromForm, heartbeatExamples, inputFor, parseHeaders, settingsFromForm } from '../../web/src/checks/check-form'
import { countState, matches, period, sortChecks, stateBadge, targetOf, uptime } from '../../web/src/checks/check-list'
import { keepSecret, takeSecret } from '../../web/src/checks/fresh-secret'
import type { CheckListItem } from '../../web/src/checks/types'

function check(id: string, over: Partial<CheckListItem> = {}): CheckListItem {
  return {
    id,
    name: id,
    kind: 'http',
    settings: { url: `https://${id}.example.com/` },
    interval_s: 60,
    timeout_ms: 10_000,
    down_after: 3,
    up_after: 2,
    run_on_hub: true,
    device_ids: [],
    depends_on_device_id: null,
    paused: false,
    state: 'up',
    state_since: null,
    last_checked_at: null,
    last_response_ms: null,
    last_status_code: null,
    last_error: null,
    cert_expires_at: null,
    places: [],
    heartbeat_token: null,
    heartbeat_url: null,
    heartbeat_token_hint: null,
    created_at: '2026-11-27T00:00:00Z',
    updated_at: '2026-11-27T00:00:00Z',
    uptime_24h: null,
    sparkline: [],
    ...over,
  }
}

const form = (entries: [string, string][]) => {
  const data = new FormData()
  for (const [k, v] of entries) data.append(k, v)
  return data
}

describe('the checks list', () => {
  test('puts those that need attention first: down, degraded, pending, up, paused; by name within a state', () => {
    const list = [
      check('b', { state: 'up' }),
      check('p', { state: 'paused' }),
      check('a', { state: 'up' }),
      check('n', { state: 'pending' }),
      check('g', { state: 'degraded' }),
      check('d', { state: 'down' }),
    ]
    expect(sortChecks(list).map((c) => c.id)).toEqual(['d', 'g', 'n', 'a', 'b', 'p'])
  })

  test('searches names, kinds, states and targets', () => {
    const db = check('db', { name: 'Database', kind: 'tcp', settings: { host: 'pg.lan', port: 5432 }, state: 'down' })
    expect(matches(db, 'pg.lan')).toBe(true)
    expect(matches(db, '5432')).toBe(true)
    expect(matches(db, 'TCP')).toBe(true)
    expect(matches(db, 'down')).toBe(true)
    expect(matches(db, 'datab')).toBe(true)
    expect(matches(db, 'https')).toBe(false)
    expect(matches(db, '  ')).toBe(true)
  })

  test('counts checks in a state (the dashboard says how many are down)', () => {
    expect(countState([check('a', { state: 'down' }), check('b', { state: 'degraded' }), check('c', { state: 'down' })], 'down')).toBe(2)
  })

  test('shows every state as a word, never colour alone', () => {
    expect(stateBadge('up')).toEqual({ status: 'online', label: 'Up' })
    expect(stateBadge('down')).toEqual({ status: 'offline', label: 'Down' })
    expect(stateBadge('degraded').label).toBe('Degraded')
    expect(stateBadge('paused').label).toBe('Paused')
  })

  test('says what each kind watches in one line', () => {
    expect(targetOf(check('x', { settings: { url: 'https://a.test/', method: 'POST' } }))).toBe('POST https://a.test/')
    expect(targetOf(check('x', { kind: 'dns', settings: { name: 'a.test', record_type: 'AAAA' } }))).toBe('a.test AAAA')
    expect(targetOf(check('x', { kind: 'tls', settings: { host: 'a.test' } }))).toBe('a.test:443')
    expect(targetOf(check('x', { kind: 'heartbeat', settings: { period_s: 86400 } }))).toBe('expected every 1 d')
    expect(period(90)).toBe('90 s')
    expect(period(300)).toBe('5 min')
  })

  test('never rounds an uptime with a failure up to 100 %', () => {
    expect(uptime(99.999)).toBe('99.99 %')
    expect(uptime(100)).toBe('100 %')
    expect(uptime(97.5)).toBe('97.50 %')
    expect(uptime(null)).toBe('—')
  })
})

describe('the check form', () => {
  test('reads an HTTP check: headers as lines, status codes as a list, checkboxes as booleans, empty inputs left out', () => {
    const data = form([
      ['name', ' Website '],
      ['settings.url', 'https://example.com/health'],
      ['settings.method', 'GET'],
      ['settings.headers', 'Accept: application/json\nX-Token: a:b\n'],
      ['settings.body', ''],
      ['settings.accepted_status', '200-299, 301'],
      ['settings.keyword', ''],
      ['settings.keyword_absent', 'on'],
      ['settings.json_path', ''],
      ['settings.json_expected', ''],
      ['settings.verify_tls', 'on'],
      ['settings.slow_ms', '800'],
      ['settings.cert_warn_days', ''],
      ['interval_s', '30'],
      ['timeout_ms', '5000'],
      ['down_after', '1'],
      ['up_after', '1'],
      ['run_on_hub', 'on'],
      ['device_ids', 'dev_1'],
      ['depends_on_device_id', ''],
    ])
    expect(checkFromForm('http', data)).toEqual({
      name: 'Website',
      kind: 'http',
      settings: {
        url: 'https://example.com/health',
        method: 'GET',
        headers: { Accept: 'application/json', 'X-Token': 'a:b' },
        accepted_status: ['200-299', '301'],
        follow_redirects: false,
        verify_tls: true,
        slow_ms: 800,
      },
      interval_s: 30,
      timeout_ms: 5000,
      down_after: 1,
      up_after: 1,
      run_on_hub: true,
      device_ids: ['dev_1'],
      depends_on_device_id: null,
    })
  })

  test('sends a number typed wrong as typed, so the API names the field', () => {
    expect(
      settingsFromForm(
        'tcp',
        form([
          ['settings.host', 'db'],
          ['settings.port', '54x'],
        ]),
      ),
    ).toEqual({ host: 'db', port: '54x' } as never)
  })

  test('a heartbeat has no place to run: neither the hub nor agents are sent', () => {
    const body = checkFromForm(
      'heartbeat',
      form([
        ['name', 'Backup'],
        ['settings.period_s', '86400'],
        ['settings.grace_s', '600'],
      ]),
    )
    expect(body).toEqual({ name: 'Backup', kind: 'heartbeat', settings: { period_s: 86400, grace_s: 600 }, depends_on_device_id: null })
  })

  test("puts a 422 inside a list on the list's input", () => {
    expect(inputFor(['settings', 'headers', 'Bad line'])).toBe('settings.headers')
    expect(inputFor(['settings', 'accepted_status', 1])).toBe('settings.accepted_status')
    expect(inputFor(['device_ids', 0])).toBe('device_ids')
    expect(inputFor(['interval_s'])).toBe('interval_s')
  })

  test('keeps a header line without a colon as a name, for the API to refuse', () => {
    expect(parseHeaders('no colon here')).toEqual({ 'no colon here': '' })
    expect(parseHeaders('\n \n')).toBeUndefined()
  })

  test('gives a heartbeat curl and cron lines that report success and failure', () => {
    const ex = heartbeatExamples('https://vigil.example.com/hb/abc')
    expect(ex.curl).toBe('curl -fsS -m 10 --retry 5 -o /dev/null https://vigil.example.com/hb/abc')
    expect(ex.cron).toContain('&& curl -fsS -m 10 --retry 5 -o /dev/null https://vigil.example.com/hb/abc ||')
    expect(ex.cron).toEndWith('https://vigil.example.com/hb/abc/fail')
  })
})

describe('the heartbeat secret', () => {
  test('is handed to its own check page once, then forgotten', () => {
    keepSecret('chk_1', 'https://h/hb/tok')
    expect(takeSecret('chk_2')).toBeNull()
    expect(takeSecret('chk_1')).toBe('https://h/hb/tok')
    expect(takeSecret('chk_1')).toBeNull()
  })
})

describe('the response-time chart', () => {
  test('draws the average and the slowest of each step, a step without answers as a gap', () => {
    const chart = responseChart({
      range: '24h',
      step_s: 300,
      points: [
        { t: '2026-11-27T00:00:00Z', avg_ms: 12, max_ms: 30, uptime: 100 },
        { t: '2026-11-27T00:05:00Z', avg_ms: null, max_ms: null, uptime: 0 },
      ],
    })
    expect(chart.t).toEqual([Date.parse('2026-11-27T00:00:00Z') / 1000, Date.parse('2026-11-27T00:05:00Z') / 1000])
    expect(chart.lines.map((l) => l.values)).toEqual([
      [12, null],
      [30, null],
    ])
    expect(chart.unit).toBe('ms')
  })

  test('takes only the ranges the API serves, 24 h otherwise', () => {
    expect(parseCheckRange('90d')).toBe('90d')
    expect(parseCheckRange('1y')).toBe('24h')
    expect(parseCheckRange(null)).toBe('24h')
    expect(checkWindow('1h', 7_200_000)).toEqual([3600, 7200])
  })
})
