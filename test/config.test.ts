import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig, parseDuration, parseFlags } from '../src/config'

describe('loadConfig', () => {
  test('defaults', () => {
    const c = loadConfig({})
    expect(c.port).toBe(8080)
    expect(c.host).toBe('0.0.0.0')
    expect(c.dataDir).toBe('./data')
    expect(c.siteUrl).toBe('http://localhost:8080')
    expect(c.jwtSecret).toBeNull()
    expect(c.logLevel).toBe('info')
    expect(c.trustProxy).toBe(false)
    expect(c.rateLimits).toEqual({ free: 60, pro: 600, enterprise: 6000, anonymous: 60 })
    expect(c.maxBodyBytes).toBe(1024 * 1024)
    expect(c.tlsCert).toBeNull()
    expect(c.corsOrigins).toEqual([])
    expect(c.synchronous).toBe('NORMAL')
    expect(c.refreshTtlSeconds).toBe(30 * 86400)
  })

  test('environment overrides defaults, flags override environment', () => {
    const env = { VIGIL_PORT: '9000', VIGIL_HOST: '127.0.0.1', VIGIL_DATA_DIR: '/var/lib/vigil', VIGIL_TRUST_PROXY: 'true' }
    const c = loadConfig(env, ['--port', '9100', '--data-dir=/srv/vigil'])
    expect(c.port).toBe(9100)
    expect(c.host).toBe('127.0.0.1')
    expect(c.dataDir).toBe('/srv/vigil')
    expect(c.trustProxy).toBe(true)
  })

  test('site url defaults to the configured port and loses its trailing slash', () => {
    expect(loadConfig({ VIGIL_PORT: '9000' }).siteUrl).toBe('http://localhost:9000')
    expect(loadConfig({ VIGIL_SITE_URL: 'https://vigil.example.com/' }).siteUrl).toBe('https://vigil.example.com')
  })

  test('lists, limits and durations parse', () => {
    const c = loadConfig({
      VIGIL_CORS_ORIGINS: 'https://a.example, https://b.example',
      VIGIL_RATE_LIMIT_PRO: '1200',
      VIGIL_MAX_BODY_BYTES: '2048',
      VIGIL_REFRESH_TTL: '12h',
      VIGIL_DB_SYNCHRONOUS: 'full',
    })
    expect(c.corsOrigins).toEqual(['https://a.example', 'https://b.example'])
    expect(c.rateLimits.pro).toBe(1200)
    expect(c.maxBodyBytes).toBe(2048)
    expect(c.refreshTtlSeconds).toBe(12 * 3600)
    expect(c.synchronous).toBe('FULL')
  })

  const bad: [string, Record<string, string>, RegExp][] = [
    ['port not a number', { VIGIL_PORT: 'eighty' }, /VIGIL_PORT must be a whole number/],
    ['port out of range', { VIGIL_PORT: '70000' }, /VIGIL_PORT must be between 0 and 65535/],
    ['short JWT secret', { VIGIL_JWT_SECRET: 'short' }, /at least 32 bytes/],
    ['bad log level', { VIGIL_LOG_LEVEL: 'loud' }, /VIGIL_LOG_LEVEL must be one of/],
    ['bad boolean', { VIGIL_TRUST_PROXY: 'maybe' }, /VIGIL_TRUST_PROXY must be true or false/],
    ['bad site url', { VIGIL_SITE_URL: 'ftp://x' }, /VIGIL_SITE_URL must be an absolute http\(s\) URL/],
    ['cert without key', { VIGIL_TLS_CERT: '/c.pem' }, /must be set together/],
    ['zero rate limit', { VIGIL_RATE_LIMIT_FREE: '0' }, /VIGIL_RATE_LIMIT_FREE must be between/],
    ['bad duration', { VIGIL_REFRESH_TTL: 'forever' }, /VIGIL_REFRESH_TTL must be a duration/],
  ]
  for (const [name, env, message] of bad) {
    test(`refuses ${name} with one clear line`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError)
      expect(() => loadConfig(env)).toThrow(message)
    })
  }
})

describe('parseFlags', () => {
  test('unknown options and missing values are errors', () => {
    expect(() => parseFlags(['--nope', '1'])).toThrow('unknown option --nope')
    expect(() => parseFlags(['--port'])).toThrow('--port needs a value')
    expect(() => parseFlags(['stray'])).toThrow('unexpected argument "stray"')
  })
})

describe('parseDuration', () => {
  test('units', () => {
    expect(parseDuration('X', '90', 1)).toBe(90)
    expect(parseDuration('X', '15m', 1)).toBe(900)
    expect(parseDuration('X', '7d', 1)).toBe(7 * 86400)
    expect(parseDuration('X', undefined, 42)).toBe(42)
    expect(() => parseDuration('X', '0s', 1)).toThrow('longer than zero')
  })
})
