import type { ProbeResult } from '../checks.model'
import { certificateOf } from './probe.tls'
import { failed, networkError, withDeadline, type Probe } from './probe.types'

const MAX_REDIRECTS = 5
/** the body read for keywords and JSON paths; beyond it the answer is cut */
const MAX_BODY = 1024 * 1024

/** "200-299", "204" against a status code. */
export function statusAccepted(status: number, accepted: string[]): boolean {
  return accepted.some((a) => {
    const [lo, hi] = a.split('-').map(Number)
    return hi === undefined ? status === lo : status >= lo! && status <= hi
  })
}

/** The value at a path such as $.a.b[0].c, or undefined. */
export function jsonPathValue(doc: unknown, path: string): unknown {
  let cur: unknown = doc
  for (const m of path.slice(1).matchAll(/\.([A-Za-z0-9_-]+)|\[(\d+)\]/g)) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = m[1] !== undefined ? (cur as Record<string, unknown>)[m[1]] : (cur as unknown[])[Number(m[2])]
  }
  return cur
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return ''
  // a body that says its length and fits, not compressed (a small compressed body can unpack to
  // any size), is read whole; the stream below is for the others
  const length = res.headers.get('content-length')
  const encoding = res.headers.get('content-encoding')
  if (length && /^\d{1,7}$/.test(length) && Number(length) <= MAX_BODY && (!encoding || encoding === 'identity')) return await res.text()
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  while (size < MAX_BODY) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
  }
  await reader.cancel().catch(() => {})
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_BODY))
}

/**
 * HTTP(S): the request as configured, redirects followed one by one (each target through the
 * same policy), then status, keyword and JSON-path conditions in that order; the first unmet
 * one is the error. For https with a warning period the certificate's expiry is read as well.
 */
export const httpProbe: Probe = async (def, deps) => {
  const s = def.settings
  const start = deps.elapsed()
  try {
    return await withDeadline(def.timeout_ms, async (signal) => {
      let url = s.url!
      let res: Response | null = null
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        const method = hop === 0 ? (s.method ?? 'GET') : 'GET'
        res = await deps.fetch(url, {
          method,
          headers: s.headers,
          body: hop === 0 && s.body !== undefined && method !== 'GET' && method !== 'HEAD' ? s.body : undefined,
          signal,
          redirect: 'manual',
          tls: { rejectUnauthorized: s.verify_tls !== false },
        })
        const location = res.headers.get('location')
        if (!(res.status >= 300 && res.status < 400 && location && s.follow_redirects !== false)) break
        await res.body?.cancel().catch(() => {})
        if (hop === MAX_REDIRECTS) return failed(`more than ${MAX_REDIRECTS} redirects`, { status_code: res.status })
        url = new URL(location, url).toString()
      }
      const body = def.settings.method === 'HEAD' ? '' : await readCapped(res!)
      const response_ms = Math.round(deps.elapsed() - start)
      const result: ProbeResult = { ok: true, response_ms, status_code: res!.status, error: null, cert_expires_at: null, detail: body.slice(0, 1024) }
      if (url.startsWith('https:') && s.cert_warn_days !== undefined) {
        const cert = await certificateOf(new URL(url), deps, signal).catch(() => null)
        result.cert_expires_at = cert?.expires_at ?? null
      }
      const problem = conditionProblem(res!.status, body, def.settings)
      return problem ? { ...result, ok: false, error: problem } : result
    })
  } catch (err) {
    return failed(networkError(err, def.timeout_ms), { response_ms: null })
  }
}

function conditionProblem(status: number, body: string, s: Parameters<Probe>[0]['settings']): string | null {
  if (!statusAccepted(status, s.accepted_status ?? ['200-299'])) return `status ${status} not accepted`
  if (s.keyword !== undefined) {
    const present = body.includes(s.keyword)
    if (s.keyword_absent && present) return 'keyword present'
    if (!s.keyword_absent && !present) return 'keyword absent'
  }
  if (s.json_path !== undefined) {
    let doc: unknown
    try {
      doc = JSON.parse(body)
    } catch {
      return 'answer is not JSON'
    }
    const value = jsonPathValue(doc, s.json_path)
    if (value === undefined) return `${s.json_path} not found`
    const text = typeof value === 'string' ? value : JSON.stringify(value)
    if (s.json_expected !== undefined && text !== s.json_expected) return `${s.json_path} is ${text.slice(0, 100)}, expected ${s.json_expected}`
  }
  return null
}
