import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'
import { isLoopbackHost, listenerExposed, proxyTrustWarning, siteUrlWarning } from '../src/config.exposure'

describe('VIGIL_TRUSTED_PROXIES', () => {
  test('addresses and CIDRs, IPv4 and IPv6; empty by default', () => {
    expect(loadConfig({}).trustedProxies).toEqual([])
    const c = loadConfig({ VIGIL_TRUST_PROXY: 'true', VIGIL_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7, fd00::/8, ::1' })
    expect(c.trustedProxies.map((p) => p.bits)).toEqual([104, 128, 8, 128])
  })

  test('a bad entry, or the list without VIGIL_TRUST_PROXY, is refused with what to do', () => {
    expect(() => loadConfig({ VIGIL_TRUST_PROXY: 'true', VIGIL_TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(ConfigError)
    expect(() => loadConfig({ VIGIL_TRUST_PROXY: 'true', VIGIL_TRUSTED_PROXIES: 'proxy.lan' })).toThrow('got "proxy.lan"')
    expect(() => loadConfig({ VIGIL_TRUSTED_PROXIES: '10.0.0.1' })).toThrow('set VIGIL_TRUST_PROXY=true too')
  })
})

describe('who can reach the service', () => {
  test('loopback is 127.0.0.0/8, ::1 and localhost', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', 'LOCALHOST']) expect(isLoopbackHost(host)).toBe(true)
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'vigil.example.com', '128.0.0.1']) expect(isLoopbackHost(host)).toBe(false)
  })

  test('exposed beyond loopback, or through a trusted proxy', () => {
    expect(listenerExposed({ host: '0.0.0.0', trustProxy: false })).toBe(true)
    expect(listenerExposed({ host: '127.0.0.1', trustProxy: true })).toBe(true)
    expect(listenerExposed({ host: '127.0.0.1', trustProxy: false })).toBe(false)
  })

  test('a loopback site URL is worth a warning only when others reach the service', () => {
    expect(siteUrlWarning({ host: '127.0.0.1', trustProxy: false, siteUrl: 'http://localhost:8080' })).toBeNull()
    expect(siteUrlWarning({ host: '0.0.0.0', trustProxy: false, siteUrl: 'https://vigil.example.com' })).toBeNull()
    const exposed = siteUrlWarning({ host: '0.0.0.0', trustProxy: false, siteUrl: 'http://localhost:8080' })
    expect(exposed).toContain('VIGIL_SITE_URL')
    expect(exposed).toContain('on 0.0.0.0')
    const proxied = siteUrlWarning({ host: '127.0.0.1', trustProxy: true, siteUrl: 'http://127.0.0.1:8080' })
    expect(proxied).toContain('through a proxy')
  })

  test('trusting a proxy on a listener beyond loopback with no list of proxies is worth a warning', () => {
    const at = (env: Record<string, string>) => proxyTrustWarning(loadConfig(env))
    // whoever connects to 0.0.0.0 directly would be the trusted peer and could name its own address
    const open = at({ VIGIL_HOST: '0.0.0.0', VIGIL_TRUST_PROXY: 'true' })
    expect(open).toContain('VIGIL_TRUSTED_PROXIES')
    expect(open).toContain('on 0.0.0.0')
    // only the proxy on this machine can connect, the proxies are listed, or no proxy is trusted
    expect(at({ VIGIL_HOST: '127.0.0.1', VIGIL_TRUST_PROXY: 'true' })).toBeNull()
    expect(at({ VIGIL_HOST: '0.0.0.0', VIGIL_TRUST_PROXY: 'true', VIGIL_TRUSTED_PROXIES: '10.0.0.0/8' })).toBeNull()
    expect(at({ VIGIL_HOST: '0.0.0.0' })).toBeNull()
  })
})
