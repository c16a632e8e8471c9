import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'

export const AGENT_ARCHES = ['x64', 'arm64'] as const
export type AgentArch = (typeof AGENT_ARCHES)[number]

/** A built executable's modules live in Bun's embedded file system. */
export const IS_COMPILED = import.meta.path.startsWith('/$bunfs/') || import.meta.path.startsWith('B:/~BUN/')

export interface ExecutablesOptions {
  dataDir: string
  /** the running executable (process.execPath); served for its own platform when it is a built vigil */
  execPath: string
  platform: { os: string; arch: string }
  /** whether this is the built executable; from source, execPath is bun itself */
  compiled: boolean
  /** VIGIL_AGENT_EXECUTABLE: a built vigil to serve for the architecture its ELF header names */
  configured?: string | null
}

/** The architecture a Linux executable is built for, from its ELF header; null for anything else. */
export function elfArch(path: string): AgentArch | null {
  const head = Buffer.alloc(20)
  try {
    const fd = openSync(path, 'r')
    try {
      if (readSync(fd, head, 0, 20, 0) < 20) return null
    } finally {
      closeSync(fd)
    }
  } catch {
    return null
  }
  if (head.readUInt32BE(0) !== 0x7f454c46) return null
  const machine = head.readUInt16LE(18)
  return machine === 0x3e ? 'x64' : machine === 0xb7 ? 'arm64' : null
}

/**
 * The file is hashed this much at a time, each read waited for on the runtime's threads: the event
 * loop runs between two. Chunks of a file's stream come already read, and the loop over them never
 * gave the event loop a turn: hashing the hub's executable for its self-publish held it 180 to 270
 * ms on the 2.0 GHz test machine, 30 s after every start.
 */
const HASH_CHUNK = 1 << 20

/** SHA-256 of a file, remembered while its size and mtime stay the same (an executable is ~100 MB). */
const sums = new Map<string, { key: string; hex: string }>()
export async function fileSha256(path: string): Promise<string> {
  const s = statSync(path)
  const key = `${s.size}:${s.mtimeMs}`
  const hit = sums.get(path)
  if (hit?.key === key) return hit.hex
  const hasher = new Bun.CryptoHasher('sha256')
  const file = await open(path, 'r')
  try {
    const chunk = Buffer.allocUnsafe(HASH_CHUNK)
    for (let n = (await file.read(chunk, 0, HASH_CHUNK, null)).bytesRead; n > 0; n = (await file.read(chunk, 0, HASH_CHUNK, null)).bytesRead) {
      hasher.update(chunk.subarray(0, n))
    }
  } finally {
    await file.close()
  }
  const hex = hasher.digest('hex')
  sums.set(path, { key, hex })
  return hex
}

/**
 * The collector executables this hub can serve (GET /download/vigil-linux-<arch>), and, when
 * it cannot, why and what to do: the file VIGIL_AGENT_EXECUTABLE names, for its architecture;
 * the running executable for the hub's own platform when it is a built vigil (never `bun`
 * itself, when the hub runs from source); else one dropped in DATA_DIR/agents.
 */
export function agentExecutables(o: ExecutablesOptions) {
  const dropped = (arch: string) => join(o.dataDir, 'agents', `vigil-linux-${arch}`)
  const ownArch = o.platform.os === 'linux' ? o.platform.arch : null

  function path(arch: string): string | null {
    if (o.configured && existsSync(o.configured) && elfArch(o.configured) === arch) return o.configured
    if (ownArch === arch && o.compiled) return o.execPath
    return existsSync(dropped(arch)) ? dropped(arch) : null
  }

  /** Why vigil-linux-<arch> cannot be served, and what the operator can do; null when it can. */
  function unavailable(arch: string): string | null {
    if (path(arch)) return null
    // named relative to the data dir: this text also answers anonymous downloads, which learn no local path
    const drop = `copy one to DATA_DIR/agents/vigil-linux-${arch} (the hub's data directory)`
    if (o.configured && !existsSync(o.configured))
      return `the file VIGIL_AGENT_EXECUTABLE names does not exist: point it at a built vigil (dist/vigil after \`bun run build\`), or ${drop}`
    if (ownArch === arch && !o.compiled)
      return `this hub runs from source and has no executable to serve: run \`bun run build\` and start dist/vigil, or set VIGIL_AGENT_EXECUTABLE to a built vigil (e.g. dist/vigil), or ${drop}`
    return `this hub has no vigil-linux-${arch}: it serves its own executable for its own platform only; set VIGIL_AGENT_EXECUTABLE to an ${arch} build (\`bun run release\` makes dist/release/vigil-linux-${arch}), or ${drop}`
  }

  return {
    path,
    unavailable,
    /** the served file's SHA-256, null when there is none */
    sha256: async (arch: string) => {
      const file = path(arch)
      return file ? fileSha256(file) : null
    },
    /**
     * Whether the install command can work: true when the hub serves an executable for some
     * architecture; else why not, for the hub's own (or x64 on another system).
     */
    install(): { install_available: boolean; install_unavailable_reason: string | null } {
      if (AGENT_ARCHES.some((a) => path(a))) return { install_available: true, install_unavailable_reason: null }
      return { install_available: false, install_unavailable_reason: unavailable(ownArch ?? 'x64') }
    },
  }
}

export type AgentExecutables = ReturnType<typeof agentExecutables>

/** The catalogue for this process: the running executable, the data dir and VIGIL_AGENT_EXECUTABLE. */
export const hubExecutables = (config: { dataDir: string; agentExecutable: string | null }) =>
  agentExecutables({
    dataDir: config.dataDir,
    execPath: process.execPath,
    platform: { os: process.platform, arch: process.arch },
    compiled: IS_COMPILED,
    configured: config.agentExecutable,
  })
