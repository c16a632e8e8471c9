import { classifyIp } from '../../lib/outbound/outbound.address'
import { OutboundRedirect, OutboundRefused, OutboundUnreachable, safeFetch, type OutboundDeps } from '../../lib/outbound/outbound.fetch'
import { addressRefusal, hostRefusal, type OutboundPolicy, type Refusal } from '../../lib/outbound/outbound.policy'
import { ProbeRefused, type ProbeDeps } from './probes/probe.types'

/**
 * The hub's probe dependencies for one account: every address a check connects to is checked
 * against the account's outbound policy (as channels and webhooks are), after resolution, and
 * the connection goes to a checked address so a second lookup cannot swap in another. A refused
 * target fails the attempt with a sentence that names the setting, never the address.
 */
export function hubProbeDeps(outbound: OutboundDeps, policy: OutboundPolicy, words: (r: Refusal) => string, now: () => number): ProbeDeps {
  return {
    async addresses(host) {
      const bare = host.replace(/^\[|\]$/g, '').replace(/\.$/, '')
      const literal = hostRefusal(bare, policy, outbound.selfAddresses)
      if (literal) throw new ProbeRefused(`refused: the target is ${words(literal)}`)
      if (classifyIp(bare) !== null) return [bare]
      const addresses = await outbound.resolve(bare)
      if (!addresses.length) throw Object.assign(new Error('name not resolved'), { code: 'ENOTFOUND' })
      for (const ip of addresses) {
        const refusal = addressRefusal(ip, policy, outbound.selfAddresses)
        if (refusal) throw new ProbeRefused(`refused: ${bare} resolves to ${words(refusal)}`)
      }
      return addresses
    },
    async fetch(url, init) {
      try {
        return await safeFetch(outbound, url, init, policy)
      } catch (err) {
        // the probe follows redirects itself, each hop through safeFetch (and the policy) again
        if (err instanceof OutboundRedirect) return new Response(null, { status: err.status, headers: err.location ? { location: err.location } : {} })
        if (err instanceof OutboundRefused) throw new ProbeRefused(`refused: the target is ${err.refusal === 'scheme' ? 'not http(s)' : words(err.refusal)}`)
        if (err instanceof OutboundUnreachable)
          throw Object.assign(
            new Error(err.detail),
            err.detail === 'timeout' ? { name: 'TimeoutError' } : { code: err.detail.replace(/^dns: .*/, 'ENOTFOUND') },
          )
        throw err
      }
    },
    elapsed: () => performance.now(),
    now,
  }
}
