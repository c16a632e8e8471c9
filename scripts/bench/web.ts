/**
 * The portal's weight: `bun run bench --web-only` bundles web/src as the build does and prints
 * the gzipped (and brotli) size of the entry, of each page's chunk, and of each route's first
 * load: the entry, the page's chunk and every chunk they import statically (what a browser
 * fetches before the page shows). The budget: a first load of at most 100 KB of gzipped JavaScript.
 */
import { brotliCompressSync, constants as zlib } from 'node:zlib'
import { bundleWeb, type WebAsset } from '../../src/http/web-bundle'

export const FIRST_LOAD_BUDGET = 100 * 1024

export interface WebSizes {
  entry: { name: string; raw: number; gzip: number; br: number }
  /** CSS the shell loads (not counted in the JavaScript budget) */
  css: { raw: number; gzip: number }
  pages: { page: string; chunk: string; own: number; firstLoadGzip: number; firstLoadBr: number; firstLoadRaw: number }[]
  totalJsGzip: number
}

const gz = (b: Uint8Array<ArrayBuffer>) => Bun.gzipSync(b, { level: 9 }).length
const br = (b: Uint8Array<ArrayBuffer>) => brotliCompressSync(b, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length

/** The chunks a module imports statically (`import … from "./x.js"`, `import "./x.js"`), not its import() calls. */
export function staticImports(code: string): string[] {
  const out = new Set<string>()
  for (const m of code.matchAll(/(?:\bfrom|\bimport)\s*["']\.\/([^"']+\.js)["']/g)) out.add(m[1]!)
  return [...out]
}

export async function webSizes(): Promise<WebSizes> {
  const bundle = await bundleWeb()
  const files = new Map<string, { asset: WebAsset; bytes: Uint8Array<ArrayBuffer>; code: string }>()
  for (const a of bundle.assets) {
    const bytes = new Uint8Array(await a.body.arrayBuffer())
    files.set(a.name, { asset: a, bytes, code: new TextDecoder().decode(bytes) })
  }
  const closure = (roots: string[]) => {
    const seen = new Set<string>()
    const visit = (name: string) => {
      if (seen.has(name) || !files.has(name)) return
      seen.add(name)
      for (const dep of staticImports(files.get(name)!.code)) visit(dep)
    }
    for (const r of roots) visit(r)
    return seen
  }
  // each file compressed on its own, as the server sends it
  const size = (names: Iterable<string>, f: (b: Uint8Array<ArrayBuffer>) => number) => [...names].reduce((n, name) => n + f(files.get(name)!.bytes), 0)
  const entry = files.get(bundle.entry)!
  // a page's chunk is named after its module (pages/<page>.tsx → <page>-<hash>.js)
  const pageChunks = [...files.keys()].filter((n) => n.endsWith('.js') && n !== bundle.entry && !n.startsWith('main-') && !n.startsWith('chunk-'))
  const pages = pageChunks
    .map((chunk) => {
      const load = closure([bundle.entry, chunk])
      return {
        page: chunk.replace(/-[a-z0-9]{8}\.js$/, ''),
        chunk,
        own: gz(files.get(chunk)!.bytes),
        firstLoadGzip: size(load, gz),
        firstLoadBr: size(load, br),
        firstLoadRaw: size(load, (b) => b.length),
      }
    })
    .sort((a, b) => b.firstLoadGzip - a.firstLoadGzip)
  const css = bundle.styles.map((s) => files.get(s)!.bytes)
  return {
    entry: { name: bundle.entry, raw: entry.bytes.length, gzip: size(closure([bundle.entry]), gz), br: size(closure([bundle.entry]), br) },
    css: { raw: css.reduce((n, b) => n + b.length, 0), gzip: css.reduce((n, b) => n + gz(b), 0) },
    pages,
    totalJsGzip: size(
      [...files.keys()].filter((n) => n.endsWith('.js')),
      gz,
    ),
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`

/** Rows for the bench's table. */
export function webRows(s: WebSizes): [string, string, string][] {
  const worst = s.pages[0]
  const signin = s.pages.find((p) => p.page === 'signin')
  const dashboard = s.pages.find((p) => p.page === 'dashboard')
  return [
    [
      'portal shell JS (entry + its static imports)',
      `${kb(s.entry.gzip)} gzip`,
      `${kb(s.entry.br)} brotli, ${kb(s.entry.raw)} minified entry; CSS ${kb(s.css.gzip)} gzip`,
    ] as [string, string, string],
    ...[signin, dashboard]
      .filter((p) => p !== undefined)
      .map((p): [string, string, string] => [
        `portal first load, /${p.page}`,
        `${kb(p.firstLoadGzip)} gzip`,
        `${kb(p.firstLoadBr)} brotli; budget ${kb(FIRST_LOAD_BUDGET)} gzip`,
      ]),
    ...(worst
      ? [
          [`portal heaviest first load (${worst.page})`, `${kb(worst.firstLoadGzip)} gzip`, `all JS together ${kb(s.totalJsGzip)} gzip`] as [
            string,
            string,
            string,
          ],
        ]
      : []),
  ]
}

if (import.meta.main) {
  const s = await webSizes()
  console.log(`\nportal bundle — entry ${s.entry.name}\n`)
  console.log('| chunk | own (gzip) | first load (gzip) | first load (brotli) |\n|---|---|---|---|')
  console.log(`| shell (entry + static imports) | ${kb(s.entry.gzip)} | ${kb(s.entry.gzip)} | ${kb(s.entry.br)} |`)
  for (const p of s.pages) console.log(`| ${p.page} | ${kb(p.own)} | ${kb(p.firstLoadGzip)} | ${kb(p.firstLoadBr)} |`)
  console.log(
    `\nCSS ${kb(s.css.gzip)} gzip (${kb(s.css.raw)}); all JavaScript together ${kb(s.totalJsGzip)} gzip; first-load budget ${kb(FIRST_LOAD_BUDGET)} gzip`,
  )
}
