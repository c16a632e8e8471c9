import type { ProbeResult } from '../checks.model'
import { connectOnce, type Handshake } from './probe.socket'
import { failed, networkError, withDeadline, type Probe, type ProbeDeps } from './probe.types'

const DAY_MS = 86_400_000

/** Connects to the first checked address of the URL's host and reads the leaf certificate (not verified: only its dates are wanted). */
export async function certificateOf(url: URL, deps: ProbeDeps, signal: AbortSignal): Promise<{ expires_at: string } | null> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const [ip] = await deps.addresses(host)
  const { cert } = await handshake(ip!, Number(url.port || 443), host, false, signal)
  return cert?.valid_to ? { expires_at: new Date(cert.valid_to).toISOString() } : null
}

/** The handshake with the server's name (SNI) when the check names a host rather than an address. */
function handshake(ip: string, port: number, servername: string, verify: boolean, signal: AbortSignal): Promise<Handshake> {
  const isName = !/^[\d.]+$|:/.test(servername)
  return connectOnce(ip, port, { servername: isName ? servername : undefined, verify }, signal)
}

export const daysLeft = (expiresAt: string, now: number) => Math.floor((Date.parse(expiresAt) - now) / DAY_MS)

/**
 * TLS certificate alone: the handshake (verified unless verify_tls is false) and the leaf
 * certificate's expiry. An expired certificate is a failure; one inside the warning period is
 * up (the "certificate expiring" alert reads cert_expires_at).
 */
export const tlsProbe: Probe = async (def, deps) => {
  const s = def.settings
  const start = deps.elapsed()
  try {
    return await withDeadline(def.timeout_ms, async (signal) => {
      const [ip] = await deps.addresses(s.host!)
      const { cert } = await handshake(ip!, s.port ?? 443, s.host!, s.verify_tls !== false, signal)
      const response_ms = Math.round(deps.elapsed() - start)
      if (!cert?.valid_to) return failed('no certificate presented', { response_ms })
      const expires = new Date(cert.valid_to)
      const result: ProbeResult = {
        ok: true,
        response_ms,
        status_code: null,
        error: null,
        cert_expires_at: expires.toISOString(),
        detail: `subject ${cert.subject?.CN ?? '?'}, issuer ${cert.issuer?.CN ?? '?'}, valid until ${expires.toISOString()}`,
      }
      if (expires.getTime() <= deps.now()) return { ...result, ok: false, error: `certificate expired at ${expires.toISOString()}` }
      return result
    })
  } catch (err) {
    return failed(networkError(err, def.timeout_ms))
  }
}
