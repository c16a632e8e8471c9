/**
 * The public-key pin of a certificate read straight from its DER bytes, as curl reads it for
 * --pinnedpubkey: `sha256//` + base64 of the SHA-256 of the certificate's SubjectPublicKeyInfo.
 * The collector checks its pinned hub's key on every connection; reading the key through
 * node:crypto's X509Certificate loaded Node's crypto module into it, about 1.2 MB resident.
 * Gives the same pin as publicKeyPin (src/lib/tls-pin.ts), which the hub and enrolment use.
 */

/** One DER element at `at`: where its value starts and where it ends; null if it runs past `end`. */
function element(der: Uint8Array, at: number, end: number): { tag: number; valueAt: number; next: number } | null {
  if (at + 2 > end) return null
  const tag = der[at]!
  let length = der[at + 1]!
  let valueAt = at + 2
  if (length & 0x80) {
    const bytes = length & 0x7f
    // a certificate's elements are far shorter than 2^32 bytes; indefinite lengths are not DER
    if (bytes === 0 || bytes > 4 || valueAt + bytes > end) return null
    length = 0
    for (let i = 0; i < bytes; i++) length = length * 256 + der[valueAt + i]!
    valueAt += bytes
  }
  const next = valueAt + length
  return next > end ? null : { tag, valueAt, next }
}

const SEQUENCE = 0x30
/** tbsCertificate's optional explicit [0] version */
const VERSION = 0xa0

/** The DER SubjectPublicKeyInfo of an X.509 certificate, or null if the bytes are not one. */
export function subjectPublicKeyInfo(der: Uint8Array): Uint8Array | null {
  const cert = element(der, 0, der.length)
  if (cert?.tag !== SEQUENCE) return null
  const tbs = element(der, cert.valueAt, cert.next)
  if (tbs?.tag !== SEQUENCE) return null
  let at = tbs.valueAt
  const first = element(der, at, tbs.next)
  if (first?.tag === VERSION) at = first.next
  // serialNumber, signature, issuer, validity, subject, then subjectPublicKeyInfo
  for (let i = 0; i < 5; i++) {
    const skipped = element(der, at, tbs.next)
    if (!skipped) return null
    at = skipped.next
  }
  const spki = element(der, at, tbs.next)
  return spki?.tag === SEQUENCE ? der.subarray(at, spki.next) : null
}

/** The pin of a DER certificate (a TLS peer's `raw`), or null if it is not one. */
export function pinOfDer(der: Uint8Array): string | null {
  const spki = subjectPublicKeyInfo(der)
  return spki ? `sha256//${new Bun.CryptoHasher('sha256').update(spki).digest('base64')}` : null
}

/** The pin of the first certificate of a PEM text, or null. */
export function pinOfPem(pem: string): string | null {
  const b64 = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(pem)?.[1]
  return b64 ? pinOfDer(Buffer.from(b64.replace(/\s+/g, ''), 'base64')) : null
}
