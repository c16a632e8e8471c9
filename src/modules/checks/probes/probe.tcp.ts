import { connectOnce } from './probe.socket'
import { failed, networkError, withDeadline, type Probe } from './probe.types'

/** TCP port: up when a connection opens (to the first checked address), closed at once. */
export const tcpProbe: Probe = async (def, deps) => {
  const s = def.settings
  const start = deps.elapsed()
  try {
    return await withDeadline(def.timeout_ms, async (signal) => {
      const [ip] = await deps.addresses(s.host!)
      await connectOnce(ip!, s.port!, null, signal)
      const response_ms = Math.round(deps.elapsed() - start)
      return { ok: true, response_ms, status_code: null, error: null, cert_expires_at: null, detail: `connected to ${s.host}:${s.port}` }
    })
  } catch (err) {
    return failed(networkError(err, def.timeout_ms))
  }
}
