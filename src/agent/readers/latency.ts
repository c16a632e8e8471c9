import { round } from '../agent.fs'

/**
 * An IP literal needs no resolving. Checked here rather than with node:net's isIP: loading
 * node:net (or node:dns) brings Node's stream machinery into the collector, several MB of
 * resident memory for one check (Bun.connect and Bun.dns do the work without it).
 */
export const isIpLiteral = (host: string) => host.includes(':') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)

export interface Probe {
  /** resolves when a TCP connection to host:port is open (then closed), rejects otherwise */
  connect(host: string, port: number, timeoutMs: number): Promise<void>
  /** resolves a name to an address */
  resolve(host: string): Promise<void>
  /** a monotonic clock in ms */
  now(): number
}

export const systemProbe: Probe = {
  connect: (host, port, timeoutMs) =>
    new Promise((resolve, reject) => {
      let done = false
      const finish = (err?: Error) => {
        if (done) return
        done = true
        clearTimeout(timer)
        err ? reject(err) : resolve()
      }
      const timer = setTimeout(() => finish(new Error('timeout')), timeoutMs)
      Bun.connect({
        hostname: host,
        port,
        socket: {
          open: (s) => {
            s.end()
            finish()
          },
          connectError: (_s, err) => finish(err),
          error: (_s, err) => finish(err),
          data: () => {},
        },
      }).catch((err: Error) => finish(err))
    }),
  resolve: async (host) => {
    await Bun.dns.lookup(host)
  },
  now: () => performance.now(),
}

export interface LatencyFields {
  latency_avg_ms: number | null
  latency_min_ms: number | null
  latency_max_ms: number | null
  /** mean absolute difference between consecutive successful connects (RFC 3550 style) */
  jitter_ms: number | null
  packet_loss_percent: number | null
  dns_resolve_ms: number | null
}

/**
 * Latency, jitter and loss by `attempts` timed TCP connects to the hub (a connect is one round
 * trip, and needs no raw sockets or root as ICMP would); a failed or timed-out connect counts
 * as lost. DNS resolve time is timed for a name, and null for an IP literal.
 */
export async function measureLatency(host: string, port: number, probe: Probe = systemProbe, attempts = 3, timeoutMs = 2000): Promise<LatencyFields> {
  let dns: number | null = null
  if (!isIpLiteral(host)) {
    const t0 = probe.now()
    try {
      await probe.resolve(host)
      dns = round(probe.now() - t0, 2)
    } catch {
      dns = null
    }
  }
  const times: number[] = []
  for (let i = 0; i < attempts; i++) {
    const t0 = probe.now()
    try {
      await probe.connect(host, port, timeoutMs)
      times.push(probe.now() - t0)
    } catch {
      // lost
    }
  }
  const loss = round(((attempts - times.length) / attempts) * 100, 1)
  if (!times.length)
    return { latency_avg_ms: null, latency_min_ms: null, latency_max_ms: null, jitter_ms: null, packet_loss_percent: loss, dns_resolve_ms: dns }
  let jitter = 0
  for (let i = 1; i < times.length; i++) jitter += Math.abs(times[i]! - times[i - 1]!)
  return {
    latency_avg_ms: round(times.reduce((a, b) => a + b, 0) / times.length, 2),
    latency_min_ms: round(Math.min(...times), 2),
    latency_max_ms: round(Math.max(...times), 2),
    jitter_ms: times.length > 1 ? round(jitter / (times.length - 1), 2) : null,
    packet_loss_percent: loss,
    dns_resolve_ms: dns,
  }
}
