import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const read = (path: string) => Bun.file(join(ROOT, path)).text()

/** The developer documents: every file, folder and command they name must be real. */
const DOCS = ['CONTRIBUTING.md', 'docs/architecture.md', 'docs/development.md']

const TOP = /^(?:\.ci|src|test|web|scripts|migrations|docs)\//
const FILE = /\.(?:ts|tsx|md|sql|sh|json)$/

/** Every file under the folders the documents speak of, by name and by path. */
function tree(): { names: Set<string>; paths: string[] } {
  const names = new Set<string>()
  const paths: string[] = []
  for (const dir of ['src', 'web', 'test', 'scripts', 'migrations', 'docs']) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || entry.parentPath.includes('node_modules')) continue
      names.add(entry.name)
      paths.push(relative(ROOT, join(entry.parentPath, entry.name)))
    }
  }
  return { names, paths }
}

/** The repository paths a document names: its links, and what it quotes in backticks or draws in its diagrams. */
function namedPaths(doc: string, text: string): string[] {
  const out = new Set<string>()
  for (const [, link] of text.matchAll(/\]\(([^)#\s]+)/g)) {
    if (!/^[a-z]+:/.test(link!)) out.add(normalize(join(dirname(doc), link!)))
  }
  // a top-level path, a path inside a folder named before it (runtime/alerts.tick.ts), or a file name
  for (const [, word] of text.matchAll(
    /(?<![\w/.-])((?:\.ci|src|test|web|scripts|migrations|docs)\/[\w./-]*|(?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:tsx?|md|sql|sh))(?![\w/-])/g,
  )) {
    out.add(word!.replace(/[.,:]+$/, '').replace(/\/$/, ''))
  }
  return [...out].filter((p) => p !== '' && !p.startsWith('dist/'))
}

function exists(path: string, { names, paths }: ReturnType<typeof tree>): boolean {
  if (TOP.test(path) || existsSync(join(ROOT, path))) return existsSync(join(ROOT, path))
  if (path.includes('/')) return paths.some((p) => p.endsWith(`/${path}`))
  return FILE.test(path) ? names.has(path) : true
}

describe('the developer documents name what is there', () => {
  const files = tree()

  for (const doc of DOCS) {
    test(`${doc}: every file and folder it names exists`, async () => {
      const missing = namedPaths(doc, await read(doc)).filter((p) => !exists(p, files))
      expect(missing).toEqual([])
    })
  }

  test('CONTRIBUTING.md: every `bun run` it names is a package script or a file', async () => {
    const text = await read('CONTRIBUTING.md')
    const scripts = Object.keys(((await Bun.file(join(ROOT, 'package.json')).json()) as { scripts: Record<string, string> }).scripts)
    const named = [...text.matchAll(/bun run ([\w:./-]+)/g)].map((m) => m[1]!)
    expect(named.length).toBeGreaterThan(5)
    for (const name of named) {
      if (name.includes('/')) expect(existsSync(join(ROOT, name))).toBe(true)
      else expect(scripts).toContain(name)
    }
  })

  test('CONTRIBUTING.md: the steps it lists under "What CI runs" are the steps .ci/run runs', async () => {
    const text = await read('CONTRIBUTING.md')
    const ci = await read('.ci/run')
    const section = text.slice(text.indexOf('## What CI runs'), text.indexOf('## Layout rules'))
    const steps = [...section.matchAll(/^\d+\. `([^`]+)`/gm)].map((m) => m[1]!)
    expect(steps.length).toBe(6)
    for (const step of steps) expect(ci).toContain(step)
  })
})
