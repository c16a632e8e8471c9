import { describe, expect, test } from 'bun:test'
import { escapeLabelValue, Exposition, formatValue, labelText } from '../../../src/modules/observability/observability.exposition'
import { createRegistry, Histogram } from '../../../src/modules/observability/observability.registry'

describe('the text exposition format', () => {
  test('label values escape backslash, double quote and newline, and nothing else', () => {
    expect(escapeLabelValue('a\\b"c\nd é{}=,')).toBe('a\\\\b\\"c\\nd é{}=,')
    expect(
      labelText([
        ['hostname', 'web "1"\n'],
        ['client', 'c\\1'],
      ]),
    ).toBe('{hostname="web \\"1\\"\\n",client="c\\\\1"}')
    expect(labelText([])).toBe('')
  })

  test('a family is its HELP line (backslash and newline escaped), its TYPE line, then its samples', () => {
    const text = new Exposition().family('x_total', 'counter', 'two\nlines \\ here').sample('x_total', '{a="b"}', 3).sample('x_total', '', 4).text()
    expect(text).toBe('# HELP x_total two\\nlines \\\\ here\n# TYPE x_total counter\nx_total{a="b"} 3\nx_total 4\n')
  })

  test('values as Prometheus reads them: NaN, +Inf, -Inf, plain decimals', () => {
    expect([NaN, Infinity, -Infinity, 0.5, 1e21, 42].map(formatValue)).toEqual(['NaN', '+Inf', '-Inf', '0.5', '1e+21', '42'])
  })

  test('histogram buckets are cumulative, end with +Inf equal to _count, and _sum is the sum', () => {
    const h = new Histogram([0.1, 1])
    for (const v of [0.05, 0.1, 0.5, 2, 3]) h.observe(v)
    const text = new Exposition().family('d_seconds', 'histogram', 'd').histogram('d_seconds', '{route="/x"}', h.bounds, h.counts, h.sum).text()
    expect(text.split('\n').slice(2, -1)).toEqual([
      'd_seconds_bucket{route="/x",le="0.1"} 2', // a value equal to a bound falls in that bucket
      'd_seconds_bucket{route="/x",le="1"} 3',
      'd_seconds_bucket{route="/x",le="+Inf"} 5',
      'd_seconds_sum{route="/x"} 5.65',
      'd_seconds_count{route="/x"} 5',
    ])
    // without labels, le is the only one
    expect(new Exposition().histogram('e', '', [1], new Float64Array([1, 0]), 0.5).text()).toContain('e_bucket{le="1"} 1\n')
  })
})

describe('the service registry', () => {
  test('requests are counted per method, route pattern and status; unknown methods share one series', () => {
    const r = createRegistry()
    r.request('GET', '/v1/devices/:id', 200, 0.002)
    r.request('GET', '/v1/devices/:id', 200, 0.003)
    r.request('GET', '/v1/devices/:id', 404, 0.001)
    r.request('BREW', 'unmatched', 404, 0.001)
    r.request('TEA', 'unmatched', 404, 0.001)
    const out = new Exposition()
    r.write(out)
    const text = out.text()
    expect(text).toContain('vigil_http_requests_total{method="GET",route="/v1/devices/:id",status="200"} 2\n')
    expect(text).toContain('vigil_http_requests_total{method="GET",route="/v1/devices/:id",status="404"} 1\n')
    expect(text).toContain('vigil_http_requests_total{method="OTHER",route="unmatched",status="404"} 2\n')
    expect(text).toContain('vigil_http_request_duration_seconds_count{method="GET",route="/v1/devices/:id"} 3\n')
  })

  test('job runs by result, their durations and the last success', () => {
    const r = createRegistry()
    r.job('metrics.rollup', 0.02, true, 60_000)
    r.job('metrics.rollup', 0.5, false, 120_000)
    const out = new Exposition()
    r.write(out)
    const text = out.text()
    expect(text).toContain('vigil_job_runs_total{job="metrics.rollup",result="success"} 1\n')
    expect(text).toContain('vigil_job_runs_total{job="metrics.rollup",result="failure"} 1\n')
    expect(text).toContain('vigil_job_duration_seconds_count{job="metrics.rollup"} 2\n')
    expect(text).toContain('vigil_job_last_success_timestamp_seconds{job="metrics.rollup"} 60\n')
  })
})
