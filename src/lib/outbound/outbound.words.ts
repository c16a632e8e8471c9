import type { Refusal } from './outbound.policy'

/**
 * What a refusal tells whom. A tenant learns only that an address is not allowed: at send time
 * a refused name reads exactly like an unreachable one, so nobody can map which internal names
 * resolve. The operator's own client is told which setting would allow a loopback or private
 * address (docs/outbound.md).
 */
export type Audience = 'operator' | 'tenant'

const SETTING: Partial<Record<Refusal, string>> = {
  loopback: 'VIGIL_OUTBOUND_ALLOW_LOCAL',
  self: 'VIGIL_OUTBOUND_ALLOW_LOCAL',
  private: 'VIGIL_OUTBOUND_ALLOW_PRIVATE',
}

const KIND: Record<Refusal, string> = {
  metadata: 'a cloud-metadata address',
  link_local: 'a link-local address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  loopback: 'a loopback address (this server)',
  self: 'one of this server’s own addresses',
  private: 'a private network address',
}

/** A host as written (a literal the caller typed, or localhost) that is refused, worded for `who`. */
export function refusedHostText(refusal: Refusal, who: Audience): string {
  const setting = SETTING[refusal]
  if (who === 'operator' && setting) return `${KIND[refusal]}, which is not allowed unless ${setting}=true is set`
  return `${KIND[refusal]}, which is not allowed`
}

/**
 * A send that was refused (a name resolved to a refused address) or got no answer. To a tenant
 * the two read alike; the operator is told the address kind and the setting that allows it.
 */
export function unsentText(who: Audience, timeoutMs: number, refused: { host: string; refusal: Refusal | 'scheme' } | null): string {
  if (refused && who === 'operator' && refused.refusal !== 'scheme') {
    return `${refused.host} resolves to ${refusedHostText(refused.refusal, 'operator')}`
  }
  return `not allowed or not reachable: the address is not one this server may call, the connection failed, or no answer came within ${timeoutMs / 1000} s`
}
