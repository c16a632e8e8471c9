import type { SystemRole } from '../../http/principal'
import type { Clock } from '../../lib/clock'
import type { PeerLink } from '../../lib/peer-link'

/**
 * What the hub reads of accounts on every request or behind another domain's synchronous port:
 * a user's stored instance role (access tokens defer to it), an account's email (who silenced an
 * alert) and whether a client is an operator's own (what its outbound calls may reach).
 */
export interface UsersDirectory {
  /** the stored instance role, null for an unknown account; answered at once when it can be */
  roleOf(userId: string): SystemRole | null | Promise<SystemRole | null>
  /** the account's email; null when unknown (on PostgreSQL also while this hub has not read it yet: callers show the id) */
  emailOf(userId: string): string | null
  /**
   * Whether a client is an instance operator's own: the home client of a user with the instance
   * role admin who is still an active member of it. Being invited into a tenant's client does not
   * make that client the operator's; what the operator may reach (the LAN) stays with their own.
   */
  isOperatorClient(clientId: string): boolean
  /** an account's role changed here: its cached facts go, on every hub; none without a cache */
  changed?(userId: string): void
}

/** A stored instance role as the tokens know it; anything else is no account (null). */
export const asSystemRole = (role: string | null): SystemRole | null => (role === 'admin' || role === 'user' ? role : null)

/** On SQLite (one hub): each answer is one indexed statement, at once, as before. */
export const directDirectory = (read: {
  roleOf(userId: string): string | null
  emailOf(userId: string): string | null
  isOperatorClient(clientId: string): boolean
}): UsersDirectory => ({
  roleOf: (userId) => asSystemRole(read.roleOf(userId)),
  emailOf: read.emailOf,
  isOperatorClient: read.isOperatorClient,
})

/** the hubs' link topic: an account whose instance role changed on one hub */
export const USER_CHANGED_TOPIC = 'user.changed'
/** how long a hub trusts a cached role and the operators' clients: `vigil admin set-role` runs outside every hub and tells none */
export const DIRECTORY_TTL_MS = 5_000
const MAX_CACHED = 100_000

export interface DirectoryReads {
  /** the account's role and email in one primary-key read */
  account(userId: string): Promise<{ role: string; email: string } | null>
  /** every client that is an operator's own */
  operatorClients(): Promise<string[]>
}

/**
 * On PostgreSQL (several hubs): roles and emails cached per account, the operators' clients as
 * one set, each read again after DIRECTORY_TTL_MS. A role changed on one hub is dropped on the
 * others as they hear it (`peers`); a hub that may have missed messages drops everything. The
 * operators' clients are answered synchronously from the last read set, re-read in the
 * background when stale: until the first read a client is not an operator's (the narrower rights).
 */
export function cachedDirectory(
  reads: DirectoryReads,
  clock: Clock,
  peers?: Pick<PeerLink, 'send' | 'on' | 'onMissed'>,
  onError?: (err: unknown) => void,
): UsersDirectory {
  const accounts = new Map<string, { role: SystemRole | null; email: string | null; at: number }>()
  let operatorClients = new Set<string>()
  let operatorsAt = Number.NEGATIVE_INFINITY
  let reading = false
  const readOperators = () => {
    if (reading) return
    reading = true
    reads
      .operatorClients()
      .then((ids) => {
        operatorClients = new Set(ids)
        operatorsAt = clock.now()
      })
      .catch((err) => onError?.(err))
      .finally(() => {
        reading = false
      })
  }
  const forget = (userId: string | null) => {
    if (userId === null) accounts.clear()
    else accounts.delete(userId)
    operatorsAt = Number.NEGATIVE_INFINITY
  }
  peers?.on(USER_CHANGED_TOPIC, (_body, userId) => forget(userId))
  peers?.onMissed((key) => {
    if (key === null) forget(null)
  })
  readOperators()
  const load = async (userId: string) => {
    const now = clock.now()
    const found = await reads.account(userId)
    if (accounts.size >= MAX_CACHED) accounts.clear()
    const entry = { role: found ? asSystemRole(found.role) : null, email: found?.email ?? null, at: now }
    accounts.set(userId, entry)
    return entry
  }
  return {
    roleOf(userId) {
      const hit = accounts.get(userId)
      if (hit && clock.now() - hit.at < DIRECTORY_TTL_MS) return hit.role
      return load(userId).then((e) => e.role)
    },
    emailOf(userId) {
      const hit = accounts.get(userId)
      if (hit?.email) return hit.email
      load(userId).catch((err) => onError?.(err))
      return null
    },
    isOperatorClient(clientId) {
      if (clock.now() - operatorsAt >= DIRECTORY_TTL_MS) readOperators()
      return operatorClients.has(clientId)
    },
    changed(userId) {
      forget(userId)
      peers?.send(USER_CHANGED_TOPIC, userId, '{}')
    },
  }
}
