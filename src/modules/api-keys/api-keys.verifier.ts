import type { Clock } from '../../lib/clock'
import { sha256Hex } from '../../lib/crypto'
import type { PeerLink } from '../../lib/peer-link'
import type { CredentialFailure, KeyPrincipal } from '../../http/principal'
import { API_KEY_LENGTH, isWellFormedApiKey } from './api-keys.format'
import type { ApiKeysStore } from './api-keys.store'

interface CachedKey {
  principal: KeyPrincipal
  active: boolean
  expiresAt: number | null
  lastUsedWritten: number
}

const LAST_USED_EVERY_MS = 60_000
const MAX_CACHED = 100_000
/** the hubs' link topic: a key revoked or changed on one hub, which every other hub drops from its cache */
export const KEY_CHANGED_TOPIC = 'api-key.changed'

export type KeyCheck = KeyPrincipal | CredentialFailure

export interface ApiKeyVerifier {
  /** a cached key is answered at once; a lookup or a last_used_at write is awaited */
  verify(key: string): KeyCheck | Promise<KeyCheck>
  /** drop a key from the cache so a revoke or change takes effect on the very next request */
  invalidate(keyId: string): void
}

/**
 * Verifies collector keys on the hot path. Keys are looked up by SHA-256 once and then
 * served from memory; revocation goes through `invalidate`, so it is still immediate.
 * last_used_at is written at most once a minute per key, to keep ingest free of extra writes.
 * With several hubs (`peers`), an invalidation is sent to the others, which drop the key from
 * their caches as they hear it; a hub that may have missed some (its link dropped) drops every
 * cached key, and looks each up again on its next use.
 */
export function apiKeyVerifier(
  store: Pick<ApiKeysStore, 'byHash' | 'touch'>,
  clock: Clock,
  peers?: Pick<PeerLink, 'send' | 'on' | 'onMissed'>,
): ApiKeyVerifier {
  const byHash = new Map<string, CachedKey>()
  const hashById = new Map<string, string>()
  /**
   * Counts invalidations: a row read before a revoke but answered after it must not be cached,
   * or the revoked key would pass until evicted. A lookup caches only if none came meanwhile.
   */
  let invalidations = 0
  const invalid = (message: string): CredentialFailure => ({ kind: 'invalid', presented: 'key', message })

  function check(entry: CachedKey): KeyCheck | Promise<KeyCheck> {
    if (!entry.active) return invalid('This API key has been revoked')
    const now = clock.now()
    if (entry.expiresAt !== null && entry.expiresAt <= now) return invalid('This API key has expired')
    if (now - entry.lastUsedWritten >= LAST_USED_EVERY_MS) {
      entry.lastUsedWritten = now
      // awaited: a write that fails (a full disk) fails this request as it always did, not later and unseen
      return store.touch(entry.principal.keyId, now).then(() => entry.principal)
    }
    return entry.principal
  }

  async function lookup(hash: string): Promise<KeyCheck> {
    const seen = invalidations
    const row = await store.byHash(hash)
    if (!row) return invalid('Invalid API key')
    const entry: CachedKey = {
      principal: { kind: 'key', keyId: row.id, clientId: row.client_id, scopes: JSON.parse(row.scopes), deviceId: row.device_id },
      active: row.is_active === 1,
      expiresAt: row.expires_at,
      lastUsedWritten: row.last_used_at ?? 0,
    }
    if (seen === invalidations) {
      if (byHash.size >= MAX_CACHED) {
        const oldest = byHash.keys().next().value as string
        hashById.delete(byHash.get(oldest)!.principal.keyId)
        byHash.delete(oldest)
      }
      byHash.set(hash, entry)
      hashById.set(row.id, hash)
    }
    return check(entry)
  }

  const forget = (keyId: string) => {
    invalidations++
    const hash = hashById.get(keyId)
    if (hash) byHash.delete(hash)
    hashById.delete(keyId)
  }
  peers?.on(KEY_CHANGED_TOPIC, (body) => {
    const id = (body as { id?: unknown } | null)?.id
    if (typeof id === 'string' && id.length <= 100) forget(id)
  })
  peers?.onMissed(() => {
    invalidations++
    byHash.clear()
    hashById.clear()
  })

  return {
    verify(key) {
      if (key.length !== API_KEY_LENGTH) return invalid('Invalid API key')
      const hash = sha256Hex(key)
      const entry = byHash.get(hash)
      if (entry) return check(entry)
      // the checksum before a lookup: a made-up key costs no query. A cached key passed it when it was cached.
      if (!isWellFormedApiKey(key)) return invalid('Invalid API key')
      return lookup(hash)
    },
    invalidate(keyId) {
      forget(keyId)
      peers?.send(KEY_CHANGED_TOPIC, '', JSON.stringify({ id: keyId }))
    },
  }
}
