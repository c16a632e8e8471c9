import { brotliCompressSync, constants as zlib } from 'node:zlib'
import { join } from 'node:path'

/** The bundle as scripts/build.ts embeds it: file paths inside the executable. */
export interface EmbeddedWeb {
  entry: string
  styles: string[]
  files: { name: string; path: string; gzip: string | null; br: string | null }[]
}

/** One file of the portal's bundle, as the server sends it: its bytes and the precompressed forms worth sending. */
export interface WebAsset {
  /** the hashed file name, served as /app/<name> */
  name: string
  type: string
  /** 'entry-point' (the shell loads it), 'chunk' (a page or shared code, imported on use), 'asset' (CSS) */
  kind?: string
  body: Blob
  gzip: Blob | null
  br: Blob | null
}

/** The bundle: its files, and which of them the HTML shell loads. */
export interface WebBundle {
  entry: string
  styles: string[]
  assets: WebAsset[]
}

export const WEB_ENTRY = join(import.meta.dir, '../../web/src/main.tsx')

/** Text worth compressing: a compressed copy is kept only when it is smaller by more than this. */
const MIN_SAVING = 0.9

/**
 * Bundles web/src for browsers with Bun's bundler: split per page (each route's module is its own
 * chunk), minified, every file named by its content hash so it can be cached for good.
 * Returned in memory; the build script writes it next to the executable's sources and embeds it.
 */
export async function bundleWeb(): Promise<WebBundle> {
  const naming = '[name]-[hash].[ext]'
  const out = await Bun.build({
    entrypoints: [WEB_ENTRY],
    target: 'browser',
    splitting: true,
    minify: true,
    naming: { entry: naming, chunk: naming, asset: naming },
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  if (!out.success) throw new Error(`the portal's bundle failed:\n${out.logs.map(String).join('\n')}`)
  const assets: WebAsset[] = []
  let entry = ''
  const styles: string[] = []
  for (const artifact of out.outputs) {
    const name = artifact.path.replace(/^\.\//, '')
    if (artifact.kind === 'sourcemap') continue
    if (artifact.kind === 'entry-point') entry = name
    if (name.endsWith('.css')) styles.push(name)
    const bytes = new Uint8Array(await artifact.arrayBuffer())
    assets.push({ name, type: contentType(name), kind: artifact.kind, body: new Blob([bytes]), ...compress(name, bytes) })
  }
  if (!entry) throw new Error("the portal's bundle has no entry point")
  return { entry, styles, assets }
}

/** gzip and brotli at their highest levels, once per build: the files are sent many times. */
export function compress(name: string, bytes: Uint8Array<ArrayBuffer>): { gzip: Blob | null; br: Blob | null } {
  if (!/\.(js|css|svg|json|html)$/.test(name) || bytes.length < 512) return { gzip: null, br: null }
  const gz = Bun.gzipSync(bytes, { level: 9 })
  const br = brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length } })
  return {
    gzip: gz.length < bytes.length * MIN_SAVING ? new Blob([gz]) : null,
    br: br.length < bytes.length * MIN_SAVING ? new Blob([br]) : null,
  }
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  json: 'application/json',
  woff2: 'font/woff2',
  png: 'image/png',
}

export const contentType = (name: string) => TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream'
