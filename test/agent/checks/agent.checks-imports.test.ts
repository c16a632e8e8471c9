import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/**
 * The collector's memory target holds with checks only if running them does not bring Node's
 * stream machinery into the agent: node:net and node:tls build a Duplex stream per socket, and
 * an agent whose TCP and TLS checks used them kept about 4 MB more resident (docs/performance.md).
 * The probes open sockets with Bun.connect; node:dns is loaded only when a DNS check runs.
 */
const ROOT = join(import.meta.dir, '../../..')
const HEAVY = ['node:net', 'node:tls', 'node:stream', 'node:http', 'node:https', 'node:dns', 'node:dns/promises']

/** Every module a file imports at load time (type-only and dynamic imports left out), transitively. */
function staticImports(entry: string): Map<string, string> {
  const seen = new Map<string, string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.set(file, file)
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^'"]*?\sfrom\s+)?'([^']+)'/gm)) {
      const spec = m[1]!
      if (!spec.startsWith('.')) {
        if (!seen.has(spec)) seen.set(spec, file)
        continue
      }
      const base = resolve(dirname(file), spec)
      visit(base.endsWith('.ts') ? base : `${base}.ts`)
    }
  }
  visit(entry)
  return seen
}

test("the agent's check runner and its probes load none of node:net, node:tls, node:dns or Node's streams", () => {
  const loaded = staticImports(join(ROOT, 'src/agent/checks/agent.checks.ts'))
  // the walk does reach the probes
  expect([...loaded.keys()].some((f) => f.endsWith('probes/probe.tls.ts'))).toBe(true)
  const heavy = HEAVY.filter((m) => loaded.has(m)).map((m) => `${m} (from ${loaded.get(m)!.slice(ROOT.length + 1)})`)
  expect(heavy).toEqual([])
})
