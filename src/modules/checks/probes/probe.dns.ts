import { readFileSync } from 'node:fs'
import { type Answer, decodeReply, encodeQuery, type RecordType, type Reply } from './probe.dns-wire'
import { parseResolver } from './probe.resolver'
import { failed, networkError, withDeadline, type Probe } from './probe.types'

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

/** The first nameserver of /etc/resolv.conf: the system's resolver, as c-ares would pick it. */
function systemNameserver(): { ip: string; port: number } | null {
  try {
    const m = /^\s*nameserver\s+([0-9a-fA-F.:]+)/m.exec(readFileSync('/etc/resolv.conf', 'utf8'))
    return m ? { ip: m[1]!, port: 53 } : null
  } catch {
    return null
  }
}

const WORDS: Record<string, string> = { ESERVFAIL: 'the server failed (SERVFAIL)', EREFUSED: 'the server refused (REFUSED)', EBADRESP: 'the answer is not DNS' }

/** One query over UDP to `server`; the reply must come from it and carry the query's id. */
function udpQuery(server: { ip: string; port: number }, name: string, type: RecordType, signal: AbortSignal): Promise<Reply> {
  const id = crypto.getRandomValues(new Uint16Array(1))[0]!
  return new Promise((resolve, reject) => {
    let socket: { close(): void } | null = null
    let settled = false
    const settle = (fn: () => void) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', abort)
      socket?.close()
      fn()
    }
    const abort = () => settle(() => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))
    signal.addEventListener('abort', abort, { once: true })
    Bun.udpSocket({
      hostname: server.ip.includes(':') ? '::' : '0.0.0.0',
      socket: {
        data(_s, buf, _port, address) {
          if (address.replace(/^::ffff:/, '') !== server.ip.replace(/^::ffff:/, '')) return
          const reply = decodeReply(buf, type)
          if (reply.id === id) settle(() => resolve(reply))
        },
        error(_s, err) {
          settle(() => reject(err))
        },
      },
    }).then(
      (s) => {
        socket = s
        if (settled) return s.close()
        s.send(encodeQuery(id, name, type), server.port, server.ip)
      },
      (err) => settle(() => reject(err)),
    )
  })
}

/** node:dns (c-ares), loaded only where UDP does not do: a truncated answer (it retries over TCP) or no resolver in /etc/resolv.conf. */
async function nodeResolve(name: string, type: RecordType, server: { ip: string; port: number } | null, timeoutMs: number): Promise<Answer[]> {
  const { Resolver } = await import('node:dns/promises')
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 })
  if (server) resolver.setServers([server.ip.includes(':') ? `[${server.ip}]:${server.port}` : `${server.ip}:${server.port}`])
  return (await resolver.resolve(name, type)) as Answer[]
}

/**
 * The records of one type: one query over UDP (Bun's own socket: node:dns would cost an agent
 * about 2 MB more resident), else through node:dns. Throws with the code node:dns uses.
 */
async function records(name: string, type: RecordType, server: { ip: string; port: number } | null, timeoutMs: number, signal: AbortSignal): Promise<Answer[]> {
  const target = server ?? systemNameserver()
  if (!target) return nodeResolve(name, type, null, timeoutMs)
  const reply = await udpQuery(target, name, type, signal)
  if ('answers' in reply) return reply.answers
  if (reply.error === 'ETRUNCATED') return nodeResolve(name, type, target, timeoutMs)
  throw Object.assign(new Error(WORDS[reply.error] ?? reply.error), { code: reply.error })
}

/**
 * DNS: one query of the record type, at the chosen resolver (else the system's: the first
 * nameserver of /etc/resolv.conf), one try. Up
 * when it answers and every expected answer is among the answers (case-insensitive, trailing
 * dots ignored).
 */
export const dnsProbe: Probe = async (def, deps) => {
  const s = def.settings
  const start = deps.elapsed()
  try {
    return await withDeadline(def.timeout_ms, async (signal) => {
      let server: { ip: string; port: number } | null = null
      if (s.resolver) {
        const r = parseResolver(s.resolver)!
        const [ip] = await deps.addresses(r.host)
        server = { ip: ip!, port: r.port }
      }
      const raw = await records(s.name!, s.record_type ?? 'A', server, def.timeout_ms, signal)
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
