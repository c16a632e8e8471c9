import type { Cidr } from './lib/cidr'

/**
 * Who can reach the service, read from its settings: what the start-up warnings and the
 * operator's instance page say when the settings point links or trust at the wrong place.
 */

/** The settings read here, as the loaded configuration holds them (config.ts). */
export interface ExposureSettings {
  host: string
  trustProxy: boolean
  siteUrl: string
  trustedProxies: Cidr[]
}

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]'])
/** 127.0.0.0/8, ::1 and localhost: reachable from this machine only. */
export const isLoopbackHost = (host: string) => LOOPBACK_NAMES.has(host.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)

/** Other machines can reach the service: it listens beyond loopback, or a proxy in front forwards to it. */
export const listenerExposed = (config: Pick<ExposureSettings, 'host' | 'trustProxy'>) => !isLoopbackHost(config.host) || config.trustProxy

/**
 * Links in notices, invitations and `doc_url` are built from VIGIL_SITE_URL. A loopback address
 * there while other machines reach the service makes every such link point at the reader's own
 * computer: worth a warning at start and on the operator's instance page.
 */
export function siteUrlWarning(config: Pick<ExposureSettings, 'host' | 'trustProxy' | 'siteUrl'>): string | null {
  if (!listenerExposed(config)) return null
  const host = new URL(config.siteUrl).hostname
  if (!isLoopbackHost(host)) return null
  const reach = isLoopbackHost(config.host) ? 'through a proxy (VIGIL_TRUST_PROXY)' : `on ${config.host}`
  return `VIGIL_SITE_URL is ${config.siteUrl}, a loopback address, while the service is reached ${reach}: links in notices, invitations and error answers point at the reader's own machine. Set VIGIL_SITE_URL (or --site-url) to the address people use, e.g. https://vigil.example.com`
}

/**
 * VIGIL_TRUST_PROXY without VIGIL_TRUSTED_PROXIES trusts the socket's peer to name the client. On
 * a listener beyond loopback the peer may be anybody who reaches the port directly instead of
 * through the proxy, and its X-Forwarded-For then picks its address per request, past every
 * per-address limit: worth a warning at start.
 */
export function proxyTrustWarning(config: Pick<ExposureSettings, 'host' | 'trustProxy' | 'trustedProxies'>): string | null {
  if (!config.trustProxy || config.trustedProxies.length > 0 || isLoopbackHost(config.host)) return null
  return `VIGIL_TRUST_PROXY is on while the service listens on ${config.host} with no VIGIL_TRUSTED_PROXIES: whoever connects to it directly, not through the proxy, is trusted to say its own address in X-Forwarded-For and so escapes the per-address limits. List the proxy's address in VIGIL_TRUSTED_PROXIES, or listen on 127.0.0.1 behind a proxy on this machine`
}
