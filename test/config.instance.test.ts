import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'
import { signupPolicyOf } from '../src/modules/users/users.signup'

describe('instance mode and sign-up settings', () => {
  test('without billing an instance is its own, invite-only, with generous limits', () => {
    const { instance } = loadConfig({})
    expect(instance).toEqual({ mode: 'own', signup: null, own: { maxDevices: 1000, maxUsers: 1000, rateLimit: 12_000 } })
    expect(signupPolicyOf(instance)).toBe('invite')
  })

  test('STRIPE_SECRET_KEY makes it a service, open by default', () => {
    const { instance } = loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x' })
    expect(instance.mode).toBe('service')
    expect(signupPolicyOf(instance)).toBe('open')
  })

  test('VIGIL_MODE and VIGIL_SIGNUP say otherwise', () => {
    const c = loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x', VIGIL_MODE: 'own', VIGIL_SIGNUP: 'Closed' })
    expect(c.instance.mode).toBe('own')
    expect(signupPolicyOf(c.instance)).toBe('closed')
    expect(signupPolicyOf(loadConfig({ VIGIL_SIGNUP: 'open' }).instance)).toBe('open')
    expect(signupPolicyOf(loadConfig({ VIGIL_MODE: 'service', VIGIL_SIGNUP: 'invite' }).instance)).toBe('invite')
  })

  test('the own-instance limits are settable', () => {
    const { own } = loadConfig({ VIGIL_OWN_MAX_DEVICES: '25', VIGIL_OWN_MAX_USERS: '5', VIGIL_OWN_RATE_LIMIT: '600' }).instance
    expect(own).toEqual({ maxDevices: 25, maxUsers: 5, rateLimit: 600 })
  })

  test('bad values name the setting and what it accepts', () => {
    expect(() => loadConfig({ VIGIL_SIGNUP: 'everyone' })).toThrow(new ConfigError('VIGIL_SIGNUP must be one of open, invite, closed, got "everyone"'))
    expect(() => loadConfig({ VIGIL_MODE: 'saas' })).toThrow(ConfigError)
    expect(() => loadConfig({ VIGIL_OWN_MAX_DEVICES: 'lots' })).toThrow(/VIGIL_OWN_MAX_DEVICES must be a whole number/)
    expect(() => loadConfig({ VIGIL_OWN_RATE_LIMIT: '0' })).toThrow(/VIGIL_OWN_RATE_LIMIT must be between 1/)
  })
})
