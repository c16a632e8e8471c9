import type { PeerCertificate } from 'node:tls'

/** What a TLS handshake showed: the leaf certificate (null if none was presented). */
export interface Handshake {
  cert: PeerCertificate | null
}

/**
 * Opens one connection to `ip:port` with Bun's own sockets and closes it at once: for TLS, once
 * the handshake is done (verified against the system's CAs and the name unless `verify` is
 * false). node:net and node:tls build a stream per socket on top of these; an agent that used
 * them for its TCP and TLS checks kept about 4 MB more resident for the same attempts.
 * Rejects with the error's code (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT, …) or, once
 * `signal` aborts, an AbortError.
 */
export function connectOnce(ip: string, port: number, tls: { servername?: string; verify: boolean } | null, signal: AbortSignal): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    let socket: { terminate(): void } | null = null
    let settled = false
    const settle = (fn: () => void) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', abort)
      socket?.terminate()
      fn()
    }
    const abort = () => settle(() => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))
    signal.addEventListener('abort', abort, { once: true })
    Bun.connect({
      hostname: ip,
      port,
      tls: tls ? { serverName: tls.servername, rejectUnauthorized: tls.verify } : undefined,
      socket: {
        open(s) {
          socket = s
          if (!tls) settle(() => resolve({ cert: null }))
        },
        handshake(s, authorized, error) {
          if (tls?.verify && !authorized) {
            const code = (error as { code?: string } | null)?.code ?? 'verification failed'
            settle(() => reject(Object.assign(new Error(error?.message ?? code), { code })))
            return
          }
          const cert = s.getPeerCertificate()
          settle(() => resolve({ cert: cert && Object.keys(cert).length ? cert : null }))
        },
        connectError(_s, err) {
          settle(() => reject(err))
        },
        error(_s, err) {
          settle(() => reject(err))
        },
        close() {
          settle(() => reject(Object.assign(new Error('connection closed'), { code: 'ECONNRESET' })))
        },
        data() {},
      },
    }).then(
      (s) => {
        socket = s
        if (settled) s.terminate()
      },
      (err) => settle(() => reject(err)),
    )
  })
}
