import { readFileSync } from 'node:fs'
import { firstCertificate, isSelfSigned, publicKeyPin } from '../lib/tls-pin'
import type { Logger } from '../lib/logger'

/**
 * The pin the install one-liner carries: the public key of VIGIL_TLS_CERT when that certificate
 * is self-signed (a machine could not verify it otherwise), null for a certificate a CA issued
 * (the machine's trust store verifies it) or over plain HTTP. Read once, on first use.
 */
export function hubPin(certPath: string | null, logger: Logger): () => string | null {
  let pin: string | null | undefined
  return () => {
    if (pin !== undefined) return pin
    pin = null
    if (!certPath) return pin
    try {
      const cert = firstCertificate(readFileSync(certPath, 'utf8'))
      if (cert && isSelfSigned(cert)) pin = publicKeyPin(cert)
    } catch (err) {
      logger.warn('enrolment: cannot read the TLS certificate for its pin', { path: certPath, error: (err as Error).message })
    }
    return pin
  }
}
