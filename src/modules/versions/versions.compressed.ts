import { createReadStream, createWriteStream, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'
import type { Logger } from '../../lib/logger'

/**
 * The encodings a collector executable is served in, best first. zstd (level 10) makes the
 * ~123 MB executable ~51 MB, gzip (level 6) ~59 MB; both stream through node:zlib on Bun's
 * thread pool (~10 s and ~3 s once for a release, the event loop free meanwhile). gzip is what
 * install.sh can count on (gzip is on every Linux; zstd often is not); zstd is what the
 * collector's own downloads accept (Bun's fetch decodes it).
 */
export const ENCODINGS = ['zstd', 'gzip'] as const
export type Encoding = (typeof ENCODINGS)[number]

const suffix: Record<Encoding, string> = { zstd: 'zst', gzip: 'gz' }

function compressor(encoding: Encoding) {
  return encoding === 'zstd' ? zlib.createZstdCompress({ params: { [zlib.constants.ZSTD_c_compressionLevel]: 10 } }) : zlib.createGzip({ level: 6 })
}

/** Which encoding an Accept-Encoding header allows, best first (q=0 refuses one); null: the file as it is. */
export function negotiate(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null
  const allowed = new Map<string, number>()
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';')
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean)
    allowed.set(name!.trim(), q === undefined ? 1 : Number(q))
  }
  const ok = (e: string) => (allowed.get(e) ?? allowed.get('*') ?? 0) > 0
  return ENCODINGS.find(ok) ?? null
}

/**
 * Compressed copies of the served executables, made once per file version (its size and
 * modification time) into DATA_DIR/cache/downloads and kept there: never per request. The
 * first request for an encoding waits for its copy (concurrent ones share the work); a copy
 * that cannot be made (a full disk) is logged and the file is served as it is.
 */
export function compressedCache(o: { dataDir: string; log?: Logger }) {
  const dir = join(o.dataDir, 'cache', 'downloads')
  const making = new Map<string, Promise<string | null>>()

  async function make(source: string, encoding: Encoding, target: string): Promise<string | null> {
    const tmp = `${target}.tmp`
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      await pipeline(createReadStream(source), compressor(encoding), createWriteStream(tmp, { mode: 0o600 }))
      renameSync(tmp, target)
      // copies of earlier versions of the same download, in the same encoding, go
      const stem = `${basename(source)}.`
      const end = `.${suffix[encoding]}`
      for (const name of readdirSync(dir))
        if (name.startsWith(stem) && name.endsWith(end) && join(dir, name) !== target) rmSync(join(dir, name), { force: true })
      o.log?.info('download compressed', { file: basename(source), encoding, bytes: statSync(source).size, compressed_bytes: statSync(target).size })
      return target
    } catch (err) {
      rmSync(tmp, { force: true })
      o.log?.warn('download not compressed; serving it as it is', { file: basename(source), encoding, error: (err as Error).message })
      return null
    }
  }

  return {
    /** The compressed copy of `source` (made now if needed), or null when it cannot be made. */
    get(source: string, encoding: Encoding): Promise<string | null> {
      const s = statSync(source)
      const target = join(dir, `${basename(source)}.${s.size}-${Math.trunc(s.mtimeMs)}.${suffix[encoding]}`)
      const pending = making.get(target)
      if (pending) return pending
      try {
        if (statSync(target).isFile()) return Promise.resolve(target)
      } catch {
        // not made yet
      }
      const job = make(source, encoding, target).finally(() => making.delete(target))
      making.set(target, job)
      return job
    },
  }
}

export type CompressedCache = ReturnType<typeof compressedCache>
