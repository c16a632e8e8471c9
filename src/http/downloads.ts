import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Elysia } from 'elysia'
import installScript from '../../web/install.sh' with { type: 'text' }
import { firstCertificate } from '../lib/tls-pin'

export interface DownloadOptions {
  dataDir: string
  tlsCert: string | null
  /** the running executable (process.execPath); served for its own platform when it is a built vigil */
  execPath: string
  platform: { os: string; arch: string }
  /** whether this is the built executable; from source, execPath is bun itself */
  compiled: boolean
}

/** A built executable's modules live in Bun's embedded file system. */
export const IS_COMPILED = import.meta.path.startsWith('/$bunfs/') || import.meta.path.startsWith('B:/~BUN/')

export const AGENT_ARCHES = ['x64', 'arm64'] as const

/**
 * Which file serves vigil-linux-<arch>: the running executable for the hub's own platform (the
 * collector then runs the hub's version), else one the operator dropped into DATA_DIR/agents
 * (e.g. the arm64 build of `bun run release`). Never `bun` itself, when the hub runs from source.
 */
export function agentExecutable(o: DownloadOptions, arch: string): string | null {
  if (o.platform.os === 'linux' && o.platform.arch === arch && o.compiled) return o.execPath
  const dropped = join(o.dataDir, 'agents', `vigil-linux-${arch}`)
  return existsSync(dropped) ? dropped : null
}

/** SHA-256 of a file, remembered while its size and mtime stay the same (an executable is ~100 MB). */
function checksums() {
  const memo = new Map<string, { key: string; hex: string }>()
  return async (path: string) => {
    const s = statSync(path)
    const key = `${s.size}:${s.mtimeMs}`
    const hit = memo.get(path)
    if (hit?.key === key) return hit.hex
    const hasher = new Bun.CryptoHasher('sha256')
    for await (const chunk of Bun.file(path).stream()) hasher.update(chunk)
    const hex = hasher.digest('hex')
    memo.set(path, { key, hex })
    return hex
  }
}

const text = (body: string, status = 200, type = 'text/plain; charset=utf-8') =>
  new Response(body, { status, headers: { 'content-type': type, 'cache-control': 'no-store' } })

const missing = (arch: string, dataDir: string) =>
  text(
    `vigil-linux-${arch} is not available on this hub: it serves its own executable for its own platform, and any other from ${join(dataDir, 'agents', `vigil-linux-${arch}`)} (copy it there from "bun run release" output: dist/release/vigil-linux-${arch}).\n`,
    404,
  )

/** A hub URL safe to put between single quotes in a shell script. */
const shellSafe = (origin: string) => (/^https?:\/\/[A-Za-z0-9.:[\]_-]+$/.test(origin) ? origin : 'http://hub:8080')

/**
 * What a machine needs to install the collector from the hub alone: the executables with their
 * checksums, the install script (with this hub's address) and, for a self-signed https hub,
 * its certificate (a machine keeps it only if its public key matches the pin it was given).
 */
export function downloads(o: DownloadOptions) {
  const sha = checksums()
  const hide = { detail: { hide: true } }
  return new Elysia({ name: 'downloads' })
    .get(
      '/install.sh',
      ({ request }) => text(installScript.replace('__VIGIL_HUB__', shellSafe(new URL(request.url).origin)), 200, 'text/x-shellscript; charset=utf-8'),
      hide,
    )
    .get(
      '/download/hub-certificate.pem',
      () => {
        const pem = o.tlsCert && existsSync(o.tlsCert) ? firstCertificate(readFileSync(o.tlsCert, 'utf8')) : null
        return pem ? text(`${pem}\n`, 200, 'application/x-pem-file') : text('this hub has no TLS certificate of its own (VIGIL_TLS_CERT)\n', 404)
      },
      hide,
    )
    .get(
      '/download/:file',
      async ({ params }) => {
        const m = /^vigil-linux-(x64|arm64)(\.sha256)?$/.exec(params.file)
        if (!m) return text(`no such download; there are ${AGENT_ARCHES.map((a) => `vigil-linux-${a}`).join(', ')} and their .sha256\n`, 404)
        const arch = m[1]!
        const path = agentExecutable(o, arch)
        if (!path) return missing(arch, o.dataDir)
        if (m[2]) return text(`${await sha(path)}  vigil-linux-${arch}\n`)
        return new Response(Bun.file(path), {
          headers: {
            'content-type': 'application/octet-stream',
            'content-disposition': `attachment; filename="vigil-linux-${arch}"`,
            'cache-control': 'no-store',
          },
        })
      },
      hide,
    )
}
