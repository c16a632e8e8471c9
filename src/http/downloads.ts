import { existsSync, readFileSync } from 'node:fs'
import { Elysia } from 'elysia'
import installScript from '../../web/install.sh' with { type: 'text' }
import type { Logger } from '../lib/logger'
import { firstCertificate } from '../lib/tls-pin'
import { compressedCache, type Encoding, negotiate } from '../modules/versions/versions.compressed'
import { AGENT_ARCHES, agentExecutables, type ExecutablesOptions, fileSha256, IS_COMPILED } from '../modules/versions/versions.executables'

export interface DownloadOptions extends ExecutablesOptions {
  tlsCert: string | null
  log?: Logger
}

export { AGENT_ARCHES, IS_COMPILED }

const text = (body: string, status = 200, type = 'text/plain; charset=utf-8') =>
  new Response(body, { status, headers: { 'content-type': type, 'cache-control': 'no-store' } })

/** A hub URL safe to put between single quotes in a shell script. */
const shellSafe = (origin: string) => (/^https?:\/\/[A-Za-z0-9.:[\]_-]+$/.test(origin) ? origin : 'http://hub:8080')

/**
 * What a machine needs to install the collector from the hub alone: the executables with their
 * checksums, the install script (with this hub's address) and, for a self-signed https hub,
 * its certificate (a machine keeps it only if its public key matches the pin it was given).
 */
export function downloads(o: DownloadOptions) {
  const files = agentExecutables(o)
  const cache = compressedCache({ dataDir: o.dataDir, log: o.log })
  const hide = { detail: { hide: true } }

  /** The executable as it is, or its compressed copy: with Content-Encoding when negotiated, as a .gz file when asked for one. */
  async function serve(path: string, arch: string, encoding: Encoding | null, asFile: boolean): Promise<Response> {
    const copy = encoding ? await cache.get(path, encoding) : null
    const name = `vigil-linux-${arch}${asFile ? '.gz' : ''}`
    const headers: Record<string, string> = {
      'content-type': asFile ? 'application/gzip' : 'application/octet-stream',
      'content-disposition': `attachment; filename="${name}"`,
      'cache-control': 'no-store',
      vary: 'accept-encoding',
    }
    if (asFile && !copy) return text(`${name} could not be made on this hub (see its log); download vigil-linux-${arch} instead\n`, 503)
    if (copy && !asFile) headers['content-encoding'] = encoding!
    return new Response(Bun.file(copy ?? path), { headers })
  }

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
      async ({ params, request }) => {
        const m = /^vigil-linux-(x64|arm64)(\.sha256|\.gz)?$/.exec(params.file)
        if (!m) return text(`no such download; there are ${AGENT_ARCHES.map((a) => `vigil-linux-${a}`).join(', ')}, their .gz and their .sha256\n`, 404)
        const arch = m[1]!
        const path = files.path(arch)
        if (!path) return text(`vigil-linux-${arch} is not available: ${files.unavailable(arch)}\n`, 404)
        // the checksum is the executable's own, however it travels
        if (m[2] === '.sha256') return text(`${await fileSha256(path)}  vigil-linux-${arch}\n`)
        if (m[2] === '.gz') return serve(path, arch, 'gzip', true)
        return serve(path, arch, negotiate(request.headers.get('accept-encoding')), false)
      },
      hide,
    )
}
