/**
 * The portal's bundle inside the executable: scripts/build.ts bundles web/src (src/http/web-bundle.ts),
 * writes the files and their gzip/brotli forms to dist/web/, and fills src/http/web-assets.gen.ts
 * with imports of them `with { type: 'file' }`, so `bun build --compile` embeds them. The committed
 * web-assets.gen.ts (nothing embedded: the server bundles web/src itself) is put back afterwards.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { bundleWeb, type WebBundle } from '../src/http/web-bundle'

const root = join(import.meta.dir, '..')
export const WEB_OUT = join(root, 'dist/web')
const GEN = join(root, 'src/http/web-assets.gen.ts')

async function writeFiles(bundle: WebBundle): Promise<{ name: string; path: string; gzip: string | null; br: string | null }[]> {
  rmSync(WEB_OUT, { recursive: true, force: true })
  mkdirSync(WEB_OUT, { recursive: true })
  const files = []
  for (const a of bundle.assets) {
    const path = join(WEB_OUT, a.name)
    await Bun.write(path, a.body)
    const gzip = a.gzip ? `${path}.gz` : null
    const br = a.br ? `${path}.br` : null
    if (gzip) await Bun.write(gzip, a.gzip!)
    if (br) await Bun.write(br, a.br!)
    files.push({ name: a.name, path, gzip, br })
  }
  return files
}

function generated(bundle: WebBundle, files: Awaited<ReturnType<typeof writeFiles>>): string {
  const imports: string[] = []
  const ref = (path: string | null) => {
    if (!path) return 'null'
    const id = `f${imports.length}`
    imports.push(`import ${id} from '${relative(join(root, 'src/http'), path)}' with { type: 'file' }`)
    return id
  }
  const rows = files.map((f) => `    { name: '${f.name}', path: ${ref(f.path)}, gzip: ${ref(f.gzip)}, br: ${ref(f.br)} },`)
  return `// Written by scripts/build.ts for this compile; put back to the committed version after it.
// @ts-nocheck
import type { EmbeddedWeb } from './web-bundle'
${imports.join('\n')}

export const EMBEDDED_WEB: EmbeddedWeb | null = {
  entry: '${bundle.entry}',
  styles: ${JSON.stringify(bundle.styles)},
  files: [
${rows.join('\n')}
  ],
}
`
}

/** Bundles and embeds the portal for the duration of `compile`, then restores the committed module. */
export async function withEmbeddedWeb<T>(compile: () => Promise<T>): Promise<T> {
  const bundle = await bundleWeb()
  const files = await writeFiles(bundle)
  const committed = readFileSync(GEN, 'utf8')
  const restore = () => writeFileSync(GEN, committed)
  const onSignal = () => {
    restore()
    process.exit(130)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  process.once('exit', restore) // a failed compile exits the build without unwinding
  writeFileSync(GEN, generated(bundle, files))
  try {
    return await compile()
  } finally {
    restore()
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    process.off('exit', restore)
  }
}
