import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../src/config'
import { describePostgresError } from '../../src/db/pg/connection'
import { DEFAULT_POOL } from '../../src/lib/database-url'
import { redactUrl } from '../../src/lib/url-secrets'

const env = (extra: Record<string, string>) => ({ VIGIL_LOG_FORMAT: 'json', ...extra })
const refusal = (extra: Record<string, string>) => {
  try {
    loadConfig(env(extra))
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message
  }
  throw new Error('accepted')
}

describe('VIGIL_DATABASE_URL and VIGIL_DATABASE_POOL', () => {
  test('unset: SQLite, with the default pool', () => {
    expect(loadConfig(env({})).database).toEqual({ url: null, pool: DEFAULT_POOL })
    expect(loadConfig(env({ VIGIL_DATABASE_URL: '  ' })).database.url).toBeNull()
  })

  test('postgres:// and postgresql:// URLs are taken as given; the pool is bounded', () => {
    const url = 'postgresql://vigil:s3cret@db.example.com:5432/vigil?sslmode=require'
    expect(loadConfig(env({ VIGIL_DATABASE_URL: url, VIGIL_DATABASE_POOL: '12' })).database).toEqual({ url, pool: 12 })
    expect(loadConfig(env({ VIGIL_DATABASE_URL: 'postgres://h/db' })).database.url).toBe('postgres://h/db')
    expect(refusal({ VIGIL_DATABASE_POOL: '0' })).toContain('VIGIL_DATABASE_POOL must be between 1 and 100')
    expect(refusal({ VIGIL_DATABASE_POOL: 'many' })).toContain('VIGIL_DATABASE_POOL must be a whole number')
  })

  test('a wrong URL is refused at start, and the refusal never repeats the password', () => {
    const mysql = refusal({ VIGIL_DATABASE_URL: 'mysql://root:hunter22@db/vigil' })
    expect(mysql).toContain('must start with postgres:// or postgresql://')
    expect(mysql).toContain('mysql://root:***@db/vigil')
    expect(mysql).not.toContain('hunter22')
    const notUrl = refusal({ VIGIL_DATABASE_URL: 'host=db password=hunter22' })
    expect(notUrl).toContain('is not a URL')
    expect(notUrl).not.toContain('hunter22')
    expect(refusal({ VIGIL_DATABASE_URL: 'postgres://u:hunter22@db' })).toMatch(/must name the database.*postgres:\/\/u:\*\*\*@db/)
    const long = refusal({ VIGIL_DATABASE_URL: `postgres://u:hunter22@db/${'x'.repeat(3000)}` })
    expect(long).toContain('at most 2048 characters')
    expect(long).not.toContain('hunter22')
  })

  test('redaction keeps everything but the password', () => {
    expect(redactUrl('postgres://vigil:p%40ss@db:5432/vigil?sslmode=require')).toBe('postgres://vigil:***@db:5432/vigil?sslmode=require')
    expect(redactUrl('postgres://db/vigil')).toBe('postgres://db/vigil')
  })

  test('a driver error is told without the password, whoever quoted it', () => {
    const url = 'postgres://vigil:hunter22@db:5432/vigil'
    const refused = describePostgresError(Object.assign(new Error('Failed to connect'), { code: 'ERR_POSTGRES_CONNECTION_REFUSED' }), url)
    expect(refused).toBe('cannot connect to PostgreSQL at postgres://vigil:***@db:5432/vigil: connection refused (is the server running and listening there?)')
    const quoting = describePostgresError(new Error(`bad things near ${url} and hunter22`), url)
    expect(quoting).not.toContain('hunter22')
    expect(quoting).toContain('postgres://vigil:***@db:5432/vigil')
  })
})
