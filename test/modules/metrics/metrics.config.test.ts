import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../../src/config'

describe('metric retention settings', () => {
  test('defaults: raw 7 days, 1m 3 days, 10m 30 days, hourly a year, daily five years', () => {
    expect(loadConfig({}).metricsRetention).toEqual({ raw: 7 * 86400, m1: 3 * 86400, m10: 30 * 86400, h1: 365 * 86400, d1: 5 * 365 * 86400 })
  })

  test('each level is configurable with a duration', () => {
    const c = loadConfig({
      VIGIL_RETENTION_RAW: '2d',
      VIGIL_RETENTION_1M: '36h',
      VIGIL_RETENTION_10M: '14d',
      VIGIL_RETENTION_1H: '90d',
      VIGIL_RETENTION_1D: '3650d',
    })
    expect(c.metricsRetention).toEqual({ raw: 2 * 86400, m1: 36 * 3600, m10: 14 * 86400, h1: 90 * 86400, d1: 3650 * 86400 })
  })

  test('a malformed or zero duration is a clear error', () => {
    expect(() => loadConfig({ VIGIL_RETENTION_RAW: 'a week' })).toThrow(ConfigError)
    expect(() => loadConfig({ VIGIL_RETENTION_1H: '0d' })).toThrow(/VIGIL_RETENTION_1H/)
  })
})
