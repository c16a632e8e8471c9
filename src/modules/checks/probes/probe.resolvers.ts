/** how long one resolver serves: a change to /etc/resolv.conf (a new DHCP lease, a VPN) is followed within this */
export const RESOLVER_MAX_AGE_MS = 60_000
/** distinct resolvers kept (a timeout and a server each); past it the oldest is let go */
export const RESOLVERS_KEPT = 16

/**
 * The DNS checks' resolvers, kept and shared by the checks that ask the same server with the same
 * timeout, for a minute each. A node:dns Resolver is a c-ares channel of its own, made by reading
 * the system's resolver settings: making one per attempt cost an agent with 50 DNS checks at
 * 10 s about 1 MB more of its own memory (and the CPU to set each one up and tear it down).
 */
export function resolverCache<T>(make: (timeoutMs: number, server: string | null) => T, limits = { maxAgeMs: RESOLVER_MAX_AGE_MS, kept: RESOLVERS_KEPT }) {
  const kept = new Map<string, { resolver: T; madeAt: number }>()
  return {
    /** the resolver for this timeout and server (null: the system's), made anew once it is `maxAgeMs` old */
    get(timeoutMs: number, server: string | null, now: number): T {
      const key = `${timeoutMs} ${server ?? ''}`
      const hit = kept.get(key)
      if (hit && now - hit.madeAt < limits.maxAgeMs) return hit.resolver
      kept.delete(key)
      if (kept.size >= limits.kept) kept.delete(kept.keys().next().value!)
      const resolver = make(timeoutMs, server)
      kept.set(key, { resolver, madeAt: now })
      return resolver
    },
    size: () => kept.size,
  }
}
