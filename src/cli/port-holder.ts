import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Whether `port` on `host` is free to listen on: bound for a moment and let go. Done before
 * `serve` creates its data dir or database, so a port another program holds costs nothing.
 * Without SO_REUSEPORT, as the service itself listens (serve.ts).
 */
export function probePort(host: string, port: number): boolean {
  try {
    const probe = Bun.serve({ hostname: host, port, reusePort: false, fetch: () => new Response() })
    probe.stop(true)
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') return false
    return true // another failure (an address not on this machine…) is reported by the real listen, with its own words
  }
}

export interface PortHolder {
  pid: number
  command: string
}

/** LISTEN in /proc/net/tcp's `st` column */
const LISTEN = '0A'
const MAX_COMMAND = 200

/** The socket inodes listening on `port`, from /proc/net/tcp and tcp6 (both: a dual-stack socket is in tcp6 only). */
function listeningInodes(port: number, proc: string): Set<string> {
  const inodes = new Set<string>()
  for (const table of ['net/tcp', 'net/tcp6']) {
    let text: string
    try {
      text = readFileSync(join(proc, table), 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      const local = f[1]
      if (!local || f[3] !== LISTEN) continue
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port && f[9] && f[9] !== '0') inodes.add(f[9])
    }
  }
  return inodes
}

/**
 * Which process listens on `port`, when /proc lets this user see it: the listening socket's
 * inode from /proc/net/tcp{,6}, then the process with a descriptor on `socket:[inode]`. Null
 * when that cannot be told (another user's process without root, or no /proc).
 */
export function findPortHolder(port: number, proc = '/proc'): PortHolder | null {
  const inodes = listeningInodes(port, proc)
  if (inodes.size === 0) return null
  let pids: string[]
  try {
    pids = readdirSync(proc).filter((name) => /^\d+$/.test(name))
  } catch {
    return null
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(join(proc, pid, 'fd'))
    } catch {
      continue // another user's process, or gone
    }
    for (const fd of fds) {
      let target: string
      try {
        target = readlinkSync(join(proc, pid, 'fd', fd))
      } catch {
        continue
      }
      const m = /^socket:\[(\d+)\]$/.exec(target)
      if (m && inodes.has(m[1]!)) return { pid: Number(pid), command: commandOf(proc, pid) }
    }
  }
  return null
}

function commandOf(proc: string, pid: string): string {
  try {
    const argv = readFileSync(join(proc, pid, 'cmdline'), 'utf8')
      .split('\0')
      .filter(Boolean)
      .join(' ')
    if (argv) return argv.length > MAX_COMMAND ? `${argv.slice(0, MAX_COMMAND)}…` : argv
    return readFileSync(join(proc, pid, 'comm'), 'utf8').trim() || 'unknown'
  } catch {
    return 'unknown'
  }
}

/** The refusal `serve` prints for a port in use, naming the holder when it can be told. */
export function portHeldMessage(host: string, port: number, holder: PortHolder | null = findPortHolder(port)): string {
  const who = holder
    ? `by pid ${holder.pid} (${holder.command})`
    : 'by a process that could not be told (it belongs to another user; as root, "ss -ltnp" names it)'
  return `port ${port} on ${host} is already in use ${who}; stop it, or choose another port with --port or VIGIL_PORT`
}
