import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'

describe('outbound settings from the environment', () => {
  test('private networks are off for tenants by default', () => {
    expect(loadConfig({}).outbound).toEqual({ allowPrivate: false, allowLocal: false })
  })

  test('VIGIL_OUTBOUND_ALLOW_PRIVATE turns them on; a bad value is a clear error', () => {
    expect(loadConfig({ VIGIL_OUTBOUND_ALLOW_PRIVATE: 'true' }).outbound.allowPrivate).toBe(true)
    expect(loadConfig({ VIGIL_OUTBOUND_ALLOW_PRIVATE: '0' }).outbound.allowPrivate).toBe(false)
    expect(() => loadConfig({ VIGIL_OUTBOUND_ALLOW_PRIVATE: 'lan' })).toThrow(ConfigError)
    expect(() => loadConfig({ VIGIL_OUTBOUND_ALLOW_PRIVATE: 'lan' })).toThrow('VIGIL_OUTBOUND_ALLOW_PRIVATE must be true or false')
  })

  test('VIGIL_OUTBOUND_ALLOW_LOCAL lets tenants reach loopback and this host (a receiver beside Vigil)', () => {
    expect(loadConfig({ VIGIL_OUTBOUND_ALLOW_LOCAL: 'true' }).outbound).toEqual({ allowPrivate: false, allowLocal: true })
    expect(() => loadConfig({ VIGIL_OUTBOUND_ALLOW_LOCAL: 'yes please' })).toThrow('VIGIL_OUTBOUND_ALLOW_LOCAL must be true or false')
  })
})
