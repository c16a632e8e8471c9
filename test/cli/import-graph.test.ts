import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { ROOT } from '../helpers/binary'

const transpiler = new Bun.Transpiler({ loader: 'ts' })

/** A module's static, non-type imports (what loading it loads), as paths under the repository or package names. */
function importsOf(file: string): string[] {
  const { imports } = transpiler.scan(readFileSync(file, 'utf8'))
  return imports
    .filter((i) => i.kind === 'import-statement')
    .map((i) => {
      if (!i.path.startsWith('.')) return i.path
      const base = resolve(dirname(file), i.path)
      const found = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), base].find((p) => existsSync(p))
      return found ? relative(ROOT, found) : relative(ROOT, base)
    })
}

/** Every module loaded, transitively, when `entry` is. */
function closure(entry: string): Set<string> {
  const seen = new Set<string>()
  const walk = (path: string) => {
    if (seen.has(path)) return
    seen.add(path)
    if (path.startsWith('src/') && /\.tsx?$/.test(path)) for (const next of importsOf(join(ROOT, path))) walk(next)
  }
  walk(entry)
  return seen
}

describe('who loads what', () => {
  test('the configuration imports nothing from the commands or the database, and the data dir imports it one way', () => {
    const config = closure('src/config.ts')
    expect([...config].filter((p) => p.startsWith('src/cli/') || p.startsWith('src/db/'))).toEqual([])
    expect(closure('src/db/data-dir.ts').has('src/config.ts')).toBe(true)
  })

  test("vigil's entry and the collector's command load none of the hub's modules", () => {
    const loaded = new Set([...closure('src/main.ts'), ...closure('src/agent/agent.command.ts')])
    const hub = [...loaded].filter(
      (p) =>
        p === 'src/config.ts' ||
        p === 'croner' ||
        ['src/db/', 'src/cli/', 'src/http/', 'src/composition/', 'drizzle-orm'].some((dir) => p.startsWith(dir)) ||
        p === 'elysia',
    )
    expect(hub).toEqual([])
  })
})
