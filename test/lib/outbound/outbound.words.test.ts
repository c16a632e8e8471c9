import { describe, expect, test } from 'bun:test'
import { refusedHostText, unsentText } from '../../../src/lib/outbound/outbound.words'

describe('what a refusal tells whom', () => {
  test('a tenant hears "not allowed", never the setting that would allow it', () => {
    for (const r of ['loopback', 'self', 'private', 'metadata', 'link_local'] as const) {
      expect(refusedHostText(r, 'tenant')).toEndWith(', which is not allowed')
      expect(refusedHostText(r, 'tenant')).not.toContain('VIGIL_')
    }
  })

  test("the operator's own account is told the setting for loopback and private addresses, and none for the rest", () => {
    expect(refusedHostText('loopback', 'operator')).toBe('a loopback address (this server), which is not allowed unless VIGIL_OUTBOUND_ALLOW_LOCAL=true is set')
    expect(refusedHostText('self', 'operator')).toContain('VIGIL_OUTBOUND_ALLOW_LOCAL=true')
    expect(refusedHostText('private', 'operator')).toContain('VIGIL_OUTBOUND_ALLOW_PRIVATE=true')
    expect(refusedHostText('metadata', 'operator')).toBe('a cloud-metadata address, which is not allowed')
  })

  test('at send time a tenant cannot tell a name that resolves to an internal address from one that is unreachable', () => {
    const refused = unsentText('tenant', 10_000, { host: 'db.internal', refusal: 'private' })
    expect(refused).toBe(unsentText('tenant', 10_000, null))
    expect(refused).not.toContain('db.internal')
    expect(refused).toStartWith('not allowed or not reachable')
  })

  test('the operator is told which name resolved where, and the setting', () => {
    expect(unsentText('operator', 10_000, { host: 'relay.lan', refusal: 'loopback' })).toBe(
      'relay.lan resolves to a loopback address (this server), which is not allowed unless VIGIL_OUTBOUND_ALLOW_LOCAL=true is set',
    )
    expect(unsentText('operator', 10_000, null)).toBe(unsentText('tenant', 10_000, null))
  })
})
