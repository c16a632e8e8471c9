import { classifyIp } from '../../../lib/outbound/outbound.address'
import type { ProbeDeps } from './probe.types'

/**
 * An agent's probe dependencies: its own resolver and network, no policy (docs/checks.md says
 * why). In a file of its own so that the collector does not load the hub's outbound policy
 * (checks.outbound.ts) with it.
 */
export function directProbeDeps(now: () => number = Date.now): ProbeDeps {
  return {
    async addresses(host) {
      const bare = host.replace(/^\[|\]$/g, '')
      if (classifyIp(bare) !== null) return [bare]
      const found = await Bun.dns.lookup(bare.replace(/\.$/, ''), {})
      if (!found.length) throw Object.assign(new Error('name not resolved'), { code: 'ENOTFOUND' })
      return found.map((r) => r.address)
    },
    fetch: (url, init) => fetch(url, { ...init, redirect: 'manual' }),
    elapsed: () => performance.now(),
    now,
  }
}
