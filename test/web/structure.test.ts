import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
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

describe('the portal’s source', () => {
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
