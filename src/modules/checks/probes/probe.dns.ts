import { parseResolver } from './probe.resolver'
import { resolverCache } from './probe.resolvers'
import { failed, networkError, withDeadline, type Probe } from './probe.types'

type Answer = string | { exchange?: string; priority?: number } | string[] | { name?: string; port?: number } | Record<string, unknown>

/** Each answer as one line of text: an MX as its exchange, a TXT's chunks joined, an SRV as name:port. */
export function answerText(a: Answer): string {
  if (typeof a === 'string') return a
  if (Array.isArray(a)) return a.join('')
  const r = a as Record<string, unknown>
  if (typeof r.exchange === 'string') return r.exchange
  if (typeof r.name === 'string' && typeof r.port === 'number') return `${r.name}:${r.port}`
  if (typeof r.value === 'string') return `${r.critical ?? 0} ${Object.keys(r).find((k) => k !== 'critical' && k !== 'value') ?? ''} ${r.value}`.trim()
  return JSON.stringify(r)
}

type Resolver = import('node:dns/promises').Resolver
let cache: ReturnType<typeof resolverCache<Resolver>> | null = null

/** The resolvers, once node:dns is loaded: it is loaded when a DNS check first runs, as it costs an agent without DNS checks several MB. */
async function resolvers() {
  if (cache) return cache
  const { Resolver } = await import('node:dns/promises')
  cache ??= resolverCache((timeout, server) => {
    const resolver = new Resolver({ timeout, tries: 1 })
    if (server) resolver.setServers([server])
    return resolver
  })
  return cache
}

/**
 * DNS: one query of the record type, at the chosen resolver (else the system's), one try. Up
 * when it answers and every expected answer is among the answers (case-insensitive, trailing
 * dots ignored).
 */
export const dnsProbe: Probe = async (def, deps) => {
  const s = def.settings
  const start = deps.elapsed()
  try {
    return await withDeadline(def.timeout_ms, async () => {
      let server: string | null = null
      if (s.resolver) {
        // checked on every attempt: on the hub, the address goes through the outbound policy
        const r = parseResolver(s.resolver)!
        const [ip] = await deps.addresses(r.host)
        server = ip!.includes(':') ? `[${ip}]:${r.port}` : `${ip}:${r.port}`
      }
      const resolver = (await resolvers()).get(def.timeout_ms, server, deps.elapsed())
      const raw = (await resolver.resolve(s.name!, s.record_type ?? 'A')) as Answer[]
      const response_ms = Math.round(deps.elapsed() - start)
      const answers = raw.map(answerText)
      const norm = (x: string) => x.toLowerCase().replace(/\.$/, '')
      const have = new Set(answers.map(norm))
      const missing = (s.expected ?? []).filter((e) => !have.has(norm(e)))
      const detail = answers.join(', ').slice(0, 1024)
      if (missing.length) return failed(`expected answer missing: ${missing.join(', ')}`.slice(0, 500), { response_ms, detail })
      return { ok: true, response_ms, status_code: null, error: null, cert_expires_at: null, detail }
    })
  } catch (err) {
    const code = (err as { code?: string })?.code
    if (code === 'ENODATA' || code === 'ENOTFOUND') return failed(code === 'ENOTFOUND' ? 'name does not exist (NXDOMAIN)' : 'no records of that type')
    return failed(networkError(err, def.timeout_ms))
  }
}
