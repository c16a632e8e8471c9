import type { PeerLink } from '../../src/lib/peer-link'

/**
 * Hubs linked in memory, as src/db/pg/notify.ts links them over PostgreSQL: what one sends,
 * every other hears, synchronously and in order; `miss(i, key)` plays a lost message on hub i.
 * For unit tests of what uses the link; the link itself is tested on a real server.
 */
export function linkedPeers(count: number) {
  type Listener = (body: unknown, key: string) => void
  const hubs = Array.from({ length: count }, (_, i) => ({
    topics: new Map<string, Set<Listener>>(),
    missed: new Set<(key: string | null) => void>(),
    origin: `hub${i}`,
  }))
  const sent: { from: string; topic: string; key: string; body: unknown }[] = []
  const links: PeerLink[] = hubs.map((hub) => ({
    origin: hub.origin,
    send(topic, key, json) {
      const body = JSON.parse(json)
      sent.push({ from: hub.origin, topic, key, body })
      for (const other of hubs) if (other !== hub) for (const l of other.topics.get(topic) ?? []) l(JSON.parse(json), key)
    },
    on(topic, listener) {
      const set = hub.topics.get(topic) ?? new Set()
      hub.topics.set(topic, set)
      set.add(listener)
      return () => void set.delete(listener)
    },
    onMissed(listener) {
      hub.missed.add(listener)
      return () => void hub.missed.delete(listener)
    },
  }))
  return {
    links,
    sent,
    miss(i: number, key: string | null) {
      for (const l of hubs[i]!.missed) l(key)
    },
  }
}
