import { describe, expect, test } from 'bun:test'
import { AppError } from '../../../src/http/errors'
import type { KeyPrincipal } from '../../../src/http/principal'
import { deviceForKey } from '../../../src/modules/api-keys/api-keys.binding'

const key = (deviceId: string | null): KeyPrincipal => ({ kind: 'key', keyId: 'key_1', clientId: 'cli_1', scopes: [], deviceId })

describe('deviceForKey', () => {
  test('an unbound key acts for the device it names (or none)', () => {
    expect(deviceForKey(key(null), 'dev_a')).toBe('dev_a')
    expect(deviceForKey(key(null), undefined)).toBeNull()
  })

  test('a bound key acts for its device only; another is 403 device_mismatch', () => {
    expect(deviceForKey(key('dev_a'), undefined)).toBe('dev_a')
    expect(deviceForKey(key('dev_a'), 'dev_a')).toBe('dev_a')
    try {
      deviceForKey(key('dev_a'), 'dev_b')
      throw new Error('should have thrown')
    } catch (err) {
      expect(err).toBeInstanceOf(AppError)
      expect((err as AppError).status).toBe(403)
      expect((err as AppError).code).toBe('device_mismatch')
    }
  })
})
