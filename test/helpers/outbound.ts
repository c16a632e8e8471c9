import type { Resolver } from '../../src/lib/outbound/outbound.fetch'

/** A public address (example.com's old one) that fake names resolve to. */
export const FAKE_PUBLIC_IP = '93.184.216.34'

/**
 * Makes servers on 127.0.0.1 reachable under public-looking names, so tests can go through
 * the outbound policy (which refuses loopback for tenants): `publicUrl` swaps 127.0.0.1 for a
 * name, `resolve` answers FAKE_PUBLIC_IP for it, and `fetch` sends what was addressed to
 * FAKE_PUBLIC_IP to 127.0.0.1, recording the address it was asked to connect to and the Host.
 * `names` may map further names to any addresses (a name pointing at metadata, say).
 */
export function publicRoute(names: Record<string, string[]> = {}) {
  const table: Record<string, string[]> = { 'llm.example.com': [FAKE_PUBLIC_IP], ...names }
  const connections: { url: string; host: string | null }[] = []
  const resolve: Resolver = async (name) => {
    const found = table[name]
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
    return found
  }
  const fetchVia = (async (input: string | URL, init?: BunFetchRequestInit) => {
    const url = new URL(String(input))
    connections.push({ url: url.href, host: new Headers(init?.headers).get('host') })
    if (url.hostname === FAKE_PUBLIC_IP) url.hostname = '127.0.0.1'
    return fetch(url, init)
  }) as typeof fetch
  return {
    resolve,
    fetch: fetchVia,
    connections,
    /** the same server under a name that resolves to FAKE_PUBLIC_IP */
    publicUrl: (loopbackUrl: string, name = 'llm.example.com') => loopbackUrl.replace('127.0.0.1', name),
  }
}
