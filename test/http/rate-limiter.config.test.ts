import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../src/config'
import { redactUrl } from '../../src/lib/url-secrets'

const load = (VIGIL_REDIS_URL?: string) => loadConfig({ VIGIL_LOG_FORMAT: 'json', VIGIL_REDIS_URL })

describe('VIGIL_REDIS_URL', () => {
  test('unset or empty: no shared store', () => {
    expect(load().redisUrl).toBeNull()
    expect(load('  ').redisUrl).toBeNull()
  })

  test('redis:// and rediss:// with a password and a database number are taken as given', () => {
    expect(load('redis://127.0.0.1:6379').redisUrl).toBe('redis://127.0.0.1:6379')
    expect(load(' rediss://:pw@cache.internal:6380/2 ').redisUrl).toBe('rediss://:pw@cache.internal:6380/2')
  })

  test('anything else is refused in one line that never repeats the password', () => {
    for (const bad of [
      'http://:pw-123456@host:6379',
      'redis://:pw-123456@host:6379/keys',
      'pw-123456',
      `redis://h/${'x'.repeat(3000)}`,
      'redis://:pw-123456@/0',
    ]) {
      let error: unknown
      try {
        load(bad)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message).toStartWith('VIGIL_REDIS_URL must be a redis:// or rediss:// URL')
      expect((error as Error).message).not.toContain('pw-123456')
    }
  })

  test('logs name the store with its password replaced', () => {
    expect(redactUrl('redis://:s3cret@10.0.0.9:6379/1')).toBe('redis://:***@10.0.0.9:6379/1')
    expect(redactUrl('redis://user:s3cret@10.0.0.9:6379')).toBe('redis://user:***@10.0.0.9:6379')
    expect(redactUrl('redis://10.0.0.9:6379')).toBe('redis://10.0.0.9:6379')
  })
})
