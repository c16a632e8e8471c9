/**
 * A TCP proxy in the test process, in front of a real server (PostgreSQL): stopping it makes the
 * server unreachable for whoever connects through it (its open connections are cut, new ones
 * refused) without touching the server itself, which other tests share; starting it again on
 * the same port brings the server back.
 */
import type { Socket, TCPSocketListener } from 'bun'

interface Pipe {
  peer: Socket<Pipe> | null
  /** bytes that arrived before the other side was open, or that it could not take yet */
  pending: Uint8Array[]
}

function send(to: Socket<Pipe> | null, from: Pipe, data: Uint8Array) {
  if (!to || from.pending.length) {
    from.pending.push(data)
    return
  }
  const n = to.write(data)
  if (n < data.length) from.pending.push(data.subarray(n))
}

function drain(to: Socket<Pipe>, from: Pipe) {
  while (from.pending.length) {
    const data = from.pending[0]!
    const n = to.write(data)
    if (n < data.length) {
      from.pending[0] = data.subarray(n)
      return
    }
    from.pending.shift()
  }
}

export async function tcpProxy(target: { host: string; port: number }) {
  let listener: TCPSocketListener<Pipe> | null = null
  let port = 0
  const open = new Set<Socket<Pipe>>()

  function listen() {
    listener = Bun.listen<Pipe>({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(client) {
          client.data = { peer: null, pending: [] }
          open.add(client)
          const upstreamSide: Pipe = { peer: client, pending: [] }
          Bun.connect<Pipe>({
            hostname: target.host,
            port: target.port,
            data: upstreamSide,
            socket: {
              open(up) {
                open.add(up)
                client.data.peer = up
                drain(up, client.data)
              },
              data(up, data) {
                send(client, up.data, data)
              },
              drain(up) {
                drain(up, client.data)
              },
              close(up) {
                open.delete(up)
                client.end()
              },
              error(up) {
                up.end()
              },
            },
          }).catch(() => client.end())
        },
        data(client, data) {
          send(client.data.peer, client.data, data)
        },
        drain(client) {
          const up = client.data.peer
          if (up) drain(client, up.data)
        },
        close(client) {
          open.delete(client)
          client.data.peer?.end()
        },
        error(client) {
          client.end()
        },
      },
    })
    port = listener.port
  }
  listen()

  return {
    get port() {
      return port
    },
    /** cuts every connection through the proxy and refuses new ones */
    stop() {
      listener?.stop(true)
      listener = null
      for (const s of open) s.terminate()
      open.clear()
    },
    /** listens again on the same port */
    start() {
      if (!listener) listen()
    },
  }
}
