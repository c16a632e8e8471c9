import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { firstCertificate, PIN_FORMAT, publicKeyPin } from '../lib/tls-pin'
import { pinOfDer, pinOfPem } from './agent.pin'
import type { Fetch } from './agent.sender'

/** The hub's self-signed certificate, kept by `vigil agent enrol --pin` once it matched the pin. */
export const HUB_CERT_FILE = 'hub.pem'

export class PinError extends Error {}

// the peer's DER certificate: its `pubkey` is the bare key for EC (not the SPKI curl hashes)
const pinOfPeer = (cert: { raw?: Uint8Array }) => (cert.raw ? pinOfDer(cert.raw) : null)

/**
 * TLS options that trust exactly one certificate: the hub's own, as the only CA, so the chain
 * is still verified (the hub must hold its private key), and the name check replaced by the
 * key pin (a self-signed certificate rarely names the address machines use, such as an IP).
 */
export function pinnedTls(certPem: string) {
  const pin = pinOfPem(certPem)
  if (!pin) throw new PinError('the kept hub certificate is not a PEM certificate')
  return {
    ca: certPem,
    checkServerIdentity: (_host: string, cert: { raw?: Uint8Array }) =>
      pinOfPeer(cert) === pin ? undefined : new PinError(`the hub's public key is not the pinned one (${pin})`),
  }
}

/**
 * Fetches the hub's certificate and keeps it only if its public key matches the pin. The
 * download itself is not verified (there is nothing to verify it against yet): the hash is what
 * is trusted, and every later connection verifies against the kept certificate.
 */
export async function fetchPinnedCertificate(hub: string, pin: string, fetchImpl: typeof fetch = fetch): Promise<string> {
  if (!PIN_FORMAT.test(pin)) throw new PinError(`--pin must look like sha256//<44 base64 characters>, got "${pin}"`)
  const res = await fetchImpl(`${hub}/download/hub-certificate.pem`, { tls: { rejectUnauthorized: false }, signal: AbortSignal.timeout(15_000) })
  if (!res.ok) throw new PinError(`the hub did not serve its certificate (HTTP ${res.status} for /download/hub-certificate.pem)`)
  const cert = firstCertificate(await res.text())
  if (!cert) throw new PinError('the hub served no PEM certificate at /download/hub-certificate.pem')
  const got = publicKeyPin(cert)
  if (got !== pin) throw new PinError(`the hub's certificate has the public key ${got}, not the pinned ${pin}: refusing to enrol`)
  return cert
}

/** A fetch for the hub: pinned to STATE_DIR/hub.pem when enrolment kept one, else the platform's trust store. */
export function hubFetch(stateDir: string): Fetch {
  let cert: string | null = null
  try {
    cert = readFileSync(join(stateDir, HUB_CERT_FILE), 'utf8')
  } catch {
    // not pinned: plain HTTP, or a certificate the system trusts
  }
  if (!cert) return (url, init) => fetch(url, init)
  const tls = pinnedTls(cert)
  return (url, init) => fetch(url, { ...init, tls })
}
