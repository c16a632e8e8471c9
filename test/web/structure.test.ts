import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const WEB = resolve(import.meta.dir, '../../web/src')

function sources(dir = WEB): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })
}

/** Each import statement's specifier and whether it is type-only (`import type …` or `export type … from`). */
function imports(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/^(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => ({ spec: m[3]!, typeOnly: Boolean(m[2]) }))
}

/** The files a file imports inside web/src: static imports, re-exports, side-effect imports and import() calls. */
function edges(file: string): string[] {
  // comments may quote an import ("import { Button } from '../ui'"): not an edge
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!)
  return specs.flatMap((spec) => {
    const base = resolve(dirname(file), spec)
    const hit = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => p.startsWith(WEB) && existsSync(p) && statSync(p).isFile())
    return hit ? [hit] : []
  })
}

describe('the portal’s source', () => {
  test('has no import circle (lazy page imports count too)', () => {
    const graph = new Map(sources().map((f) => [f, edges(f)]))
    const circles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 'done') return
      if (state.get(f) === 'open') {
        circles.push([...path.slice(path.indexOf(f)), f].map((p) => relative(WEB, p)).join(' → '))
        return
      }
      state.set(f, 'open')
      for (const next of graph.get(f) ?? []) visit(next, [...path, f])
      state.set(f, 'done')
    }
    for (const f of graph.keys()) visit(f, [])
    expect(circles).toEqual([])
  })

  test('no file over 350 lines (stylesheets aside)', () => {
    const long = sources()
      .map((f) => ({ file: relative(WEB, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > 350)
    expect(long).toEqual([])
  })

  test('is grouped by domain: pages live in their domain’s pages/ folder, generic widgets in ui/', () => {
    const top = readdirSync(WEB).filter((n) => statSync(join(WEB, n)).isDirectory())
    for (const domain of ['auth', 'devices', 'alerts', 'settings', 'ui']) expect(top).toContain(domain)
    expect(top).not.toContain('pages')
    expect(top).not.toContain('components')
    const routes = readFileSync(join(WEB, 'routes.ts'), 'utf8')
    const pages = [...routes.matchAll(/import\('\.\/([^']+)'\)/g)].map((m) => m[1]!)
    for (const page of pages) expect(page).toMatch(/^(auth|devices|alerts|settings|containers|checks)\/pages\/|^layout\/not-found$/)
  })

  test('takes the server’s models as types only: no server code can enter the bundle', () => {
    const found: string[] = []
    for (const file of sources()) {
      for (const { spec, typeOnly } of imports(file)) {
        if (!spec.startsWith('.')) continue
        const target = resolve(dirname(file), spec)
        if (!target.startsWith(WEB) && !typeOnly) found.push(`${relative(WEB, file)} → ${spec}`)
      }
    }
    expect(found).toEqual([])
  })

  test('derives the API’s shapes from the server’s models (a renamed field fails the typecheck)', () => {
    const derived = sources().filter((f) => imports(f).some(({ spec, typeOnly }) => typeOnly && spec.includes('/src/modules/')))
    expect(derived.length).toBeGreaterThanOrEqual(6)
  })
})
