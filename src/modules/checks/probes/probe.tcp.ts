import { connect } from 'node:net'
import { failed, networkError, withDeadline, type Probe } from './probe.types'

/** TCP port: up when a connection opens (to the first checked address), closed at once. */
export const tcpProbe: Probe = async (def, deps) => {
  const s = def.settings
  const start = deps.elapsed()
  try {
    return await withDeadline(def.timeout_ms, async (signal) => {
      const [ip] = await deps.addresses(s.host!)
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host: ip!, port: s.port! })
        const abort = () => socket.destroy()
        signal.addEventListener('abort', abort, { once: true })
        socket.once('connect', () => {
          signal.removeEventListener('abort', abort)
          socket.destroy()
          resolve()
        })
        socket.once('error', (err) => {
          signal.removeEventListener('abort', abort)
          reject(err)
        })
      })
      const response_ms = Math.round(deps.elapsed() - start)
      return { ok: true, response_ms, status_code: null, error: null, cert_expires_at: null, detail: `connected to ${s.host}:${s.port}` }
    })
  } catch (err) {
    return failed(networkError(err, def.timeout_ms))
  }
}
