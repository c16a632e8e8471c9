/**
 * node:crypto is taken when a pin is first used, not when this file loads: the collector loads
 * it on every start, and Node's crypto module costs it resident memory it needs only with a pinned hub.
 */
const nodeCrypto = () => process.getBuiltinModule('node:crypto')

/**
 * A certificate's public-key pin in curl's --pinnedpubkey form: `sha256//` + base64 of the
 * SHA-256 of its DER SubjectPublicKeyInfo. The public key rather than the whole certificate,
 * because that is what curl can check (the install script's download) and it survives
 * re-issuing a certificate for the same key.
 */
export function publicKeyPin(certPem: string): string {
  const spki = new (nodeCrypto().X509Certificate)(certPem).publicKey.export({ type: 'spki', format: 'der' })
  return `sha256//${new Bun.CryptoHasher('sha256').update(spki).digest('base64')}`
}

/** The first certificate of a PEM file (a chain lists the server's own first). */
export function firstCertificate(pem: string): string | null {
  return /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0] ?? null
}

/** Self-signed: its own issuer, signed by its own key. Only such a hub needs its key pinned. */
export function isSelfSigned(certPem: string): boolean {
  const x = new (nodeCrypto().X509Certificate)(certPem)
  return x.issuer === x.subject && x.verify(x.publicKey)
}

export const PIN_FORMAT = /^sha256\/\/[A-Za-z0-9+/]{43}=$/
