import { describe, expect, test } from 'bun:test'
import { elfSections, memoryMap } from '../../scripts/bench/agent-memory-map'

/** The collector's memory bench attributes a process's resident pages to its executable's sections and its other mappings. */
describe('memory per mapping (scripts/bench/agent-memory-map.ts)', () => {
  test("the executable's loaded sections are read from its ELF header", () => {
    const sections = elfSections(process.execPath)
    const names = sections.map((s) => s.name)
    expect(names).toContain('.text')
    expect(names).toContain('.rodata')
    for (const s of sections) expect(s.end).toBeGreaterThan(s.start)
    // sorted by address, as the attribution walks them
    expect(sections.map((s) => s.start)).toEqual([...sections.map((s) => s.start)].sort((a, b) => a - b))
  })

  test("the parts add up to the process's RSS: nothing resident is left out or counted twice", async () => {
    // an idle process of the same executable (this one keeps touching pages while it is measured)
    const child = Bun.spawn([process.execPath, '-e', 'console.log("ready"); setInterval(() => {}, 60_000)'], { stdout: 'pipe' })
    try {
      const reader = child.stdout.getReader()
      await reader.read()
      reader.releaseLock()
      // the mappings and the total are read a moment apart: while the child still settles they
      // can disagree by a little more than the bound (5.006 % once in CI), so a few readings are
      // allowed to find one taken while it stood still; a part left out or counted twice never does
      let parts = memoryMap(child.pid, process.execPath)
      const gap = (p: Record<string, number>) => {
        const { RSS, PSS: _pss, 'RSS anonymous': _anon, ...rest } = p
        return Math.abs(Object.values(rest).reduce((a, b) => a + b, 0) - RSS!) / RSS!
      }
      for (let i = 0; i < 5 && gap(parts) >= 0.05; i++) parts = memoryMap(child.pid, process.execPath)
      const { RSS, PSS, 'RSS anonymous': anon, ...rest } = parts
      expect(RSS).toBeGreaterThan(0)
      expect(PSS).toBeGreaterThan(0)
      expect(anon).toBeGreaterThan(0)
      expect(rest['exe .text']).toBeGreaterThan(0)
      expect(gap(parts)).toBeLessThan(0.05)
    } finally {
      child.kill()
      await child.exited
    }
  })
})
